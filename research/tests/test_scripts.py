"""The research scripts run on small data."""
import importlib.util
import json
import subprocess
import sys

import pytest

from tests.util import ROOT


def _load_gpu_train():
    spec = importlib.util.spec_from_file_location("gpu_train", ROOT / "research" / "scripts" / "gpu_train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_steps_per_second_uses_the_last_two_evaluations(tmp_path):
    gpu_train = _load_gpu_train()
    curve = tmp_path / "curve.jsonl"
    records = [{"step": 0, "seconds": 5.0}, {"step": 30, "seconds": 20.0}, {"step": 60, "seconds": 30.0}]
    curve.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf8")
    assert gpu_train.steps_per_second(curve) == pytest.approx(3.0)
    curve.write_text("".join(json.dumps(r) + "\n" for r in records[:2]), encoding="utf8")
    with pytest.raises(RuntimeError, match="need 3"):
        gpu_train.steps_per_second(curve)


@pytest.mark.slow
def test_gpu_train_script_trains_and_evaluates_on_cpu(tmp_path):
    corpus_dir = tmp_path / "corpus"
    subprocess.run(
        [sys.executable, "-m", "spacy_gdcws", "prepare", "ud_gsdsimp", str(ROOT / "assets"), str(corpus_dir / "ud_gsdsimp")],
        check=True, capture_output=True,
    )
    out = tmp_path / "out"
    subprocess.run(
        [
            sys.executable, str(ROOT / "research" / "scripts" / "gpu_train.py"), "ud_gsdsimp", "--config", "default",
            "--name", "tiny", "--steps", "4", "--eval-every", "2", "--minutes", "5", "--gpu-id", "-1",
            "--corpus-dir", str(corpus_dir), "--out", str(out), "--work", str(tmp_path / "work"),
            "--components.segmenter.model.embed.width", "32", "--components.segmenter.model.encoder.width", "32",
            "--components.segmenter.model.encoder.d_ff", "32", "--components.segmenter.model.encoder.biaffine_width", "32",
            "--components.segmenter.model.scorer.width", "32",
        ],
        check=True, capture_output=True,
    )
    metrics = json.loads((out / "ud_gsdsimp.tiny.json").read_text(encoding="utf8"))
    figures = metrics["official"] or metrics["python"]
    assert 0.0 < figures["f"] <= 1.0
    gold_lines = (corpus_dir / "ud_gsdsimp" / "test_gold.txt").read_text(encoding="utf8").splitlines()
    pred_lines = (out / "ud_gsdsimp.tiny.txt").read_text(encoding="utf8").splitlines()
    assert len(pred_lines) == len(gold_lines)
    assert [line.replace(" ", "") for line in pred_lines] == [line.replace(" ", "") for line in gold_lines]
    curve = [json.loads(line) for line in (out / "ud_gsdsimp.tiny.jsonl").read_text(encoding="utf8").splitlines()]
    assert [r["step"] for r in curve] == [0, 2, 4]
    log = (out / "ud_gsdsimp.tiny.log").read_text(encoding="utf8")
    assert "--training.max_steps 4" in log and "--components.segmenter.model.embed.width 32" in log
    saved = (tmp_path / "work" / "ud_gsdsimp.tiny" / "model-best" / "config.cfg").read_text(encoding="utf8")
    assert "width = 32" in saved


def test_unknown_rates_of_dev_leave_one_doc_out_and_blocks(tmp_path):
    import spacy
    from spacy.tokens import Doc, DocBin

    spec = importlib.util.spec_from_file_location("unknown_rates", ROOT / "research" / "scripts" / "unknown_rates.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    vocab = spacy.blank("zh").vocab

    def save(name, sentences):
        docs = [Doc(vocab, words=words, spaces=[False] * len(words)) for words in sentences]
        DocBin(docs=docs).to_disk(tmp_path / f"{name}.spacy")

    save("train", [["北京", "大学"], ["北京", "人"], ["上海", "人"], ["上海", "大学"]])
    save("dev", [["南京", "大学"]])
    table = module.corpus_rates(tmp_path, blocks=2)
    # dev: 南京 unknown, 京大 / 大学 known
    assert table["dev"] == {"in_word_bigrams": 50.0, "boundary_bigrams": 0.0, "words": 50.0}
    # every word and in-word bigram occurs in two docs; each boundary bigram in one
    assert table["train_leave_one_doc_out"] == {"in_word_bigrams": 0.0, "boundary_bigrams": 100.0, "words": 0.0}
    # blocks {doc 0, 1} and {doc 2, 3}: 北京 and 上海 lie in one block each, 大学 and 人 in both
    assert table["train_2_blocks"] == {"in_word_bigrams": 66.67, "boundary_bigrams": 100.0, "words": 50.0}


def test_block_dev_holds_out_one_block_of_the_training_file(tmp_path):
    import spacy
    from spacy.tokens import DocBin

    corpora = ROOT.parent / "shared" / "corpora"
    if not (corpora / "zhuxian").exists():
        pytest.skip("corpora not available")
    out = tmp_path / "zx_block3"
    done = subprocess.run([sys.executable, str(ROOT / "research" / "scripts" / "block_dev.py"), "zx", str(corpora), str(out),
                           "--block", "3"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    vocab = spacy.blank("zh").vocab
    train = [[t.text for t in d] for d in DocBin().from_disk(out / "train.spacy").get_docs(vocab)]
    dev = [[t.text for t in d] for d in DocBin().from_disk(out / "dev.spacy").get_docs(vocab)]
    gold = (out / "test_gold.txt").read_text(encoding="utf8").splitlines()
    raw = (out / "test_raw.txt").read_text(encoding="utf8").splitlines()
    n = len(train) + len(dev)
    assert len(dev) == 4 * n // 10 - 3 * n // 10 and len(gold) == len(raw) == len(dev)
    assert ["  ".join(words) for words in dev] == gold and raw[0] == "".join(dev[0])
    words = set((out / "words.txt").read_text(encoding="utf8").split())
    assert words == {w for doc in train for w in doc}
