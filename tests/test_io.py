"""`io`: files written whole or not at all, through links, and never over a device or a pipe."""
import os
import threading

import pytest

from spacy_gdcws.io import atomic_write_text


def test_a_device_or_a_pipe_is_written_through_not_replaced(tmp_path):
    """Issue #51, S13: the atomic writer renamed its temporary file over any path, so an
    output that was a named pipe (or, as root, /dev/null) became a regular file."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, encoding="utf8").read()), daemon=True)
    reader.start()
    atomic_write_text(fifo, "北京\n")
    reader.join(5)
    assert got == ["北京\n"] and fifo.is_fifo()
    atomic_write_text(os.devnull, "x\n")
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)


def test_a_link_is_followed_and_stays_a_link(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("old\n", encoding="utf8")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    atomic_write_text(link, "new\n")
    assert link.is_symlink() and target.read_text(encoding="utf8") == "new\n"


def test_a_failed_write_names_the_output_and_leaves_nothing(tmp_path):
    """Issue #51, L5: write errors (a file-size limit, no permission) were tracebacks naming a
    hidden temporary file."""
    import resource
    import signal

    import pytest

    from spacy_gdcws.io import atomic_writer

    out = tmp_path / "big.txt"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, hard))
        with pytest.raises(ValueError, match=f"E103.*{out}"):
            with atomic_writer(out) as f:
                for _ in range(100):
                    f.write("北京" * 100)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old)
    assert list(tmp_path.iterdir()) == []


def test_a_folder_without_write_permission_is_a_coded_error(tmp_path):
    import pytest

    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    if os.access(folder, os.W_OK):  # root writes anyway
        pytest.skip("this user can write to a read-only folder")
    with pytest.raises(ValueError, match=f"E103.*{folder / 'out.txt'}"):
        atomic_write_text(folder / "out.txt", "北京\n")


def test_the_blocks_own_errors_pass_through(tmp_path):
    import pytest

    from spacy_gdcws.io import atomic_writer

    with pytest.raises(FileNotFoundError):
        with atomic_writer(tmp_path / "out.txt") as f:
            f.write("x")
            open(tmp_path / "missing.txt")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
def test_writing_over_a_file_keeps_its_permissions(tmp_path, mode):
    """#61 (7): a 0600 out.txt was 0644 after `segment` wrote it again (the temporary file's mode);
    a new file still gets 0666 less the umask."""
    import stat

    from spacy_gdcws.io import atomic_write_text, current_umask

    out = tmp_path / "out.txt"
    out.write_text("old\n", encoding="utf8")
    out.chmod(mode)
    atomic_write_text(out, "new\n")
    assert out.read_text(encoding="utf8") == "new\n" and stat.S_IMODE(out.stat().st_mode) == mode
    atomic_write_text(tmp_path / "fresh.txt", "x")
    assert stat.S_IMODE((tmp_path / "fresh.txt").stat().st_mode) == 0o666 & ~current_umask()


def test_segment_over_an_existing_output_keeps_its_permissions(tmp_path):
    import stat

    from tests.util import LEGACY_FIXTURE, run_cli

    source, out = tmp_path / "in.txt", tmp_path / "out.txt"
    source.write_text("我爱北京天安门。\n", encoding="utf8")
    out.write_text("", encoding="utf8")
    out.chmod(0o600)
    run = run_cli("segment", LEGACY_FIXTURE, source, out)
    assert run.returncode == 0, run.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_text(encoding="utf8").strip()
