"""The parser's gold on predicted words: aligned as spaCy aligns, kept per example across copies."""
import numpy
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_gdcws.data.features import gold
from spacy_gdcws.data.features.gold import IGNORE, ROOT_ROW, AlignedGold, aligned_gold

LABELS = {"deps": {"root": 0, "nsubj": 1, "obj": 2, "punct": 3}, "upos": {"PRON": 0, "VERB": 1, "PUNCT": 2},
          "xpos": {"PRP": 0, "VV": 1}}


def _example(predicted_words):
    nlp = spacy.blank("zh")
    # 我 爱 北京 。 : 爱 the root, 我 its subject, 北京 its object (a tag the labels lack), 。 on 爱
    reference = Doc(nlp.vocab, words=["我", "爱", "北京", "。"], heads=[1, 1, 1, 1],
                    deps=["nsubj", "root", "obj", "punct"], pos=["PRON", "VERB", "PROPN", "PUNCT"],
                    tags=["PRP", "VV", "NR", ""])
    return Example(Doc(nlp.vocab, words=predicted_words), reference)


def test_the_gold_of_matching_words_is_each_words_own():
    eg = _example(["我", "爱", "北京", "。"])
    heads, deps, upos, xpos, ents = aligned_gold([eg], [(0, [0, 1, 2, 3])], 5, LABELS, AlignedGold())
    assert heads.tolist() == [[2, 0, 2, 2, IGNORE]]  # 0 = root, k + 1 = word k
    assert deps.tolist() == [[1, ROOT_ROW, 2, 3, IGNORE]]
    assert upos.tolist() == [[0, 1, IGNORE, 2, IGNORE]]  # PROPN: not a label
    assert xpos.tolist() == [[0, 1, IGNORE, IGNORE, IGNORE]]  # NR not a label, 。 untagged
    assert ents.tolist() == [[IGNORE] * 5]  # no entity annotation in the reference: no entity gold


def test_a_split_word_has_no_gold_and_a_head_outside_the_sentence_is_not_scored():
    eg = _example(["我", "爱", "北", "京", "。"])  # 北京 split: neither half has a gold head
    heads, deps, upos, _, _ = aligned_gold([eg], [(0, [0, 1]), (0, [2, 3, 4])], 3, LABELS, AlignedGold())
    assert heads.tolist() == [[2, 0, IGNORE], [IGNORE, IGNORE, IGNORE]]  # 。's head 爱 is in the other sentence
    assert deps.tolist() == [[1, ROOT_ROW, IGNORE], [IGNORE, IGNORE, IGNORE]]
    assert upos.tolist()[1][2] == 2  # its tag is still gold


def test_each_example_is_aligned_once_across_copies_and_again_when_the_labels_change(monkeypatch):
    calls = []
    align = gold._align
    monkeypatch.setattr(gold, "_align", lambda eg, labels: calls.append(1) or align(eg, labels))
    cache = AlignedGold()
    eg = _example(["我", "爱", "北京", "。"])
    first = cache(eg, LABELS)
    copy = Example(eg.predicted.copy(), eg.reference.copy())  # what spaCy's Language.update passes on
    assert all(numpy.array_equal(a, b) for a, b in zip(first, cache(copy, LABELS)))
    assert len(calls) == 1
    other = _example(["我", "爱", "北", "京", "。"])
    cache(other, LABELS)
    assert len(calls) == 2
    relabelled = {**LABELS, "deps": {"root": 0, "obj": 1, "nsubj": 2, "punct": 3}}
    assert cache(eg, relabelled)[1].tolist() == [2, ROOT_ROW, 1, 3]
    assert len(calls) == 3


def test_past_its_limit_the_cache_starts_again():
    cache = AlignedGold(limit=1)
    cache(_example(["我", "爱", "北京", "。"]), LABELS)
    cache(_example(["我", "爱", "北", "京", "。"]), LABELS)
    assert len(cache._rows) == 1
