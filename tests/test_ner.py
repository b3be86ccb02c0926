"""NER on the segmenter's words: the char BMES converter, character-offset scoring,
and a small NER trained with configs/ner_segmenter.cfg over a frozen segmenter.

The fixture `tests/fixtures/ner_invented_bmes.txt` is invented text in Resume NER's
format (the corpus itself is research-use data and is not in the repository); its
words are in `ner_invented_words.txt`.
"""
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_gdcws.eval.ner_eval import evaluate_ner, reachability, score_entities, unreachable
from spacy_gdcws.readers.base import CorpusFormatError
from spacy_gdcws.readers.char_bmes import (
    EntitySentence,
    doc_to_sentence,
    read_char_bmes,
    sentence_tags,
    sentence_to_ner_doc,
    write_char_bmes,
)

from .conftest import ROOT, corpus_path

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLE = FIXTURES / "ner_invented_bmes.txt"
SAMPLE_WORDS = FIXTURES / "ner_invented_words.txt"


def sample_docs(vocab):
    return [sentence_to_ner_doc(vocab, s) for s in read_char_bmes(SAMPLE)]


def test_read_sample():
    sents = list(read_char_bmes(SAMPLE))
    assert len(sents) == 12
    first = sents[0]
    assert first.text == "张伟，男，中国国籍，无境外居留权。"
    assert first.entities == [(0, 2, "NAME"), (5, 9, "CONT")]
    assert first.line == 1
    # a single-character entity (S-) and an entity cut by a sentence break
    assert sents[8].entities[0] == (0, 1, "NAME")
    assert (sents[9].cut_end, sents[10].cut_start) == (True, True)
    assert sents[9].text[slice(*sents[9].entities[-1][:2])] == "中国人民银行"
    assert sents[10].text[slice(*sents[10].entities[0][:2])] == "广州分行"


def test_round_trip_through_docbin():
    """file -> sentences -> DocBin -> docs -> sentences -> file gives the same bytes."""
    nlp = spacy.blank("zh")
    db = DocBin(store_user_data=True)
    for doc in sample_docs(nlp.vocab):
        db.add(doc)
    docs = list(DocBin().from_bytes(db.to_bytes()).get_docs(nlp.vocab))
    assert write_char_bmes(doc_to_sentence(d) for d in docs) == SAMPLE.read_text(encoding="utf8")


def test_round_trip_resume_ner():
    """The real corpus, all three files, byte-identical after conversion and back."""
    nlp = spacy.blank("zh")
    for split in ("train", "dev", "test"):
        path = corpus_path(f"resume_ner/{split}.char.bmes")
        sents = list(read_char_bmes(path))
        docs = [sentence_to_ner_doc(nlp.vocab, s) for s in sents]
        assert write_char_bmes(doc_to_sentence(d) for d in docs) == path.read_text(encoding="utf8")


def test_sentence_tags():
    sent = EntitySentence(chars=list("高勇男中国国籍"), entities=[(0, 2, "NAME"), (2, 3, "X"), (3, 7, "CONT")])
    assert sentence_tags(sent) == ["B-NAME", "E-NAME", "S-X", "B-CONT", "M-CONT", "M-CONT", "E-CONT"]
    cut = EntitySentence(chars=list("甲乙"), entities=[(0, 1, "ORG"), (1, 2, "ORG")], cut_start=True, cut_end=True)
    assert sentence_tags(cut) == ["E-ORG", "B-ORG"]


BAD_FILES = [
    # (content, code, line)
    ("高 B-NAME\n勇\n", "E071", 2),  # missing tag
    ("高 B-NAME\n勇 E-NAME extra\n", "E071", 2),
    ("高 I-NAME\n", "E072", 1),  # BIO's I- is not BMES
    ("高 X-NAME\n", "E072", 1),
    ("高 B-\n", "E072", 1),
    ("高 o\n", "E072", 1),
    ("男 O\n高 M-NAME\n", "E073", 2),  # M without B
    ("男 O\n高 E-NAME\n", "E073", 2),  # E without B
    ("高 B-NAME\n勇 E-ORG\n", "E073", 2),  # type changes inside an entity
    ("高 B-NAME\n勇 O\n", "E074", 2),  # B then O
    ("高 B-NAME\n勇 B-NAME\n", "E074", 2),
    ("高 B-NAME\n勇 S-NAME\n", "E074", 2),
    ("高 B-NAME\n\n勇 O\n", "E074", 3),  # the next sentence does not continue it
    ("高 B-NAME\n勇 M-NAME\n", "E074", 3),  # open at the end of the file
    ("高 B-NAME\n\n", "E074", 3),
]


@pytest.mark.parametrize("content,code,line", BAD_FILES)
def test_malformed_lines(tmp_path, content, code, line):
    path = tmp_path / "bad.char.bmes"
    path.write_text(content, encoding="utf8")
    with pytest.raises(CorpusFormatError) as err:
        list(read_char_bmes(path))
    assert str(err.value).startswith(f"[{code}] {path}:{line}:")


def test_convert_cli_error_writes_nothing(tmp_path):
    bad = tmp_path / "bad.char.bmes"
    bad.write_text("高 B-NAME\n勇 O\n", encoding="utf8")
    out = tmp_path / "out.spacy"
    run = subprocess.run([sys.executable, "-m", "spacy_gdcws", "convert-ner", str(bad), str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.startswith("✘ [E074]") and f"{bad}:2" in run.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]
    good = subprocess.run([sys.executable, "-m", "spacy_gdcws", "convert-ner", str(SAMPLE), str(out)],
                          capture_output=True, text=True)
    assert good.returncode == 0, good.stderr
    docs = list(DocBin().from_disk(out).get_docs(spacy.blank("zh").vocab))
    assert write_char_bmes(doc_to_sentence(d) for d in docs) == SAMPLE.read_text(encoding="utf8")


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


@pytest.fixture(scope="module")
def ner_pipeline(tmp_path_factory):
    """A small segmenter trained on the fixture's words, then NER trained with
    configs/ner_segmenter.cfg on its (frozen, annotating) words."""
    from spacy.cli.train import train

    from spacy_gdcws.readers import read_sentences

    from .conftest import block, plain_embed, train_model

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


def test_evaluate_ner_cli(ner_pipeline):
    nlp, tmp = ner_pipeline
    out = tmp / "metrics.json"
    run = subprocess.run([sys.executable, "-m", "spacy_gdcws", "evaluate-ner", str(tmp / "out" / "model-best"),
                          str(tmp / "ner.spacy"), "--output", str(out), "--train", str(tmp / "ner.spacy")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    import srsly

    result = srsly.read_json(out)
    assert result["pipeline"] == ["segmenter", "tok2vec", "ner"]
    assert result["overall"]["gold"] == 29
    assert result["train_unreachable"]["gold"] == 29
