"""One driver per output folder: a lock file beside the manifest, and the parts a killed driver
left behind cleared by the next one.

`segment-corpus` writes its parts under `OUTPUT/.segment-corpus-parts/<run>` and commits whole
files at the end; a driver killed mid-run (SIGKILL, a lost machine) leaves its parts and no
commit. The next run of the same command takes the lock, removes every run's parts (no other
driver can be writing: it holds the lock) and does what is left. A second driver started while
the first runs is refused (E129) rather than racing it for the manifest: on this host the lock's
process is checked to be alive; a lock written on another host is trusted until removed.

Taking the lock is atomic on a local folder: the file is created with `O_CREAT | O_EXCL` (what
`filelock` does), so of two drivers started at the same instant exactly one creates it, and a dead
driver's lock is first renamed away (one rename of a path succeeds) before a new one is created. An
object store (s3://, gs://) has no such create through pyarrow's filesystems: there the lock is
written, then read back, which refuses a driver that comes later but not one whose write and read
interleave with another's (`docs/segment-corpus.md`: start one driver per output folder).
"""
import json
import os
import socket
import time
import uuid
from typing import Any

from spacy_gdcws.errors import Errors

LOCK_NAME = ".segment-corpus.lock"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def _is_local(fs: Any) -> bool:
    import pyarrow.fs as pafs

    return isinstance(fs, pafs.LocalFileSystem)


class OutputLock:
    """The output folder's lock, held from `acquire` to `release` (a context manager)."""

    def __init__(self, fs: Any, output_root: str) -> None:
        self.fs = fs
        self.path = f"{output_root}/{LOCK_NAME}"
        self.owner = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.time(),
                      "token": uuid.uuid4().hex}

    def __enter__(self) -> "OutputLock":
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()

    def holder(self) -> Any:
        """The lock's content (None: no lock, or one that cannot be read)."""
        import pyarrow.fs as pafs

        if self.fs.get_file_info(self.path).type != pafs.FileType.File:
            return None
        try:
            with self.fs.open_input_stream(self.path) as f:
                return json.loads(f.read().decode("utf8"))
        except (OSError, ValueError):
            return None

    def _refuse(self, held: Any) -> ValueError:
        held = held if isinstance(held, dict) else {}
        return ValueError(Errors.E129.format(path=self.path, pid=held.get("pid", "?"), host=held.get("host", "?")))

    def _live(self, held: Any) -> bool:
        """Whether a lock's holder may still be running (a lock from another host always may)."""
        return not isinstance(held, dict) or held.get("host") != self.owner["host"] or _alive(int(held.get("pid", -1)))

    def acquire(self) -> None:
        """Take the lock (E129 where a live driver holds it); a dead driver's lock is taken over."""
        if _is_local(self.fs):
            self._acquire_local()
            return
        held = self.holder()
        if held is not None and self._live(held):
            raise self._refuse(held)
        with self.fs.open_output_stream(self.path) as f:
            f.write(json.dumps(self.owner).encode("utf8"))
        if self.holder() != self.owner:  # another driver wrote it in between
            raise self._refuse(self.holder())

    def _acquire_local(self) -> None:
        data = json.dumps(self.owner).encode("utf8")
        for _ in range(2):  # once more after a dead driver's lock is moved away
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                held = self.holder()
                if held is None:  # being written at this instant by the driver that created it
                    time.sleep(0.05)
                    held = self.holder()
                if held is None or self._live(held):
                    raise self._refuse(held) from None
                stale = f"{self.path}.dead-{self.owner['token']}"
                try:
                    os.rename(self.path, stale)  # of two drivers taking it over, one renames it
                except FileNotFoundError:
                    continue
                with open(stale, "rb") as f:
                    moved = f.read()
                if json.loads(moved.decode("utf8") or "null") != held:
                    # another driver took the dead lock over in between: put its lock back, unless a third
                    # created one meanwhile (a link, unlike a rename, never replaces a file), and give way
                    try:
                        os.link(stale, self.path)
                    except FileExistsError:
                        pass
                    os.unlink(stale)
                    raise self._refuse(json.loads(moved.decode("utf8") or "null"))
                os.unlink(stale)
                continue
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            return
        raise self._refuse(self.holder())

    def release(self) -> None:
        if self.holder() == self.owner:
            self.fs.delete_file(self.path)
