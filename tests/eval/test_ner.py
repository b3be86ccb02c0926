"""`eval.ner_eval`: entities scored on character offsets, reachability, and a small NER trained over a frozen segmenter (configs/ner_segmenter.cfg)."""
import pytest
import spacy
from spacy.tokens import Doc

from spacy_gdcws.eval.ner_eval import (
    evaluate_ner,
    reachability,
    score_entities,
    unreachable,
)
from tests.util import ner_sample_docs


def test_score_entities():
    gold = [(0, 2, "NAME"), (5, 9, "CONT"), (10, 12, "ORG")]
    pred = [(0, 2, "NAME"), (5, 9, "ORG"), (12, 14, "ORG")]
    scores = score_entities([(pred, gold), ([], [(0, 1, "NAME")])])
    assert scores["overall"]["correct"] == 1
    assert (scores["overall"]["predicted"], scores["overall"]["gold"]) == (3, 4)
    assert scores["overall"]["p"] == pytest.approx(1 / 3)
    assert scores["overall"]["r"] == pytest.approx(1 / 4)
    assert scores["overall"]["f"] == pytest.approx(2 / 7)
    assert scores["per_type"]["NAME"]["r"] == pytest.approx(0.5)
    assert scores["per_type"]["CONT"]["p"] == 0.0 and scores["per_type"]["CONT"]["gold"] == 1
    assert scores["per_type"]["ORG"]["predicted"] == 2


def test_unreachable():
    vocab = spacy.blank("zh").vocab
    doc = Doc(vocab, words=["张伟男", "，", "中国", "国籍"], spaces=[False] * 4)
    entities = [(0, 2, "NAME"), (4, 8, "CONT"), (4, 6, "LOC"), (3, 4, "X")]
    assert unreachable(entities, doc) == [(0, 2, "NAME")]


def test_ner_on_frozen_segmenter(ner_pipeline):
    nlp, tmp = ner_pipeline
    assert nlp.pipe_names == ["segmenter", "tok2vec", "ner"]
    golds = ner_sample_docs(nlp.vocab)
    predicted = list(nlp.pipe(g.text for g in golds))
    for doc, gold in zip(predicted, golds):
        assert doc.text == gold.text
        # the segmenter's words, and entities made of whole words, placed on the text's characters
        assert len(doc) < len(gold)
        edges = {t.idx for t in doc} | {t.idx + len(t) for t in doc}
        for ent in doc.ents:
            assert ent.start_char in edges and ent.end_char in edges
            assert doc.text[ent.start_char:ent.end_char] == ent.text
    # the scores are those of exact (start, end, label) matches on characters
    scores = evaluate_ner(nlp, golds)
    gold_sets = [{(e.start_char, e.end_char, e.label_) for e in g.ents} for g in golds]
    pred_sets = [{(e.start_char, e.end_char, e.label_) for e in d.ents} for d in predicted]
    correct = sum(len(p & g) for p, g in zip(pred_sets, gold_sets))
    assert scores["overall"]["correct"] == correct > 0
    assert scores["overall"]["predicted"] == sum(map(len, pred_sets))
    assert scores["overall"]["gold"] == sum(map(len, gold_sets)) == 29
    lost = sum(len(unreachable(sorted(g), d)) for g, d in zip(gold_sets, predicted))
    assert scores["unreachable"]["unreachable"] == lost
    assert reachability(nlp, golds)["unreachable"] == lost
    # what spaCy's own scorer reports on the same docs agrees (its spans align on characters too)
    from spacy.training import Example

    spacy_f = nlp.evaluate([Example(nlp.make_doc(g.text), g) for g in golds])["ents_f"]
    assert spacy_f == pytest.approx(scores["overall"]["f"])
