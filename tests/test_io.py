"""`io`: files written whole or not at all, through links, and never over a device or a pipe."""
import os
import threading

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
