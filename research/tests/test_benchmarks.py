"""The benchmarks run and report what they promise (speed, decoding)."""
import json
import subprocess
import sys

import pytest

from tests.util import ROOT, SMALL_MODEL, corpus_path, make_examples


@pytest.mark.slow
def test_speed_benchmark_reports_medians_memory_and_ratios(tmp_path, sxu_sentences):
    import spacy

    sxu_test = corpus_path("sxu/test.txt")
    nlp = spacy.blank("zh")
    nlp.add_pipe("gdcws_segmenter", config={"model": SMALL_MODEL})
    nlp.initialize(lambda: make_examples(nlp, sxu_sentences))
    nlp.to_disk(tmp_path / "model")
    out = tmp_path / "speed.json"
    cmd = [sys.executable, str(ROOT / "research" / "benchmarks" / "speed.py"), "--model", str(tmp_path / "model"),
           "--baseline-model", str(tmp_path / "model"), "--fast-model", str(tmp_path / "model"),
           "--contenders", "gdcws_segment", "gdcws_pipe", "gdcws_pipe_baseline", "gdcws_fast", "gdcws_zero",
           "gdcws_zero_priors", "spacy_char", "--inputs", "sxu_test",
           "--runs", "2", "--threads", "1", "--sxu-test", str(sxu_test), "--output", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["machine"]["cpus"] and report["runs"] == 2
    results = {r["contender"]: r for r in report["results"]}
    assert set(results) == {"gdcws_segment", "gdcws_pipe", "gdcws_pipe_baseline", "gdcws_fast", "gdcws_zero",
                            "gdcws_zero_priors", "spacy_char"}
    assert report["baseline_model"] == str(tmp_path / "model")
    for r in results.values():
        assert r["chars"] == 184269 and len(r["seconds"]) == 2 and r["peak_rss_mb"] > 0
    # the raw API and nlp.pipe find the same words; spaCy's char segmenter one token per character
    assert results["gdcws_segment"]["units"] == results["gdcws_pipe"]["units"] == results["gdcws_pipe_baseline"]["units"]
    assert results["gdcws_fast"]["units"] == results["gdcws_pipe"]["units"]
    assert 0 < results["gdcws_zero"]["units"] <= 184269  # zero logits: the threshold's side decides every gap
    assert results["spacy_char"]["units"] == 184269
    ratio = report["ratios"]["sxu_test"]["gdcws_pipe/spacy_char"]
    assert ratio == round(results["gdcws_pipe"]["chars_per_second"] / results["spacy_char"]["chars_per_second"], 3)


def test_decoding_benchmark_reports_every_setting(tmp_path, trained_nlp, sxu_sentences):
    from spacy.tokens import DocBin

    from spacy_gdcws.readers import sentence_to_doc

    trained_nlp.to_disk(tmp_path / "model")
    DocBin(docs=[sentence_to_doc(trained_nlp.vocab, s) for s in sxu_sentences[:5]]).to_disk(tmp_path / "dev.spacy")
    out = tmp_path / "decoding.json"
    cmd = [sys.executable, str(ROOT / "research" / "benchmarks" / "decoding.py"), "--model", str(tmp_path / "model"),
           "--dev", str(tmp_path / "dev.spacy"), "--runs", "2", "--output", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["chars"] == sum(len("".join(s.words)) for s in sxu_sentences[:5])
    settings = report["settings"]
    assert [(r["transition_weight"], r["tag_prior_weight"], r["bigram_prior_weight"]) for r in settings] == [
        (0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 1, 1)]
    assert settings[0]["x_greedy"] == 1.0 and all(r["seconds"] > 0 for r in settings)
