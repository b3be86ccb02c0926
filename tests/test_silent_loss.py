"""Issue #38, "no silent loss": one test per numbered case of the probe of fda9378
(each failed there). Cases 4 and 7 live with the Ray and user-dictionary tests."""
import os
import stat
import subprocess
import sys

import pytest
import spacy

from .conftest import ROOT


def cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "spacy_gdcws", *map(str, args)], capture_output=True, text=True, **kwargs)


def test_case_02_pipe_as_tuples_keeps_the_context(trained_nlp):
    texts = [("我爱北京天安门。", {"id": 1}), ("今天天气很好", {"id": 2}), ("好", {"id": 3}), ("", {"id": 4})]
    out = list(trained_nlp.pipe(texts, as_tuples=True))
    assert [ctx for _, ctx in out] == [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}]
    assert [doc.text for doc, _ in out] == [t for t, _ in texts]


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_case_08_files_honour_the_umask(trained_nlp, tmp_path, umask):
    old = os.umask(umask)
    try:
        trained_nlp.to_disk(tmp_path / "model")
        from spacy_gdcws.io import atomic_write_text

        atomic_write_text(tmp_path / "out.txt", "x")
    finally:
        os.umask(old)
    want = 0o666 & ~umask
    files = [p for p in (tmp_path / "model").rglob("*") if p.is_file()] + [tmp_path / "out.txt"]
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in files} == {p.name: want for p in files}


@pytest.fixture(scope="module")
def saved(trained_nlp, tmp_path_factory):
    """The small trained pipeline on disk, with a gold file, its raw text and a dictionary."""
    folder = tmp_path_factory.mktemp("saved")
    trained_nlp.to_disk(folder / "model")
    (folder / "gold.txt").write_text("我  爱  北京\n天安门  。\n", encoding="utf8")
    (folder / "dict.txt").write_text("北京\n天安门\n", encoding="utf8")
    (folder / "in.txt").write_text("我爱北京\n天安门。\n", encoding="utf8")
    return folder


@pytest.mark.parametrize("args, code", [
    (["-p", "{gold}", "-o", "{tmp}/m.json"], "E077"),
    (["-p", "{dict}", "-o", "{tmp}/m.json"], "E077"),
    (["-p", "{tmp}/p.txt", "-o", "{gold}"], "E077"),
    (["-p", "{tmp}/same", "-o", "{tmp}/same"], "E078"),
])
def test_case_01_evaluate_never_overwrites_its_inputs(saved, tmp_path, args, code):
    before = {p: p.read_bytes() for p in (saved / "gold.txt", saved / "dict.txt")}
    fill = {"gold": saved / "gold.txt", "dict": saved / "dict.txt", "tmp": tmp_path}
    out = cli("evaluate", saved / "model", saved / "gold.txt", saved / "dict.txt", *[a.format(**fill) for a in args])
    assert out.returncode == 1 and code in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert {p: p.read_bytes() for p in before} == before
    assert not (tmp_path / "m.json").exists() and not (tmp_path / "same").exists()


@pytest.mark.parametrize("extra, code", [
    (["--dev-output", "{out}"], "E078"),
    (["--vocab-output", "{inp}"], "E077"),
    (["--raw-output", "{inp}"], "E077"),
    (["--gold-output", "{out}"], "E078"),
])
def test_case_03_convert_never_overwrites_the_corpus(tmp_path, extra, code):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("我  爱  北京\n天安门  。\n" * 10, encoding="utf8")
    before = corpus.read_bytes()
    fill = {"inp": corpus, "out": tmp_path / "train.spacy"}
    out = cli("convert", corpus, tmp_path / "train.spacy", *[a.format(**fill) for a in extra])
    assert out.returncode == 1 and code in out.stderr, out.stderr
    assert corpus.read_bytes() == before and not (tmp_path / "train.spacy").exists()
    same = cli("convert", corpus, corpus)
    assert same.returncode == 1 and "E077" in same.stderr and corpus.read_bytes() == before


