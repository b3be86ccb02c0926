"""Writing files whole or not at all: to a temporary path beside the target, then rename."""
import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator, Union


def atomic_write_text(path: Union[str, Path], text: str, encoding: str = "utf8") -> None:
    """Write `text` to `path` atomically: a reader sees the old file or the new
    one, never a part; a failure leaves no partial file behind."""
    with atomic_writer(path, encoding) as f:
        f.write(text)


@contextlib.contextmanager
def atomic_writer(path: Union[str, Path], encoding: str = "utf8") -> Iterator[IO[str]]:
    """A text file to write that appears at `path` only when the block ends
    without an error (a temporary file beside it, then renamed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
