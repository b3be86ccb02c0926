"""The command line refuses bad arguments and never overwrites its inputs, in one coded line; a signal leaves no half-written file.

Cases of the probes of issues #26 and #38 keep their numbers (`test_case_NN_...`)."""
import subprocess
import sys

import pytest
import spacy

from tests.util import LEGACY_FIXTURE, run_cli


@pytest.mark.parametrize("args,code", [
    (["-b", "0"], "E047"),  # failed on c5cdd2a: wrote nothing, exit 0
    (["-b", "-3"], "E047"),
    (["-n", "0"], "E047"),
    (["--user-dict", "MISSING"], "E016"),
    (["--user-dict", "BAD", "--strict-dict"], "E015"),
    (["--user-dict-mode", "always", "--user-dict", "GOOD"], "E045"),
])
def test_bad_segment_arguments_are_one_line_errors(tmp_path, args, code):
    (tmp_path / "in.txt").write_text("我爱北京。\n", encoding="utf8")
    (tmp_path / "BAD").write_text("上海 prefered\n", encoding="utf8")
    (tmp_path / "GOOD").write_text("北京\n", encoding="utf8")
    args = [str(tmp_path / a) if a in ("MISSING", "BAD", "GOOD") else a for a in args]
    out = tmp_path / "out.txt"
    cmd = [sys.executable, "-m", "spacy_gdcws", "segment", str(LEGACY_FIXTURE), str(tmp_path / "in.txt"), str(out), *args]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 1 and code in run.stderr and "Traceback" not in run.stderr, run.stderr
    assert not out.exists()


@pytest.mark.parametrize("args, code", [
    (["-p", "{gold}", "-o", "{tmp}/m.json"], "E077"),
    (["-p", "{dict}", "-o", "{tmp}/m.json"], "E077"),
    (["-p", "{tmp}/p.txt", "-o", "{gold}"], "E077"),
    (["-p", "{tmp}/same", "-o", "{tmp}/same"], "E078"),
])
def test_case_01_evaluate_never_overwrites_its_inputs(saved, tmp_path, args, code):
    before = {p: p.read_bytes() for p in (saved / "gold.txt", saved / "dict.txt")}
    fill = {"gold": saved / "gold.txt", "dict": saved / "dict.txt", "tmp": tmp_path}
    out = run_cli("evaluate", saved / "model", saved / "gold.txt", saved / "dict.txt", *[a.format(**fill) for a in args])
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
    out = run_cli("convert", corpus, tmp_path / "train.spacy", *[a.format(**fill) for a in extra])
    assert out.returncode == 1 and code in out.stderr, out.stderr
    assert corpus.read_bytes() == before and not (tmp_path / "train.spacy").exists()
    same = run_cli("convert", corpus, corpus)
    assert same.returncode == 1 and "E077" in same.stderr and corpus.read_bytes() == before


@pytest.mark.slow
def test_case_13_raw_tracebacks_are_coded_errors(saved, tmp_path):
    import json as _json

    folder = tmp_path / "a folder"
    folder.mkdir()
    out = run_cli("segment", saved / "model", saved / "in.txt", folder)
    assert out.returncode == 1 and "E079" in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    out = run_cli("score", saved / "dict.txt", folder, saved / "gold.txt")
    assert out.returncode == 2 and "Traceback" not in out.stderr and "directory" in out.stderr
    out = run_cli("segment", saved / "model", saved / "in.txt", "-b", str(2**64))
    assert out.returncode == 1 and "E047" in out.stderr, out.stderr
    try:
        import cupy  # noqa: F401
    except ImportError:
        out = run_cli("segment", saved / "model", saved / "in.txt", "-g", "0")
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


@pytest.mark.slow
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
    out = run_cli("segment", saved / "model", saved / "in.txt", "-", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert ["".join(line.split()) for line in out.stdout.splitlines()] == ["我爱北京", "天安门。"]
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("model", ["zh_gdcws", "no_such_pipeline"])
def test_a_pipeline_that_is_not_installed_is_one_line_naming_what_makes_it(tmp_path, model):
    """Issue #48: `segment zh_gdcws ...` before the main job failed with spaCy's E050 and nothing
    said that the project's main job makes the package. Where the user has built and installed
    `zh_gdcws` (README command 1 before command 2, issue #62), the same command segments."""
    import spacy.util

    (tmp_path / "in.txt").write_text("我爱北京\n", encoding="utf8")
    run = run_cli("segment", model, tmp_path / "in.txt", tmp_path / "out.txt")
    if spacy.util.is_package(model):
        assert run.returncode == 0 and "".join((tmp_path / "out.txt").read_text(encoding="utf8").split()) == "我爱北京"
        return
    assert run.returncode == 1 and len(run.stderr.strip().splitlines()) == 1 and "[E102]" in run.stderr
    assert ("spacy project run all" in run.stderr) == (model == "zh_gdcws")


def test_bad_thread_count_is_a_one_line_error(tmp_path):
    """Issue #51, L6: `--threads 0` reached torch.set_num_threads as a RuntimeError traceback."""
    (tmp_path / "in.txt").write_text("我爱北京。\n", encoding="utf8")
    out = run_cli("segment", LEGACY_FIXTURE, tmp_path / "in.txt", tmp_path / "out.txt", "--threads", "0")
    assert out.returncode == 1 and "E047" in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not (tmp_path / "out.txt").exists()


def test_a_line_longer_than_spacys_max_length_is_segmented(tmp_path):
    """Issue #51, L9: a line over nlp.max_length (1,000,000 characters) was spaCy's E088 on the CLI."""
    line = " " * 1_000_001 + "好"
    (tmp_path / "in.txt").write_text(line + "\n", encoding="utf8")
    out = run_cli("segment", LEGACY_FIXTURE, tmp_path / "in.txt", tmp_path / "out.txt", "--quiet")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "out.txt").read_text(encoding="utf8").split() == ["好"]


