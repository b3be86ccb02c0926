"""`eval.ner_eval`: entities scored on character offsets, reachability, and a small NER trained over a frozen segmenter (configs/ner_segmenter.cfg)."""
import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_gdcws.eval.ner_eval import (
    evaluate_ner,
    reachability,
    score_entities,
    unreachable,
)
from spacy_gdcws.readers.char_bmes import (
    read_char_bmes,
    sentence_to_ner_doc,
)
from tests.util import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


SAMPLE = FIXTURES / "ner_invented_bmes.txt"


SAMPLE_WORDS = FIXTURES / "ner_invented_words.txt"


def sample_docs(vocab):
    return [sentence_to_ner_doc(vocab, s) for s in read_char_bmes(SAMPLE)]


@pytest.fixture(scope="module")
def ner_pipeline(tmp_path_factory):
    """A small segmenter trained on the fixture's words, then NER trained with
    configs/ner_segmenter.cfg on its (frozen, annotating) words."""
    from spacy.cli.train import train

    from spacy_gdcws.readers import read_sentences
    from tests.util import block, plain_embed, train_model

    tmp = tmp_path_factory.mktemp("ner")
    sentences = list(read_sentences(SAMPLE_WORDS, "sighan"))
    model = {"@architectures": "spacy_gdcws.CharSegmenter.v1",
             "embed": plain_embed(width=32, char_rows=2000,
                       bigram_rows=2000, bigram_width=16, lexicon_max_len=0),
             "encoder": block("BiLSTM.v1", width=32, depth=1),
             "scorer": {"@architectures": "spacy_gdcws.GapScorer.v1", "width": 32, "hidden": 32}}
    seg, _ = train_model(model, sentences, steps=60, learn_rate=0.01)
    seg.rename_pipe("gdcws_segmenter", "segmenter")  # the name the project's configs give it
    seg.to_disk(tmp / "segmenter")
    db = DocBin(store_user_data=True)
    for doc in sample_docs(seg.vocab):
        db.add(doc)
    db.to_disk(tmp / "ner.spacy")
    train(ROOT / "configs" / "ner_segmenter.cfg", tmp / "out",
          overrides={"paths.train": str(tmp / "ner.spacy"), "paths.dev": str(tmp / "ner.spacy"),
                     "paths.segmenter": str(tmp / "segmenter"), "training.max_steps": 100,
                     "training.eval_frequency": 50, "training.batcher.size.start": 12,
                     "training.optimizer.learn_rate": 0.005})
    return spacy.load(tmp / "out" / "model-best"), tmp


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
    golds = sample_docs(nlp.vocab)
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
