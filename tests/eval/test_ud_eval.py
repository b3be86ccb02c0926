"""`eval.ud_eval`: words, UPOS and dependencies aligned on characters (CoNLL 2018 style)."""
import pytest
import spacy
from spacy.tokens import Doc

from spacy_gdcws.eval.ud_eval import evaluate_pipeline, score_ud


def make_doc(nlp, words, pos, heads, deps):
    return Doc(nlp.vocab, words=words, spaces=[False] * len(words), pos=pos, heads=heads, deps=deps)


@pytest.fixture
def nlp():
    return spacy.blank("zh")


@pytest.fixture
def gold(nlp):
    # 我 爱 北京 。  (爱 is the root)
    return make_doc(nlp, ["我", "爱", "北京", "。"], ["PRON", "VERB", "PROPN", "PUNCT"], [1, 1, 1, 1],
                    ["nsubj", "root", "obj", "punct"])


def test_gold_against_itself_is_perfect(nlp, gold):
    scores = score_ud([(gold, gold)])
    assert all(scores[k]["f"] == 1.0 for k in ("words", "upos", "uas", "las"))


def test_segmentation_error_costs_words_tags_and_arcs(nlp, gold):
    # 北京 split in two: 3 of 5 predicted words match 3 of 4 gold words
    pred = make_doc(nlp, ["我", "爱", "北", "京", "。"], ["PRON", "VERB", "PROPN", "PROPN", "PUNCT"],
                    [1, 1, 1, 2, 1], ["nsubj", "root", "obj", "flat", "punct"])
    scores = score_ud([(pred, gold)])
    assert scores["words"]["p"] == pytest.approx(3 / 5)
    assert scores["words"]["r"] == pytest.approx(3 / 4)
    assert scores["upos"]["r"] == pytest.approx(3 / 4)
    assert scores["uas"]["r"] == pytest.approx(3 / 4)


def test_wrong_head_and_label_are_counted_apart(nlp, gold):
    # same words; 我 attached to 北京 (wrong head), 。 has the wrong label
    pred = make_doc(nlp, ["我", "爱", "北京", "。"], ["PRON", "VERB", "NOUN", "PUNCT"], [2, 1, 1, 1],
                    ["nsubj", "root", "obj", "dep"])
    scores = score_ud([(pred, gold)])
    assert scores["words"]["f"] == 1.0
    assert scores["upos"]["f"] == pytest.approx(3 / 4)
    assert scores["uas"]["f"] == pytest.approx(3 / 4)
    assert scores["las"]["f"] == pytest.approx(2 / 4)


def test_texts_must_match(nlp, gold):
    other = make_doc(nlp, ["你", "爱", "北京", "。"], ["PRON", "VERB", "PROPN", "PUNCT"], [1, 1, 1, 1],
                     ["nsubj", "root", "obj", "punct"])
    with pytest.raises(ValueError, match="E023"):
        score_ud([(other, gold)])


def test_evaluate_pipeline_runs_both_settings(trained_nlp, sxu_sentences):
    from spacy_gdcws.readers import sentence_to_doc

    golds = [sentence_to_doc(trained_nlp.vocab, s) for s in sxu_sentences[:5]]
    result = evaluate_pipeline(trained_nlp, golds)
    # gold segmentation with the segmenter disabled keeps the gold words exactly
    assert result["gold_segmentation"]["words"]["f"] == 1.0
    # the segmenter was overfitted on these sentences
    assert result["predicted_segmentation"]["words"]["f"] > 0.9
    with pytest.raises(ValueError, match="E024"):
        evaluate_pipeline(trained_nlp, golds, segmenter="nope")
