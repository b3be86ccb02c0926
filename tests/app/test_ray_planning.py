"""`app.corpus` before Ray starts: the inputs (links, loops, odd names), the output folder and
the manifest. Cases of issue #51 (each gave wrong output or a traceback at db135c0)."""
import os
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")

from spacy_gdcws.app.corpus.files import check_locations, filesystem_of, find_inputs  # noqa: E402
from spacy_gdcws.app.corpus.manifest import MANIFEST_NAME, is_done, read_manifest  # noqa: E402
from tests.util import LEGACY_FIXTURE  # noqa: E402


def _run(source, out, **kwargs):
    from spacy_gdcws.app.corpus import segment_corpus

    return segment_corpus(source, out, str(LEGACY_FIXTURE), actors=1, progress=False, **kwargs)


def test_an_output_folder_that_links_to_the_input_is_the_input(tmp_path):
    """S1: `out` a link to `in` passed the check (it compared the paths as written), and
    `in/a.txt` was overwritten with its own segmentation."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("我爱北京\n", encoding="utf8")
    (tmp_path / "out").symlink_to(tmp_path / "in")
    with pytest.raises(ValueError, match="E088"):
        check_locations(tmp_path / "in", tmp_path / "out")
    with pytest.raises(ValueError, match="E088"):
        _run(tmp_path / "in", tmp_path / "out")
    assert (tmp_path / "in" / "a.txt").read_text(encoding="utf8") == "我爱北京\n"


def test_links_to_folders_are_not_followed_and_a_link_to_nothing_is_reported(tmp_path):
    """S2: a link back to the folder was followed ~40 levels (one real file gave 41 outputs),
    and a link to nothing was skipped without a word."""
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "in" / "sub" / "a.txt").write_text("我爱北京\n", encoding="utf8")
    (tmp_path / "in" / "sub" / "loop").symlink_to(tmp_path / "in")
    (tmp_path / "in" / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    files = find_inputs(tmp_path / "in", tmp_path / "out")
    assert [(f.relative, f.error is None) for f in files] == [("gone.txt", False), ("sub/a.txt", True)]
    assert "E016" in files[0].error and "a link to nothing" in files[0].error


def test_a_folder_whose_name_looks_like_a_pattern_is_that_folder(tmp_path):
    """L11: `data[1]` was read as a glob pattern: E016, no input files."""
    folder = tmp_path / "data[1]"
    folder.mkdir()
    (folder / "a.txt").write_text("我爱北京\n", encoding="utf8")
    assert [f.relative for f in find_inputs(folder, tmp_path / "out")] == ["a.txt"]


def test_an_edit_that_keeps_size_and_mtime_is_seen(tmp_path):
    """S4: resume trusted size and mtime: an input edited to the same size with its mtime
    restored (as copy and sync tools do) was skipped and kept its old output."""
    source = tmp_path / "in" / "a.txt"
    source.parent.mkdir()
    source.write_text("我爱北京\n", encoding="utf8")
    (out := tmp_path / "out").mkdir()
    (out / "a.txt").write_text("我  爱  北京\n", encoding="utf8")
    fs, _ = filesystem_of(tmp_path)
    (file,) = find_inputs(source.parent, out)
    entry = {"source": file.identity(fs), "model": "m", "settings": {}, "output_size": (out / "a.txt").stat().st_size}
    assert is_done(entry, file, "m", {}, fs, fs)
    stat = source.stat()
    source.write_text("我恨北京\n", encoding="utf8")
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    (edited,) = find_inputs(source.parent, out)
    assert (edited.size, edited.mtime_ns) == (file.size, file.mtime_ns)
    assert not is_done(entry, edited, "m", {}, fs, fs)


def test_an_edit_in_the_middle_of_a_large_file_is_seen(tmp_path):
    """#61 (8): a 3 MiB input with one character changed in its middle, size and mtime put back,
    was skipped (the digest read its first and last MiB only)."""
    source = tmp_path / "in" / "a.txt"
    source.parent.mkdir()
    line = "我爱北京天安门。\n"
    lines = [line] * (3 * 2**20 // len(line.encode("utf8")) + 1)
    source.write_text("".join(lines), encoding="utf8")
    assert source.stat().st_size > 3 * 2**20
    (out := tmp_path / "out").mkdir()
    (out / "a.txt").write_text("x\n", encoding="utf8")
    fs, _ = filesystem_of(tmp_path)
    (file,) = find_inputs(source.parent, out)
    entry = {"source": file.identity(fs), "model": "m", "settings": {}, "output_size": 2}
    assert is_done(entry, file, "m", {}, fs, fs)
    stat = source.stat()
    lines[len(lines) // 2] = "我恨北京天安门。\n"
    source.write_text("".join(lines), encoding="utf8")
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    (edited,) = find_inputs(source.parent, out)
    assert (edited.size, edited.mtime_ns) == (file.size, file.mtime_ns)
    assert not is_done(entry, edited, "m", {}, fs, fs)


@pytest.mark.parametrize("text", ['{"format": 1, "files": []}', '{"format": 1, "files": null}',
                                  '{"format": 1, "files": {"a.txt": "x"}}', "[1, 2]", "null"])
def test_a_manifest_of_another_shape_is_trusted_for_nothing(tmp_path, text):
    """L3: a manifest of the wrong shape raised AttributeError."""
    (tmp_path / MANIFEST_NAME).write_text(text, encoding="utf8")
    fs, root = filesystem_of(tmp_path)
    assert read_manifest(fs, root) == {}


def test_an_output_folder_that_cannot_be_made_fails_before_segmenting(tmp_path):
    """L2: an output folder that could not be created was found only after segmenting."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("我爱北京\n", encoding="utf8")
    (tmp_path / "file").write_text("", encoding="utf8")
    with pytest.raises(ValueError, match="E103"):
        _run(tmp_path / "in", tmp_path / "file" / "out")
    assert not Path(tmp_path / "file").is_dir()


def test_read_tasks_take_no_cpu_in_either_ray_api():
    """Ray 2.41-2.49's `read_datasource` has no `num_cpus` (it would reach the datasource as a
    read argument): the read tasks' CPU goes through `ray_remote_args` there, `num_cpus` after."""
    from spacy_gdcws.app.corpus.run import _no_cpu_read_args

    def read_2_41(datasource, *, parallelism=-1, ray_remote_args=None, **read_args):
        pass

    def read_2_50(datasource, *, parallelism=-1, num_cpus=None, ray_remote_args=None, **read_args):
        pass

    assert _no_cpu_read_args(read_2_41) == {"ray_remote_args": {"num_cpus": 0}}
    assert _no_cpu_read_args(read_2_50) == {"num_cpus": 0}


def test_a_granularity_given_for_the_run_is_part_of_the_settings():
    """#47: `--granularity` changes the words, so a manifest of another one is not done; a run
    without it keeps the settings of the manifests written before the option."""
    from spacy_gdcws.app.corpus.manifest import settings_identity

    plain = settings_identity("  ", [], "force")
    assert "granularity" not in plain
    assert settings_identity("  ", [], "force", granularity="coarse") == {**plain, "granularity": "coarse"}
