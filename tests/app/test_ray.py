"""`app.corpus` (segment-corpus on Ray Data): streamed, ordered, resumable, one failed file fails alone, actors that die lose no line."""
import gzip
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from spacy_gdcws.readers import read_conll
from tests.util import LEGACY_FIXTURE, ROOT

ray = pytest.importorskip("ray")

# each test starts a local Ray
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def crash_marker(tmp_path_factory):
    """One local Ray for the module (`segment_corpus` uses a running Ray and leaves it
    running); its workers see CRASH_MARKER_ENV: an actor that finds that file dies."""
    from spacy_gdcws.app.corpus.workers import CRASH_MARKER_ENV

    marker = tmp_path_factory.mktemp("crash") / "crash-once"
    previous = os.environ.get(CRASH_MARKER_ENV)
    os.environ[CRASH_MARKER_ENV] = str(marker)
    from spacy_gdcws.app.corpus.session import LOOPBACK

    # on loopback, as a Ray that segment-corpus starts itself
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
             _node_ip_address=LOOPBACK)
    yield marker
    ray.shutdown()
    if previous is None:
        os.environ.pop(CRASH_MARKER_ENV)
    else:
        os.environ[CRASH_MARKER_ENV] = previous


def _segment_file(model: Path, plain: Path, out: Path, *options: str) -> bytes:
    out.parent.mkdir(parents=True, exist_ok=True)
    run = subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", str(model), str(plain), str(out), *options],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return out.read_bytes()


