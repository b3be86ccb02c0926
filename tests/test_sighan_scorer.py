"""The Python port of the SIGHAN scorer against the official perl script."""
import random
import shutil
import subprocess

import pytest

from spacy_gdcws.eval.sighan import parse_perl_summary, score_files, split_line

from .conftest import corpus_path


def perturb(gold_path, out_path, seed=0):
    rnd = random.Random(seed)
    out = []
    for line in gold_path.read_text(encoding="utf8").split("\n"):
        words = line.split()
        new = []
        for w in words:
            r = rnd.random()
            if r < 0.1 and len(w) > 1:
                k = rnd.randrange(1, len(w))
                new += [w[:k], w[k:]]
            elif r < 0.2 and new:
                new[-1] += w
            else:
                new.append(w)
        out.append("  ".join(new))
    out_path.write_text("\n".join(out), encoding="utf8")


@pytest.mark.skipif(shutil.which("perl") is None or shutil.which("diff") is None, reason="needs perl and diff")
@pytest.mark.parametrize("gold,dictionary", [
    ("sighan2005/gold/pku_test_gold.utf8", "sighan2005/gold/pku_training_words.utf8"),
    ("sighan2005/gold/as_testing_gold.utf8", "sighan2005/gold/as_training_words.utf8"),
])
def test_python_scorer_prints_the_perl_digits(tmp_path, gold, dictionary):
    gold, dictionary = corpus_path(gold), corpus_path(dictionary)
    script = corpus_path("sighan2005/scripts/score")
    pred = tmp_path / "pred.txt"
    perturb(gold, pred)
    perl = subprocess.run(["perl", str(script), str(dictionary), str(gold), str(pred)], capture_output=True, check=True)
    official = parse_perl_summary(perl.stdout.decode("utf8", errors="replace"))
    mine = score_files(dictionary, gold, pred)
    assert official["true_words"] == mine.true_words and official["test_words"] == mine.test_words
    for key in ("recall", "precision", "f", "oov_rate", "oov_recall", "iv_recall"):
        assert f"{getattr(mine, key):2.3f}" == f"{official[key]:2.3f}", key
    assert 0.6 < mine.f < 0.9


def test_split_line_like_perl():
    assert split_line("  上海  推\u3000迎 \r\n".encode("utf8")) == ["上海".encode(), "推".encode(), "迎".encode()]
    assert split_line(b"\r\n") == []
    # a leading U+3000 survives the strip and becomes a leading empty field, as in perl
    assert split_line("\u3000好".encode("utf8")) == [b"", "好".encode()]


def test_perfect_and_empty(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("中国  人民\n\n银行\n", encoding="utf8")
    words = tmp_path / "words.txt"
    words.write_text("中国\n", encoding="utf8")
    score = score_files(words, gold, gold)
    assert score.f == 1.0 and score.oov_rate == pytest.approx(2 / 3) and score.oov_recall == 1.0


def test_last_line_without_newline_counts(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text("中国  人民\n银行", encoding="utf8")
    words = tmp_path / "words.txt"
    words.write_text("中国\n", encoding="utf8")
    pred = tmp_path / "pred.txt"
    pred.write_text("中国  人民\n银  行", encoding="utf8")
    score = score_files(words, gold, pred)
    assert score.true_words == 3 and score.test_words == 4
