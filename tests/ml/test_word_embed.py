"""`ml.word_embed`: hash embeddings of a word's attributes and of its first and last characters."""
import numpy
import pytest
import spacy
from spacy.strings import get_string_id
from spacy.tokens import Doc
from spacy.util import registry

from spacy_gdcws.ml.word_embed import build_edge_char_hash_embed, edge_char_features

ATTRS = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]


def _docs():
    nlp = spacy.blank("zh")
    return [Doc(nlp.vocab, words=["美术", "治疗法", "方法", "性"], spaces=[False] * 4),
            Doc(nlp.vocab, words=[], spaces=[])]


def test_features_are_the_attributes_then_the_first_and_last_character():
    rows, _ = edge_char_features(ATTRS)(_docs(), is_train=False)
    assert rows[0].shape == (4, 6) and rows[1].shape == (0, 6)
    assert rows[0].dtype == numpy.uint64
    first, last = rows[0][:, 4], rows[0][:, 5]
    assert last[1] == last[2] == get_string_id("法")  # 治疗法 and 方法 share their last character
    assert first[1] == get_string_id("治") and first[3] == last[3] == get_string_id("性")
    # SUFFIX (the last three) tells 治疗法 from 方法, the last character does not
    assert rows[0][1, 2] != rows[0][2, 2]


def test_the_embedding_is_registered_trains_and_checks_its_rows():
    make = registry.architectures.get("spacy_gdcws.EdgeCharHashEmbed.v1")
    assert make is build_edge_char_hash_embed
    model = make(width=16, attrs=ATTRS, rows=[100, 100, 100, 10], char_rows=50)
    docs = _docs()
    model.initialize(X=docs[:1])
    vectors, backprop = model.begin_update(docs)
    assert [v.shape for v in vectors] == [(4, 16), (0, 16)]
    assert backprop([numpy.ones_like(v) for v in vectors]) == []
    with pytest.raises(ValueError, match="E113"):
        make(width=16, attrs=ATTRS, rows=[100], char_rows=50)