def test_convert_under_a_file_size_limit_is_a_coded_error_and_leaves_no_file(tmp_path):
    """Issue #51, L4: convert wrote its DocBin in place, so a failed write left a truncated file."""
    import os
    import resource
    import signal

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(f"我  爱  北京{i}  天安门  。\n" for i in range(3000)), encoding="utf8")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    out = run_cli("convert", corpus, tmp_path / "train.spacy", preexec_fn=limit, env=env)
    assert out.returncode == 1 and "E103" in out.stderr and "train.spacy" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]


def test_a_full_stdout_is_one_coded_line(tmp_path):
    """#61 (12): `segment ... - > /dev/full` ended in a raw OSError traceback (a file output gets E103)."""
    import os

    from tests.util import LEGACY_FIXTURE

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    source = tmp_path / "in.txt"
    source.write_text("我爱北京天安门。\n" * 50, encoding="utf8")
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", str(LEGACY_FIXTURE), str(source), "-"],
                             stdout=full, stderr=subprocess.PIPE, text=True)
    assert run.returncode == 1
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "E103" in lines[0] and "<stdout>" in lines[0]


def test_69_a_bad_dictionary_line_is_a_one_line_warning_and_the_rest_loads(tmp_path):
    """#69: a user dictionary's bad line no longer refuses the file (jieba loads the rest): one
    coded line on stderr names file and line, another counts, the command goes on."""
    (tmp_path / "in.txt").write_text("我爱北京。\n", encoding="utf8")
    (tmp_path / "dict.txt").write_text("上海 prefered\n天安门\n", encoding="utf8")
    out = run_cli("segment", LEGACY_FIXTURE, tmp_path / "in.txt", tmp_path / "out.txt", "--user-dict",
                  tmp_path / "dict.txt", "--quiet")
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 0 and (tmp_path / "out.txt").exists(), out.stderr
    assert len(lines) == 2 and "W002" in lines[0] and "dict.txt:1" in lines[0] and "W003" in lines[1]


def test_69_a_damaged_vocab_file_is_named(tmp_path):
    """#69 (loud 4): a damaged vocab/strings.json gave srsly's raw ValueError, naming no file."""
    import shutil

    shutil.copytree(LEGACY_FIXTURE, tmp_path / "p")
    (tmp_path / "p" / "vocab" / "strings.json").write_text("{garbled", encoding="utf8")
    (tmp_path / "in.txt").write_text("我爱北京。\n", encoding="utf8")
    out = run_cli("segment", tmp_path / "p", tmp_path / "in.txt", tmp_path / "out.txt")
    assert out.returncode == 1 and "E136" in out.stderr and "strings.json" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("target", ["new/sub/m.json", "/dev/full", "system.txt"])
def test_69_evaluate_ud_writes_where_asked_or_says_why(tagged_model, tmp_path, target):
    """#69 (loud 2, 3): `-o new/sub/m.json` gave a FileNotFoundError traceback, `-o /dev/full` an
    OSError traceback; a system file not named .conllu was taken for a model (spaCy's E053)."""
    from spacy_gdcws.eval.conllu import write_conllu

    gold = tmp_path / "gold.conllu"
    gold.write_text("# text = 我爱北京。\n1\t我\t_\tPRON\tPRP\t_\t2\tnsubj\t_\tSpaceAfter=No\n"
                    "2\t爱\t_\tVERB\tVV\t_\t0\troot\t_\tSpaceAfter=No\n3\t北京\t_\tPROPN\tNNP\t_\t2\tobj\t_\t"
                    "SpaceAfter=No\n4\t。\t_\tPUNCT\t.\t_\t2\tpunct\t_\tSpaceAfter=No\n\n", encoding="utf8")
    if target == "system.txt":
        system = tmp_path / "system.txt"
        with open(system, "w", encoding="utf8") as f:
            write_conllu([(spacy.load(tagged_model)("我爱北京。"), True)], f)
        out = run_cli("evaluate-ud", system, gold, "-o", tmp_path / "m.json")
        assert out.returncode == 0 and (tmp_path / "m.json").exists(), out.stderr
        return
    path = target if target.startswith("/") else tmp_path / target
    out = run_cli("evaluate-ud", tagged_model, gold, "-o", path)
    if target == "/dev/full":
        assert out.returncode == 1 and "E103" in out.stderr and "Traceback" not in out.stderr
    else:
        assert out.returncode == 0 and path.exists(), out.stderr