def test_case_05_an_indented_line_segments_as_inside_a_document(trained_nlp):
    from spacy_gdcws.readers import read_conll

    sentences = [s for _, s in zip(range(150), read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"))]
    lines = ["\u3000\u3000" + "".join(s.words) for s in sentences] + [" " + "".join(s.words) + "\u3000" for s in sentences[:50]]
    alone = [[t.text for t in trained_nlp(line) if not t.is_space] for line in lines]
    inside, current = [], []
    for token in trained_nlp("\n".join(lines)):
        if "\n" in token.text:
            inside.append(current)
            current = []
        elif not token.is_space:
            current.append(token.text)
    inside.append(current)
    assert inside == alone
    plain = [[t.text for t in trained_nlp(line.strip()) if not t.is_space] for line in lines]
    assert alone == plain  # the indent changes nothing


def test_case_06_config_and_checksums_are_verified(saved, tmp_path):
    import shutil

    def damaged(name, mutate):
        folder = tmp_path / name
        shutil.copytree(saved / "model", folder)
        mutate(folder)
        with pytest.raises(ValueError) as err:
            spacy.load(folder)
        return str(err.value)

    config = (saved / "model" / "config.cfg").read_text(encoding="utf8")
    assert "\ndepth = 2\n" in config
    edited = damaged("edited", lambda f: (f / "config.cfg").write_text(config.replace("\ndepth = 2\n", "\ndepth = 3\n"), encoding="utf8"))
    width = damaged("width", lambda f: (f / "config.cfg").write_text(config.replace("\nsigma = 2.0\n", "\nsigma = 3.0\n"), encoding="utf8"))
    assert "E081" in width and "E081" in edited
    assert "E082" in damaged("missing", lambda f: (f / "gdcws_segmenter" / "checksums.json").unlink())
    assert "E082" in damaged("empty", lambda f: (f / "gdcws_segmenter" / "checksums.json").write_text(""))
    assert "E064" in damaged("list", lambda f: (f / "gdcws_segmenter" / "checksums.json").write_text("[]"))
    assert [t.text for t in spacy.load(saved / "model")("我爱北京")]  # the intact folder loads


def test_case_09_score_takes_a_gold_file_with_a_bom(tmp_path):
    (tmp_path / "gold.txt").write_bytes("\ufeff我  爱  北京\n天安门  。\n".encode("utf8"))
    (tmp_path / "plain.txt").write_text("我  爱  北京\n天安门  。\n", encoding="utf8")
    (tmp_path / "pred.txt").write_text("我爱  北京\n天安门  。\n", encoding="utf8")
    (tmp_path / "dict.txt").write_text("北京\n", encoding="utf8")
    with_bom = cli("score", tmp_path / "dict.txt", tmp_path / "gold.txt", tmp_path / "pred.txt", "--json")
    plain = cli("score", tmp_path / "dict.txt", tmp_path / "plain.txt", tmp_path / "pred.txt", "--json")
    assert with_bom.returncode == 0, with_bom.stderr
    assert with_bom.stdout == plain.stdout


@pytest.mark.parametrize("text, unit", [("café Zürich", "café"), ("我在Zürich工作", "Zürich"), ("ＡＢＣ公司", "ＡＢＣ"), ("naïve的", "naïve")])
def test_case_10_latin_words_of_any_accent_stay_whole(trained_nlp, text, unit):
    seg = trained_nlp.get_pipe("gdcws_segmenter")
    seg.atomic_units = True  # the shared test pipeline is trained and kept without them
    try:
        assert unit in [t.text for t in trained_nlp(text)]
    finally:
        seg.atomic_units = False


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


@pytest.mark.parametrize("text, unit, word", [
    ("见https://example.com/a?b=1好", "https://example.com/a?b=1", "example"),
    ("好👨\u200d👩\u200d👧家", "👨\u200d👩\u200d👧", "👩"),
])
def test_case_12_a_force_word_never_cuts_an_atomic_unit(trained_nlp, text, unit, word):
    seg = trained_nlp.get_pipe("gdcws_segmenter")
    saved = dict(seg.user_dict.words)
    seg.add_words([word], "force")
    seg.atomic_units = True
    try:
        tokens = [t.text for t in trained_nlp(text)]
    finally:
        seg.remove_words([word])
        seg.atomic_units = False
    assert seg.user_dict.words == saved
    assert any(unit in t for t in tokens) and "".join(tokens) == text, tokens


def test_case_13_raw_tracebacks_are_coded_errors(saved, tmp_path):
    import json as _json

    folder = tmp_path / "a folder"
    folder.mkdir()
    out = cli("segment", saved / "model", saved / "in.txt", folder)
    assert out.returncode == 1 and "E079" in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    out = cli("score", saved / "dict.txt", folder, saved / "gold.txt")
    assert out.returncode == 2 and "Traceback" not in out.stderr and "directory" in out.stderr
    out = cli("segment", saved / "model", saved / "in.txt", "-b", str(2**64))
    assert out.returncode == 1 and "E047" in out.stderr, out.stderr
    try:
        import cupy  # noqa: F401
    except ImportError:
        out = cli("segment", saved / "model", saved / "in.txt", "-g", "0")
        assert out.returncode == 1 and "E080" in out.stderr and "Traceback" not in out.stderr, out.stderr
    from spacy_gdcws.io import verify_checksums

    (folder / "checksums.json").write_text("[]")
    with pytest.raises(ValueError, match="E064"):
        verify_checksums(folder)
    # a pipeline saved before checksums (format 1) with a truncated words.txt
    import shutil

    old = tmp_path / "old"
    shutil.copytree(saved / "model", old)
    seg = old / "gdcws_segmenter"
    (seg / "checksums.json").unlink()
    cfg = _json.loads((seg / "cfg").read_text())
    for key in ("format", "model_fingerprint"):
        cfg.pop(key)
    (seg / "cfg").write_text(_json.dumps(cfg))
    (seg / "words.txt").write_bytes("北京\n天".encode("utf8")[:-1])
    with pytest.raises(ValueError, match="E016"):
        spacy.load(old)
    with pytest.raises(ValueError, match="E066"):
        spacy.load(saved / "model").get_pipe("gdcws_segmenter").add_words(["北\udc80"])


def test_case_14_sigterm_leaves_no_file_and_dash_is_stdout(saved, tmp_path):
    import signal
    import time

    big = tmp_path / "big.txt"
    big.write_text("我爱北京天安门。\n" * 200000, encoding="utf8")
    proc = subprocess.Popen([sys.executable, "-m", "spacy_gdcws", "segment", str(saved / "model"), str(big),
                             str(tmp_path / "out.txt")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not any(p.name.startswith(".out.txt") for p in tmp_path.iterdir()):
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode != 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt"]
    out = cli("segment", saved / "model", saved / "in.txt", "-", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert ["".join(line.split()) for line in out.stdout.splitlines()] == ["我爱北京", "天安门。"]
    assert not (tmp_path / "-").exists()


def test_case_16_evaluate_says_which_scorer_ran(saved, tmp_path):
    import json as _json
    import shutil as _shutil

    out = cli("evaluate", saved / "model", saved / "gold.txt", saved / "dict.txt", "-o", tmp_path / "m.json",
              "-p", tmp_path / "p.txt")
    assert out.returncode == 0, out.stderr
    result = _json.loads((tmp_path / "m.json").read_text())
    if _shutil.which("perl") and _shutil.which("diff"):  # the official script ships with the package
        assert result["official"] is not None and "official perl scorer" in " ".join((out.stdout + out.stderr).split())
        assert result["scorer"]["why_not_official"] is None
    out = cli("evaluate", saved / "model", saved / "gold.txt", saved / "dict.txt", "-o", tmp_path / "n.json",
              "-p", tmp_path / "q.txt", "--perl-script", tmp_path / "nowhere")
    result = _json.loads((tmp_path / "n.json").read_text())
    assert result["official"] is None and "does not exist" in result["scorer"]["why_not_official"]
    assert "does not exist" in " ".join((out.stdout + out.stderr).split())  # wasabi wraps long lines
