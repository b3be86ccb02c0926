"""`eval.sighan`: the Python scorer prints the official perl scorer's digits, refuses misaligned files and reads in linear space."""
import random
import shutil
import subprocess
import sys

import pytest

from spacy_gdcws.eval.sighan import parse_perl_summary, score_files, split_line
from tests.util import corpus_path, run_cli


def words(nlp, text):
    return [t.text for t in nlp(text)]


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    folder = tmp_path_factory.mktemp("score")
    gold = ["北京  大学  在  北京", "我  爱  天安门", "今天  天气  很好"]
    (folder / "dict.txt").write_text("北京\n大学\n", encoding="utf8")
    (folder / "gold.txt").write_text("\n".join(gold) + "\n", encoding="utf8")
    return folder, gold


def _score(folder, lines, *extra):
    (folder / "test.txt").write_text("".join(line + "\n" for line in lines), encoding="utf8")
    cmd = [sys.executable, "-m", "spacy_gdcws", "score", str(folder / "dict.txt"), str(folder / "gold.txt"),
           str(folder / "test.txt"), *extra]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.mark.parametrize("case,lines,code", [
    ("truncated (failed on c5cdd2a: F 1.000, exit 0)", ["北京  大学  在  北京", "我  爱  天安门"], "E020"),
    ("empty", [], "E020"),
    ("extended", ["北京  大学  在  北京", "我  爱  天安门", "今天  天气  很好", "多余"], "E020"),
    ("reordered", ["我  爱  天安门", "北京  大学  在  北京", "今天  天气  很好"], "E048"),
    ("a character changed", ["北京  大学  在  北京", "我  爱  天安们", "今天  天气  很好"], "E048"),
    ("a character lost", ["北京  大学  在  北", "我  爱  天安门", "今天  天气  很好"], "E048"),
])
def test_misaligned_predictions_are_coded_errors(scored, case, lines, code):
    folder, _ = scored
    run = _score(folder, lines)
    assert run.returncode == 1 and code in run.stderr and "Traceback" not in run.stderr, (case, run.stderr)


def test_aligned_predictions_score_with_more_digits_on_request(scored):
    folder, gold = scored
    run = _score(folder, ["北京大学  在  北京", "我  爱  天安门", "今天  天气  很好"], "--digits", "4")
    assert run.returncode == 0, run.stderr
    # 8 of 10 gold words found, 8 of 9 predicted words right
    assert "=== F MEASURE:\t0.8421" in run.stdout and "PRECISION:\t0.8889" in run.stdout
    assert _score(folder, gold, "--digits", "0").returncode == 1


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


@pytest.mark.slow
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


def test_case_09_score_takes_a_gold_file_with_a_bom(tmp_path):
    (tmp_path / "gold.txt").write_bytes("\ufeff我  爱  北京\n天安门  。\n".encode("utf8"))
    (tmp_path / "plain.txt").write_text("我  爱  北京\n天安门  。\n", encoding="utf8")
    (tmp_path / "pred.txt").write_text("我爱  北京\n天安门  。\n", encoding="utf8")
    (tmp_path / "dict.txt").write_text("北京\n", encoding="utf8")
    with_bom = run_cli("score", tmp_path / "dict.txt", tmp_path / "gold.txt", tmp_path / "pred.txt", "--json")
    plain = run_cli("score", tmp_path / "dict.txt", tmp_path / "plain.txt", tmp_path / "pred.txt", "--json")
    assert with_bom.returncode == 0, with_bom.stderr
    assert with_bom.stdout == plain.stdout


def test_case_11_the_python_scorer_is_linear_in_space():
    import random
    import time
    import tracemalloc

    from spacy_gdcws.eval import sighan

    rng = random.Random(0)
    for _ in range(300):  # Hirschberg's split finds an LCS as long as the full table's
        a = [bytes([rng.randint(97, 99)]) for _ in range(rng.randint(1, 80))]
        b = [bytes([rng.randint(97, 99)]) for _ in range(rng.randint(1, 80))]
        found = set()
        sighan._lcs(a, b, 0, found, limit=4)
        it = iter(b)
        assert all(a[i] in it for i in sorted(found)) and len(found) == len(sighan._table_lcs(a, b))
    # one line of 24,000 words against the same characters with every third pair merged
    words = ["的一是了我不人在他有这"[rng.randint(0, 10)].encode("utf8") * rng.randint(1, 3) for _ in range(24000)]
    merged, i = [], 0
    while i < len(words):
        take = 2 if i % 3 == 0 and i + 1 < len(words) else 1
        merged.append(b"".join(words[i:i + take]))
        i += take
    gold, test = b"  ".join(words) + b"\n", b"  ".join(merged) + b"\n"
    tracemalloc.start()
    start = time.perf_counter()
    sighan.score_lines(set(), [gold], [test])
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100e6 and seconds < 30, (peak, seconds)  # fda9378: 3.3 GB and 29 s
