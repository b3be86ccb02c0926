"""`data.features.words.WordFeaturizer`: the parser's feature rows of a word (hashed form, edge
characters, lexicon tag and frequency, length, treebank), read through the character map, cached
by ORTH id; sentences of a batch; prediction batches bounded by padded size."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_gdcws.data.features.gold import IGNORE
from spacy_gdcws.data.features.hashing import RESERVED, text_row
from spacy_gdcws.data.features.words import FEATURES, MAX_CHARS, TREEBANK_ROW, WordFeaturizer, WordLexicon
from spacy_gdcws.data.normalize import get_normalizer

ROWS = [2000, 500, 500, 16, 12, 24, 4]
LEXICON = WordLexicon({"北京": (1024, "ns"), "中国": (3, "ns"), "我们": (7, "r")})


def _featurizer(rows=ROWS, normalize: str = "") -> WordFeaturizer:
    return WordFeaturizer(rows, 300, LEXICON, LEXICON.tags(), normalizer=get_normalizer(normalize) if normalize else None)


def _doc(words, spaces=None):
    nlp = spacy.blank("zh")
    return Doc(nlp.vocab, words=words, spaces=spaces or [False] * len(words))


def test_a_words_row_reads_its_form_characters_lexicon_length_and_frequency():
    doc = _doc(["北京", "天安门"])
    featurizer = _featurizer()
    feats, chars = featurizer.word_rows(doc[0].orth, doc.vocab.strings)
    tags = {t: RESERVED + i for i, t in enumerate(LEXICON.tags())}
    assert feats.tolist() == [text_row("北京", 2000), text_row("北", 500), text_row("京", 500), tags["ns"],
                              RESERVED + 2, RESERVED + 11, TREEBANK_ROW]  # log2(1024) + 1 = 11
    assert chars.tolist() == [text_row("北", 300), text_row("京", 300)]
    unknown, _ = featurizer.word_rows(doc[1].orth, doc.vocab.strings)
    assert unknown[3] == 1 and unknown[5] == RESERVED  # not in the lexicon: row 1, no frequency


def test_rows_stay_inside_their_tables_and_six_tables_have_no_treebank_column():
    long_word = "一二三四五六七八九十十一十二十三十四十五"
    doc = _doc([long_word])
    feats, chars = _featurizer([2000, 500, 500, 16, 5, 3]).word_rows(doc[0].orth, doc.vocab.strings)
    assert len(feats) == len(FEATURES) - 1
    assert feats[4] == 4 and feats[5] <= 2  # length and frequency capped at their tables' last rows
    assert len(chars) == MAX_CHARS


def test_the_character_map_gives_traditional_and_simplified_one_row():
    doc = _doc(["北京", "國家", "国家"])
    featurizer = _featurizer(normalize="t2s+width")
    rows = [featurizer.word_rows(t.orth, doc.vocab.strings) for t in doc]
    assert rows[1][0].tolist() == rows[2][0].tolist() and rows[1][1].tolist() == rows[2][1].tolist()
    plain = _featurizer().word_rows(doc[1].orth, doc.vocab.strings)
    assert plain[0].tolist() != rows[2][0].tolist()


def test_rows_are_cached_by_orth_id():
    doc = _doc(["北京"])
    featurizer = _featurizer()
    first = featurizer.word_rows(doc[0].orth, doc.vocab.strings)
    again = featurizer.word_rows(doc[0].orth, doc.vocab.strings)
    assert again[0] is first[0] and again[1] is first[1]


def test_a_batch_holds_every_sentence_and_its_treebank_row_but_no_whitespace():
    docs = [_doc(["我们", "爱", "北京", "。", "他", "来", "了"]), _doc(["中国", "\n", "好"])]
    featurizer = _featurizer()
    batch = featurizer.batch(docs, treebanks=[2, 3])
    assert batch.where == [(0, [0, 1, 2, 3]), (0, [4, 5, 6]), (1, [0]), (1, [2])]
    assert batch.lengths.tolist() == [4, 3, 1, 1]
    assert batch.feats.shape == (4, 4, len(ROWS))
    assert batch.feats[0, :4, -1].tolist() == [2] * 4 and batch.feats[2, 0, -1] == 3
    assert (batch.feats[1, 3] == 0).all() and (batch.chars[2, 1:] == 0).all()  # padding
    assert batch.space_heads == [{}, {1: 0}]
    assert batch.gold is None


def test_a_training_batch_carries_the_gold_on_its_words():
    nlp = spacy.blank("zh")
    gold = Doc(nlp.vocab, words=["我们", "爱", "北京"], spaces=[False] * 3, heads=[1, 1, 1],
               deps=["nsubj", "ROOT", "obj"], pos=["PRON", "VERB", "PROPN"], tags=["PRP", "VV", "NNP"])
    pred = Doc(nlp.vocab, words=["我", "们爱", "北", "京"], spaces=[False] * 4)
    labels = {"deps": {"ROOT": 0, "nsubj": 1, "obj": 2}, "upos": {"PRON": 0, "PROPN": 1, "VERB": 2},
              "xpos": {"NNP": 0, "PRP": 1, "VV": 2}}
    batch = _featurizer().batch([pred], [Example(pred, gold)], labels)
    heads, deps, upos, xpos, ents = (g[0].tolist() for g in batch.gold)
    # the pieces of a split gold word (我 of 我们; 北 京) take its labels and its head (for 我: the
    # predicted word that holds the gold head 爱, 们爱, row 2); a word across two gold words (们爱)
    # has no gold
    assert heads == [2, IGNORE, 2, 2]
    assert deps == [1, IGNORE, 2, 2] and upos == [0, IGNORE, 1, 1] and xpos == [1, IGNORE, 0, 0]


@pytest.mark.parametrize("max_padded", [6, 12, 4096])
def test_prediction_batches_are_sorted_and_bounded_by_padded_size(max_padded):
    words = ["我", "爱", "。"] + ["一"] * 5 + ["。"] + ["好", "。"]
    docs = [_doc(words), _doc(["你", "好"])]
    batches, space_heads = _featurizer().batches(docs, max_padded=max_padded)
    seen = sorted((d, tuple(s)) for b in batches for d, s in b.where)
    assert seen == sorted((d, tuple(s)) for d, s in _featurizer().split(docs)[0])
    lengths = [len(s) for b in batches for _, s in b.where]
    assert lengths == sorted(lengths)
    for b in batches:
        assert len(b.where) == 1 or b.feats.shape[0] * b.feats.shape[1] <= max_padded
    assert numpy.array_equal(numpy.concatenate([b.lengths for b in batches]), numpy.array(lengths))
    assert space_heads == [{}, {}]
