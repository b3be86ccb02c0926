"""`convert-ner` and `evaluate-ner` on invented text in Resume NER's format (tests/fixtures/ner_invented_*)."""
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_gdcws.readers.char_bmes import (
    doc_to_sentence,
    write_char_bmes,
)
from tests.util import NER_SAMPLE


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
    good = subprocess.run([sys.executable, "-m", "spacy_gdcws", "convert-ner", str(NER_SAMPLE), str(out)],
                          capture_output=True, text=True)
    assert good.returncode == 0, good.stderr
    docs = list(DocBin().from_disk(out).get_docs(spacy.blank("zh").vocab))
    assert write_char_bmes(doc_to_sentence(d) for d in docs) == NER_SAMPLE.read_text(encoding="utf8")


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
