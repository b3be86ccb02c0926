"""`training.augment`: pseudo-words and pseudo-characters in training."""
from collections import Counter

import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_gdcws.data.features import SOURCE_TEXT_KEY, source_text
from spacy_gdcws.data.normalize import get_normalizer
from spacy_gdcws.ml.resources import FeatureResources
from spacy_gdcws.pipeline.loss import gold_gaps
from spacy_gdcws.training.augment import (
    MAX_WORD_COUNT,
    PseudoWords,
    is_han,
    is_han_pair,
)
from tests.util import SMALL_MODEL, make_examples, small_model


def example(nlp, words, spaces=None):
    ref = Doc(nlp.vocab, words=words, spaces=spaces or [False] * len(words))
    return Example(nlp.make_doc(ref.text), ref)


def test_is_han_pair():
    assert is_han_pair("北京") and not is_han_pair("北") and not is_han_pair("天安门")
    assert not is_han_pair("一二") and not is_han_pair("A股") and not is_han_pair("北，")
    assert is_han("北") and is_han("天安门") and not is_han("三") and not is_han("A股")


def test_from_counts_draws_from_two_character_words():
    counts = {"北京": 9, "大学": 1, "我": 5, "天安门": 1, "三五": 1, "学生": MAX_WORD_COUNT + 1}
    pseudo = PseudoWords.from_counts(counts)
    assert sorted(pseudo.firsts) == ["北", "大", "学"] and sorted(pseudo.seconds) == ["京", "学", "生"]
    # only rare two-character Han words stand for unknown ones
    assert pseudo.replaceable == {"大学"}
    numpy.random.seed(0)
    drawn = pseudo.draw(50)
    assert all(w[0] in "北大学" and w[1] in "京学生" for w in drawn) and len(set(drawn)) > 3
    assert PseudoWords.from_counts({"我": 3, "天安门": 1}) is None


def test_from_counts_draws_characters_known_only_inside_words():
    counts = {"北京": 9, "大学": 1, "我": 5, "北": 2, "天安门": 1, "三": 1, "他": MAX_WORD_COUNT + 1}
    pseudo = PseudoWords.from_counts(counts)
    # characters of longer words that never stand alone; rare single Han words replaced
    assert sorted(pseudo.chars) == sorted("京大学天安门")
    assert pseudo.replaceable_chars == {"我", "北"}
    numpy.random.seed(0)
    assert set(pseudo.draw_chars(40)) <= set("京大学天安门")
    # nothing to draw: nothing replaced
    assert PseudoWords(["甲"], ["乙"], [], [], ["我"]).replaceable_chars == frozenset()


def test_apply_replaces_words_and_keeps_the_layout():
    nlp = spacy.blank("zh")
    pseudo = PseudoWords(["甲"], ["乙"], ["北京", "大学"])
    words = ["我", "爱", "北京", " ", "大学", "。"]
    eg = example(nlp, words, [False, False, False, False, False, False])
    new = pseudo.apply(eg, 0.999999)
    assert [t.text for t in new.reference] == ["我", "爱", "甲乙", " ", "甲乙", "。"]
    assert new.predicted.text == new.reference.text == "我爱甲乙 甲乙。"
    text = new.predicted.text
    assert [(t.text, t.whitespace_) for t in new.predicted] == [
        (text[t.idx : t.idx + len(t)], t.whitespace_) for t in eg.predicted]
    # the same gold boundaries, and the original text for block leave-out
    assert numpy.array_equal(gold_gaps(new)[0], gold_gaps(eg)[0])
    assert source_text(new.predicted) == eg.predicted.text == "我爱北京 大学。"
    assert SOURCE_TEXT_KEY not in eg.predicted.user_data
    # rate 0, or nothing to replace: the example itself
    assert pseudo.apply(eg, 0.0) is eg
    other = example(nlp, ["我", "爱", "你"])
    assert pseudo.apply(other, 0.999999) is other


def test_pseudo_words_never_grow_the_pipelines_vocab(monkeypatch):
    """#50: each pseudo-word is a new string; in the pipeline's vocab they piled up (~175,000
    lexemes per 1,500 steps of the main job). The augmented references live in a scratch vocab,
    replaced past SCRATCH_LEXEMES, so the pipeline's vocab stays as it is."""
    from spacy_gdcws.training import augment

    monkeypatch.setattr(augment, "SCRATCH_LEXEMES", 50)
    nlp = spacy.blank("zh")
    firsts = [chr(c) for c in range(0x4E00, 0x4E40)]
    pseudo = PseudoWords(firsts, firsts[::-1], ["北京", "大学"])
    eg = example(nlp, ["我", "爱", "北京", "大学"])
    scratches = set()
    for _ in range(100):  # the characters themselves join the pipeline's vocab (a bounded set)
        pseudo.apply(eg, 0.999999)
    before = len(nlp.vocab)
    assert before <= 8 + len(firsts)
    for _ in range(200):
        new = pseudo.apply(eg, 0.999999)
        assert new.reference.text == new.predicted.text and new.predicted.vocab is nlp.vocab
        assert numpy.array_equal(gold_gaps(new)[0], gold_gaps(eg)[0])
        scratches.add(id(new.reference.vocab))
        assert len(new.reference.vocab) <= 50 + 4
    assert len(nlp.vocab) == before and len(scratches) > 1


