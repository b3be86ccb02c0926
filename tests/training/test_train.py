"""`spacy train` with the CPU config on 2,000 SXU lines."""
import json
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_gdcws.readers import read_sentences, sentence_to_doc
from tests.util import ROOT, corpus_path


@pytest.mark.slow
def test_spacy_train_cpu_config_on_sxu_2000_lines(tmp_path):
    sentences = list(read_sentences(corpus_path("sxu/train.txt")))
    nlp = spacy.blank("zh")
    for name, part in (("train", sentences[:2000]), ("dev", sentences[2000:2200])):
        DocBin(docs=[sentence_to_doc(nlp.vocab, s) for s in part]).to_disk(tmp_path / f"{name}.spacy")
    curve = tmp_path / "curve.jsonl"
    cmd = [
        sys.executable, "-m", "spacy", "train", str(ROOT / "configs" / "default.cfg"),
        "--output", str(tmp_path / "out"),
        "--paths.train", str(tmp_path / "train.spacy"),
        "--paths.dev", str(tmp_path / "dev.spacy"),
        "--paths.curve", str(curve),
        "--training.max_steps", "800",
        "--training.eval_frequency", "100",
        "--training.optimizer.learn_rate.total_steps", "800",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    records = [json.loads(line) for line in curve.read_text().splitlines()]
    best = max(r["scores"]["token_f"] for r in records)
    # #50: the process's memory at each evaluation, to see whether training grows
    assert all(r["peak_rss_mb"] > 50 and (r["rss_mb"] is None or 50 < r["rss_mb"] <= r["peak_rss_mb"] + 1)
               for r in records)
    assert best >= 0.85, records[-1]
    meta = json.loads((tmp_path / "out" / "model-best" / "meta.json").read_text())
    assert meta["performance"]["token_f"] == pytest.approx(best, abs=1e-9)
    loaded = spacy.load(tmp_path / "out" / "model-best")
    assert loaded("中国人民银行").text == "中国人民银行"