def _write(path: Path, lines) -> bytes:
    data = ("\n".join(lines) + "\n").encode("utf8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return data


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """20,000 lines in four files (plain, gzip, in a subfolder, with empty lines), and the
    single-process `segment` output of each."""
    sents = ["".join(s.words) for s in read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu")]
    pieces = [s[i : i + 24] for s in sents for i in range(0, len(s), 24)]
    lines = [pieces[i % len(pieces)] if i % 97 else "" for i in range(20_000)]
    root = tmp_path_factory.mktemp("corpus")
    parts = {"a.txt": lines[:6000], "b.txt": lines[6000:11000], "sub/c.txt": lines[11000:15000], "d.txt.gz": lines[15000:]}
    expected = {}
    for name, part in parts.items():
        data = _write(root / "in" / name, part)
        plain = root / "plain" / name.replace(".gz", "")
        plain.parent.mkdir(parents=True, exist_ok=True)
        plain.write_bytes(data)
        expected[name] = _segment_file(LEGACY_FIXTURE, plain, root / "single" / name.replace(".gz", ""))
    return root, expected


def _read(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def _run(source: Path, out: Path, model: Path = LEGACY_FIXTURE, **kwargs):
    from spacy_gdcws.app.corpus import segment_corpus

    return segment_corpus(source, out, str(model), actors=2, batch_size=1500, progress=False, **kwargs)


def test_two_actors_give_the_single_process_output_byte_for_byte(corpus):
    root, expected = corpus
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = _run(root / "in", root / "out")
    assert summary.files == 4 and summary.lines == 20_000 and not summary.skipped and not summary.failed
    for name, data in expected.items():
        assert _read(root / "out" / name) == data, name
    ours = [w for w in caught if "spacy_gdcws" in w.filename and "eprecat" in str(w.category.__name__)]
    assert not ours, [str(w.message) for w in ours]
    assert not [p for p in (root / "out").rglob(".segment-corpus-parts*")]  # staging removed


def test_the_actors_segment_in_the_granularity_asked_for(corpus, tmp_path):
    """#47: `--granularity coarse` reaches the actors: the same bytes as `segment --granularity coarse`."""
    root, expected = corpus
    coarse = _segment_file(LEGACY_FIXTURE, root / "plain" / "a.txt", tmp_path / "single.txt", "--granularity", "coarse")
    assert coarse != expected["a.txt"]
    summary = _run(root / "in" / "a.txt", tmp_path / "out", granularity="coarse")
    assert summary.files == 1 and (tmp_path / "out" / "a.txt").read_bytes() == coarse


@pytest.mark.parametrize("fmt", ["pos", "conllu", "iob2"])
def test_the_actors_write_the_format_asked_for(tagged_model, tmp_path, fmt):
    """#62, #78: `segment-corpus --format pos|conllu|iob2` gives `segment --format`'s bytes (conllu and
    iob2: sentence ids numbering the file's lines across chunks); a pipeline that sets no tags is E123
    for pos, one that sets no entities E144 for iob2, before Ray."""
    lines = ["我爱北京天安门。今天天气很好。", "", "他说：“好。”然后走了。"] * 40
    _write(tmp_path / "in" / "a.txt", lines)
    single = _segment_file(tagged_model, tmp_path / "in" / "a.txt", tmp_path / "single.txt", "--format", fmt)
    from spacy_gdcws.app.corpus import segment_corpus

    summary = segment_corpus(tmp_path / "in", tmp_path / "out", str(tagged_model), actors=2, batch_size=25,
                             progress=False, fmt=fmt)
    assert summary.files == 1 and (tmp_path / "out" / "a.txt").read_bytes() == single
    if fmt in ("pos", "iob2"):
        with pytest.raises(ValueError, match="E123" if fmt == "pos" else "E144"):
            segment_corpus(tmp_path / "in", tmp_path / "out2", str(LEGACY_FIXTURE), progress=False, fmt=fmt)
    else:  # #69: CoNLL-U of a pipeline that sets no tags or heads has `_` there, as `segment` writes it
        words_only = _segment_file(LEGACY_FIXTURE, tmp_path / "in" / "a.txt", tmp_path / "words.txt", "--format", fmt)
        segment_corpus(tmp_path / "in", tmp_path / "out2", str(LEGACY_FIXTURE), progress=False, fmt=fmt)
        assert (tmp_path / "out2" / "a.txt").read_bytes() == words_only


def test_an_actor_that_dies_loses_and_repeats_no_line(corpus, crash_marker):
    root, expected = corpus
    marker = crash_marker
    marker.write_text("x")
    summary = _run(root / "in", root / "out_crash")
    assert not marker.exists()  # an actor did die
    assert summary.files == 4 and summary.lines == 20_000
    for name, data in expected.items():
        assert _read(root / "out_crash" / name) == data, name


def test_resume_skips_only_what_the_manifest_proves_done(corpus, tmp_path):
    root, expected = corpus
    source = tmp_path / "in"
    for name in ("a.txt", "b.txt", "sub/c.txt"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes((root / "in" / name).read_bytes())
    out = tmp_path / "out"
    _run(source, out)
    done = out / "a.txt"
    before = done.stat().st_mtime_ns
    summary = _run(source, out)  # nothing changed: nothing to do
    assert summary.files == 0 and sorted(summary.skipped) == ["a.txt", "b.txt", "sub/c.txt"]
    (out / "sub" / "c.txt").unlink()  # an output gone: done again
    # a changed input (other lines, another size and mtime): done again, from the new text
    new_lines = (root / "plain" / "a.txt").read_text(encoding="utf8").splitlines()[:300]
    new = _write(source / "b.txt", new_lines)
    (tmp_path / "plain_b.txt").write_bytes(new)
    summary = _run(source, out)
    assert sorted(summary.skipped) == ["a.txt"] and summary.files == 2
    assert done.stat().st_mtime_ns == before
    assert _read(out / "b.txt") == _segment_file(LEGACY_FIXTURE, tmp_path / "plain_b.txt", tmp_path / "single_b.txt")
    assert _read(out / "sub" / "c.txt") == expected["sub/c.txt"]
    assert not [p for p in out.rglob(".*") if p.name != ".segment-corpus-manifest.json"]  # no temporary file left


def test_a_different_model_segments_again(corpus, tmp_path):
    import spacy

    root, expected = corpus
    source = tmp_path / "in"
    _write(source / "a.txt", (root / "plain" / "a.txt").read_text(encoding="utf8").splitlines()[:2000])
    out = tmp_path / "out"
    _run(source, out)
    nlp = spacy.load(LEGACY_FIXTURE)
    nlp.get_pipe("gdcws_segmenter").threshold = 0.2
    other = tmp_path / "other_model"
    nlp.to_disk(other)
    summary = _run(source, out, model=other)
    assert summary.files == 1 and not summary.skipped
    assert _read(out / "a.txt") == _segment_file(other, source / "a.txt", tmp_path / "single.txt")


def test_a_bad_file_fails_alone_with_its_line(corpus, tmp_path):
    root, expected = corpus
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.txt").write_bytes((root / "in" / "a.txt").read_bytes())
    (source / "bad.txt").write_bytes("好的\n是的\n".encode("utf8"))
    _run(source, tmp_path / "out")
    assert (tmp_path / "out" / "bad.txt").exists()
    # the file changes and now holds a line that is not UTF-8: it fails, and its old output goes
    (source / "bad.txt").write_bytes("好的\n是的\n".encode("utf8") + b"\xff\xfe bad\n" + "再见\n".encode("utf8"))
    summary = _run(source, tmp_path / "out")
    assert summary.files == 0 and summary.skipped == ["a.txt"] and _read(tmp_path / "out" / "a.txt") == expected["a.txt"]
    assert [name for name, _ in summary.failed] == ["bad.txt"]
    assert "E015" in summary.failed[0][1] and ":3:" in summary.failed[0][1]
    assert not (tmp_path / "out" / "bad.txt").exists()
    run = subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment-corpus", str(LEGACY_FIXTURE), str(source),
                          str(tmp_path / "out_cli"), "--actors", "1", "--num-cpus", "2"], capture_output=True, text=True)
    assert run.returncode == 1 and "bad.txt" in run.stdout + run.stderr
    assert (tmp_path / "out_cli" / "a.txt").exists()


def test_locations_and_model_are_checked_before_ray_runs(corpus, tmp_path):
    from spacy_gdcws.app.corpus import segment_corpus

    root, _ = corpus
    with pytest.raises(ValueError, match="E047"):
        segment_corpus(root / "in", tmp_path / "o", str(LEGACY_FIXTURE), actors=0)
    with pytest.raises(ValueError, match="E016"):
        segment_corpus(tmp_path / "nothing", tmp_path / "o", str(LEGACY_FIXTURE))
    with pytest.raises(ValueError, match="E088"):
        segment_corpus(root / "in", root / "in" / "out", str(LEGACY_FIXTURE))
    with pytest.raises(ValueError, match="E088"):
        segment_corpus(root / "in", root / "in", str(LEGACY_FIXTURE))
    single = root / "in" / "a.txt"
    with pytest.raises(ValueError, match="E077"):
        segment_corpus(single, root / "in", str(LEGACY_FIXTURE))
    with pytest.raises(ValueError, match="E089"):
        segment_corpus(root / "in", tmp_path / "o", str(tmp_path / "no_such_model"))
    assert not (tmp_path / "o").exists()


def test_glob_patterns_read_as_a_shell_reads_them(tmp_path):
    from spacy_gdcws.app.corpus.files import find_inputs

    for name in ("a.txt", "b.txt.gz", "sub/c.txt", "sub/deep/d.txt", ".hidden.txt"):
        (tmp_path / "in" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "in" / name).write_text("好\n", encoding="utf8")
    found = lambda pattern: [f.relative for f in find_inputs(str(tmp_path / "in" / pattern), tmp_path / "out")]  # noqa: E731
    assert found("*.txt") == ["a.txt"]
    assert found("*/*.txt") == ["sub/c.txt"]
    assert found("**/*.txt") == ["sub/c.txt", "sub/deep/d.txt"]
    assert [f.relative for f in find_inputs(tmp_path / "in", tmp_path / "out")] == [
        "a.txt", "b.txt.gz", "sub/c.txt", "sub/deep/d.txt"]


def test_a_compressed_input_gives_an_output_compressed_the_same_way(corpus, tmp_path):
    """Issue #51, S3: .bz2, .zst and .lz4 inputs were decompressed on read (Ray Data, by
    extension) but written as plain text under the compressed name."""
    import bz2

    import pyarrow as pa

    root, expected = corpus
    lines = (root / "plain" / "b.txt").read_text(encoding="utf8").split("\n")[:-1]
    source = tmp_path / "in"
    source.mkdir()
    (source / "b.txt.bz2").write_bytes(bz2.compress(("\n".join(lines) + "\n").encode("utf8")))
    with pa.output_stream(str(source / "b.txt.zst"), compression="zstd") as f:
        f.write(("\n".join(lines) + "\n").encode("utf8"))
    summary = _run(source, tmp_path / "out")
    assert summary.files == 2 and not summary.failed
    assert bz2.decompress((tmp_path / "out" / "b.txt.bz2").read_bytes()) == expected["b.txt"]
    with pa.input_stream(str(tmp_path / "out" / "b.txt.zst"), compression="zstd") as f:
        assert f.read() == expected["b.txt"]


def test_a_file_name_with_a_line_break_or_a_file_gone_fails_alone(tmp_path, monkeypatch):
    """Issue #51, L1: a file deleted during the run, or a file name with a line break, ended the
    whole run in a RayTaskError with no output at all."""
    from spacy_gdcws.app.corpus import run as corpus_run

    source = tmp_path / "in"
    _write(source / "a.txt", ["我爱北京", "天安门"])
    _write(source / "b\nc.txt", ["今天天气"])
    _write(source / "d.txt", ["好"])
    listed = corpus_run.find_inputs

    def listed_then_deleted(*args, **kwargs):
        files = listed(*args, **kwargs)
        (source / "a.txt").unlink()  # gone between listing and reading
        return files

    monkeypatch.setattr(corpus_run, "find_inputs", listed_then_deleted)
    summary = _run(source, tmp_path / "out")
    assert summary.files == 1 and (tmp_path / "out" / "d.txt").read_text(encoding="utf8") == "好\n"
    failed = dict(summary.failed)
    assert "[E105]" in failed["b\nc.txt"] and "[E016]" in failed["a.txt"]


@pytest.mark.parametrize("change", ["edited", "deleted"])
def test_an_input_that_changes_or_goes_while_read_is_not_committed(corpus, tmp_path, monkeypatch, change):
    """#61 (12) / #63: an input deleted during the run crashed the commit step after every output was
    written, and no manifest was written; one edited while read would have been committed with
    another file's identity. Now it fails alone (E130), the others are committed and recorded."""
    from spacy_gdcws.app.corpus.files import CorpusFile

    root, expected = corpus
    original = CorpusFile.identity_now
    calls = {}

    def identity_now(self, fs):
        calls[self.relative] = calls.get(self.relative, 0) + 1
        seen = original(self, fs)
        if self.relative == "b.txt" and calls[self.relative] > 1:  # after the run read it
            return None if change == "deleted" else {**seen, "sha256": "0" * 64}
        return seen

    monkeypatch.setattr(CorpusFile, "identity_now", identity_now)
    summary = _run(root / "in", tmp_path / "out")
    assert [relative for relative, _ in summary.failed] == ["b.txt"] and "E130" in summary.failed[0][1]
    assert not (tmp_path / "out" / "b.txt").exists() and summary.files == 3
    for name in ("a.txt", "sub/c.txt", "d.txt.gz"):
        assert _read(tmp_path / "out" / name) == expected[name], name
    import json

    manifest = json.loads((tmp_path / "out" / ".segment-corpus-manifest.json").read_text(encoding="utf8"))
    assert sorted(manifest["files"]) == ["a.txt", "d.txt.gz", "sub/c.txt"]


def test_80_a_normal_run_prints_no_error_and_no_warning(tmp_path):
    """#80: a normal `segment-corpus` run (its own Ray, progress on) printed an ERROR line from Ray's
    core (an actor with arguments in the object store may not restart: Ray Data's actor pool always
    makes such actors) and Ray's token-auth WARNING; neither is the user's concern
    (`app.corpus.session`), and nothing else Ray prints is dropped (a warning about this machine, such
    as a small /dev/shm, still comes through)."""
    source = tmp_path / "in"
    _write(source / "a.txt", ["我爱北京天安门。", "今天天气很好。"])
    run = subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment-corpus", str(LEGACY_FIXTURE), str(source),
                          str(tmp_path / "out"), "--actors", "1", "--num-cpus", "2"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out" / "a.txt").read_text(encoding="utf8").count("\n") == 2
    lines = run.stderr.splitlines()
    # no ERROR line, from Ray's C++ core (`[date time E pid tid] file.cc:N: ...`) or its Python loggers
    core_error = re.compile(r"\[[^\]]* E \d+ \d+\]")
    assert not [line for line in lines if core_error.match(line) or "ERROR" in line], run.stderr
    assert "constructor arguments" not in run.stderr and "Token authentication" not in run.stderr
    # Ray's own INFO lines still come through (progress is on)
    assert any("INFO" in line for line in lines)