def test_apply_replaces_single_characters_by_their_own_rate():
    nlp = spacy.blank("zh")
    # "我爱" is a replaceable pair too: a single character's spot is its own token
    pseudo = PseudoWords(["甲"], ["乙"], ["北京", "我爱"], ["丙"], ["我", "爱"])
    eg = example(nlp, ["我", "爱", "北京", "。"])
    assert [t.text for t in pseudo.apply(eg, 0.999999, 0.999999).reference] == ["丙", "丙", "甲乙", "。"]
    assert [t.text for t in pseudo.apply(eg, 0.0, 0.999999).reference] == ["丙", "丙", "北京", "。"]
    new = pseudo.apply(eg, 0.999999, 0.0)
    assert [t.text for t in new.reference] == ["我", "爱", "甲乙", "。"]
    assert numpy.array_equal(gold_gaps(pseudo.apply(eg, 0.0, 0.999999))[0], gold_gaps(eg)[0])
    assert pseudo.apply(eg, 0.0, 0.0) is eg
    # with char_rate 0 the draws are those of pairs alone
    numpy.random.seed(3)
    a = [pseudo.apply(eg, 0.5).reference.text for _ in range(20)]
    numpy.random.seed(3)
    b = [pseudo.apply(eg, 0.5, 0.0).reference.text for _ in range(20)]
    assert a == b and len(set(a)) == 2


def test_apply_keeps_a_pseudo_words_block():
    from spacy_gdcws.data.features import HoldoutFolds

    nlp = spacy.blank("zh")
    egs = [example(nlp, ["北京", "好"]), example(nlp, ["大学", "好"])]
    folds = HoldoutFolds.from_texts([eg.predicted.text for eg in egs], 2)
    new = PseudoWords(["甲"], ["乙"], ["大学"]).apply(egs[1], 0.999999)
    assert new.predicted.text == "甲乙好" and folds.fold(source_text(new.predicted)) == 1

    resources = FeatureResources(get_normalizer(""), holdout_folds=folds)
    assert list(resources.doc_folds([egs[0].predicted, new.predicted])) == [0, 1]


def test_segmenter_trains_with_pseudo_words(sxu_sentences):
    model = small_model(**{"holdout_folds": 2,
             "ngram_vocab": True, "ngram_holdout": True, "lexicon_max_len": 4, "lexicon_holdout": True})
    nlp = spacy.blank("zh")
    seg = nlp.add_pipe("gdcws_segmenter", config={"model": model, "pseudo_words": 0.5})
    examples = make_examples(nlp, sxu_sentences[:8])
    nlp.initialize(lambda: examples)
    counts = Counter(t.text for eg in examples for t in eg.reference if not t.is_space)
    # initialize takes the real words only; the pseudo-words come from them
    assert seg.train_words == set(counts)
    assert set(seg._pseudo.firsts) == {w[0] for w in counts if is_han_pair(w)}
    seen = []
    from spacy_gdcws.pipeline import segmenter as segmenter_module

    original = segmenter_module.batch_loss

    def spy(golds, batch, scores, **parts):
        seen.extend(doc.text for doc in batch)
        return original(golds, batch, scores, **parts)

    segmenter_module.batch_loss = spy
    numpy.random.seed(1)
    try:
        loss = nlp.update(examples)["gdcws_segmenter"]
    finally:
        segmenter_module.batch_loss = original
    assert numpy.isfinite(loss) and loss > 0
    texts = [eg.predicted.text for eg in examples]
    assert len(seen) == len(texts) and seen != texts
    assert all(len(a) == len(b) for a, b in zip(seen, texts))
    # off by default
    plain = spacy.blank("zh").add_pipe("gdcws_segmenter", config={"model": model})
    plain.initialize(lambda: examples)
    assert plain.pseudo_words == 0.0 and plain.pseudo_chars == 0.0 and plain._pseudo is None
    # single characters alone
    chars = spacy.blank("zh").add_pipe("gdcws_segmenter", config={"model": model, "pseudo_chars": 0.5})
    chars.initialize(lambda: examples)
    assert chars._pseudo is not None and len(chars._pseudo.replaceable_chars) > 0


@pytest.mark.parametrize("setting", ["pseudo_words", "pseudo_chars"])
@pytest.mark.parametrize("value", [-0.1, 1.0])
def test_pseudo_shares_are_checked(setting, value):
    with pytest.raises(ValueError, match=setting):
        spacy.blank("zh").add_pipe("gdcws_segmenter", config={"model": SMALL_MODEL, setting: value})


def test_respelled_is_apply_s_predicted_doc_with_the_same_draws(sxu_sentences):
    """`respelled` (what training uses) gives `apply`'s predicted doc from the same
    draws, keeping every token; the example's gold gaps hold for it."""
    nlp = spacy.blank("zh")
    examples = make_examples(nlp, sxu_sentences[:40])
    counts = Counter(t.text for eg in examples for t in eg.reference if not t.is_space)
    pseudo = PseudoWords.from_counts(counts)
    numpy.random.seed(4)
    applied = [pseudo.apply(eg, 0.9, 0.9) for eg in examples]
    numpy.random.seed(4)
    docs = [pseudo.respelled(eg, 0.9, 0.9) for eg in examples]
    assert any(doc is not eg.predicted for doc, eg in zip(docs, examples))
    for doc, new, eg in zip(docs, applied, examples):
        assert [t.text_with_ws for t in doc] == [t.text_with_ws for t in new.predicted]
        assert len(doc) == len(eg.predicted)
        assert numpy.array_equal(gold_gaps(new)[0], gold_gaps(eg)[0])
