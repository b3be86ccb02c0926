"""`convert-ner` and `evaluate-ner` on invented text in Resume NER's format (tests/fixtures/ner_invented_*)."""
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_gdcws.readers.char_bmes import (
    doc_to_sentence,
    read_char_bmes,
    sentence_to_ner_doc,
    write_char_bmes,
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


@pytest.mark.slow
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
