"""One driver per output folder: a lock file beside the manifest, and the parts a killed driver
left behind cleared by the next one.

`segment-corpus` writes its parts under `OUTPUT/.segment-corpus-parts/<run>` and commits whole
files at the end; a driver killed mid-run (SIGKILL, a lost machine) leaves its parts and no
commit. The next run of the same command takes the lock, removes every run's parts (no other
driver can be writing: it holds the lock) and does what is left. A second driver started while
the first runs is refused (E129) rather than racing it for the manifest: on this host the lock's
process is checked to be alive; a lock written on another host is trusted until removed.
"""
import json
import os
import socket
import time
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


class OutputLock:
    """The output folder's lock, held from `acquire` to `release` (a context manager)."""

    def __init__(self, fs: Any, output_root: str) -> None:
        self.fs = fs
        self.path = f"{output_root}/{LOCK_NAME}"
        self.owner = {"host": socket.gethostname(), "pid": os.getpid(), "started": time.time()}

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

    def acquire(self) -> None:
        """Take the lock (E129 where a live driver holds it); a dead driver's lock is taken over."""
        held = self.holder()
        if isinstance(held, dict):
            same_host = held.get("host") == self.owner["host"]
            if not same_host or _alive(int(held.get("pid", -1))):
                raise ValueError(Errors.E129.format(path=self.path, pid=held.get("pid"), host=held.get("host")))
        with self.fs.open_output_stream(self.path) as f:
            f.write(json.dumps(self.owner).encode("utf8"))
        if self.holder() != self.owner:  # another driver wrote it in between
            raise ValueError(Errors.E129.format(path=self.path, pid="?", host="?"))

    def release(self) -> None:
        if self.holder() == self.owner:
            self.fs.delete_file(self.path)
