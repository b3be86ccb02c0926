"""Corpus-scale segmentation on a local Ray cluster (skipped without the `[ray]` extra)."""
import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from spacy_gdcws.readers import read_conll

ray = pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "legacy_gd_v2"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """20,000 lines in four files (plain, gzip, in a subfolder, with empty lines), and the
    single-process `segment` output of each."""
    sents = ["".join(s.words) for s in read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu")]
    pieces = [s[i : i + 24] for s in sents for i in range(0, len(s), 24)]
    lines = [pieces[i % len(pieces)] if i % 97 else "" for i in range(20_000)]
    root = tmp_path_factory.mktemp("corpus")
    (root / "in" / "sub").mkdir(parents=True)
    parts = {"a.txt": lines[:6000], "b.txt": lines[6000:11000], "sub/c.txt": lines[11000:15000], "d.txt.gz": lines[15000:]}
    expected = {}
    for name, part in parts.items():
        data = ("\n".join(part) + "\n").encode("utf8")
        path = root / "in" / name
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
        plain = root / "plain" / name.replace(".gz", "")
        plain.parent.mkdir(parents=True, exist_ok=True)
        plain.write_bytes(data)
        out = root / "single" / name.replace(".gz", "")
        out.parent.mkdir(parents=True, exist_ok=True)
        run = subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", str(FIXTURE), str(plain), str(out)],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        expected[name] = out.read_bytes()
    return root, expected


def _read(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def _run(root: Path, out: str, **kwargs):
    from spacy_gdcws.corpus_segment import segment_corpus

    return segment_corpus(root / "in", root / out, str(FIXTURE), actors=2, batch_size=1500, num_cpus=2,
                          progress=False, **kwargs)


def test_two_actors_give_the_single_process_output_byte_for_byte(corpus):
    root, expected = corpus
    summary = _run(root, "out")
    assert summary.files == 4 and summary.lines == 20_000 and not summary.skipped
    for name, data in expected.items():
        assert _read(root / "out" / name) == data, name


def test_an_actor_that_dies_loses_and_repeats_no_line(corpus, monkeypatch):
    from spacy_gdcws.corpus_segment import CRASH_MARKER_ENV

    root, expected = corpus
    marker = root / "crash-once"
    marker.write_text("x")
    monkeypatch.setenv(CRASH_MARKER_ENV, str(marker))
    summary = _run(root, "out_crash")
    assert not marker.exists()  # an actor did die
    assert summary.files == 4 and summary.lines == 20_000
    for name, data in expected.items():
        assert _read(root / "out_crash" / name) == data, name


def test_rerun_resumes_and_leaves_finished_files_alone(corpus):
    root, expected = corpus
    _run(root, "out_resume")
    done = root / "out_resume" / "a.txt"
    before = done.stat().st_mtime_ns
    (root / "out_resume" / "sub" / "c.txt").unlink()  # as if interrupted before this file was done
    summary = _run(root, "out_resume")
    assert summary.files == 1 and sorted(summary.skipped) == ["a.txt", "b.txt", "d.txt.gz"]
    assert done.stat().st_mtime_ns == before
    for name, data in expected.items():
        assert _read(root / "out_resume" / name) == data, name
    assert not [p for p in (root / "out_resume").rglob(".*")]  # no temporary file left behind


def test_bad_arguments_and_missing_input_are_coded_errors(corpus, tmp_path):
    from spacy_gdcws.corpus_segment import segment_corpus

    root, _ = corpus
    with pytest.raises(ValueError, match="E047"):
        segment_corpus(root / "in", tmp_path / "o", str(FIXTURE), actors=0)
    with pytest.raises(ValueError, match="E016"):
        segment_corpus(tmp_path / "nothing", tmp_path / "o", str(FIXTURE))
