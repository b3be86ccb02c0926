"""Writing files whole or not at all: to a temporary path beside the target, then rename."""
import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any, ContextManager, Iterator, Union


def atomic_write_bytes(path: Union[str, Path], data: bytes) -> None:
    """Write `data` to `path` atomically (a temporary file beside it, then renamed)."""
    with _atomic_file(path, "wb") as f:
        f.write(data)


def atomic_write_text(path: Union[str, Path], text: str, encoding: str = "utf8") -> None:
    """Write `text` to `path` atomically: a reader sees the old file or the new
    one, never a part; a failure leaves no partial file behind."""
    with atomic_writer(path, encoding) as f:
        f.write(text)


def atomic_writer(path: Union[str, Path], encoding: str = "utf8") -> ContextManager[IO[str]]:
    """A text file to write that appears at `path` only when the block ends
    without an error (a temporary file beside it, then renamed)."""
    return _atomic_file(path, "w", encoding=encoding, newline="")


@contextlib.contextmanager
def _atomic_file(path: Union[str, Path], mode: str, **open_args: Any) -> Iterator[IO]:
    """An open file (`mode` "w" or "wb") on a temporary path beside `path`, renamed
    to `path` when the block ends without an error and removed when it does not."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, mode, **open_args) as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


CHECKSUMS = "checksums.json"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_checksums(folder: Union[str, Path]) -> None:
    """Record the SHA-256 of every file under `folder` in `folder/checksums.json`."""
    folder = Path(folder)
    sums = {p.relative_to(folder).as_posix(): _sha256(p) for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != CHECKSUMS}
    atomic_write_text(folder / CHECKSUMS, json.dumps(sums, indent=0, sort_keys=True) + "\n")


def verify_checksums(folder: Union[str, Path]) -> bool:
    """Check the files under `folder` against its `checksums.json`: E063 for a
    listed file that is missing, E064 for one whose bytes changed. RETURNS
    False if the folder has no checksums (saved before they were written)."""
    from spacy_gdcws.errors import Errors

    folder = Path(folder)
    listing = folder / CHECKSUMS
    if not listing.exists():
        return False
    try:
        sums = json.loads(listing.read_text(encoding="utf8"))
    except (ValueError, UnicodeDecodeError):
        raise ValueError(Errors.E064.format(path=listing)) from None
    for name, digest in sums.items():
        path = folder / name
        if not path.is_file():
            raise ValueError(Errors.E063.format(path=path))
        if _sha256(path) != digest:
            raise ValueError(Errors.E064.format(path=path))
    return True


def replace_dir(source: Union[str, Path], target: Union[str, Path]) -> None:
    """Move the folder `source` to `target`, replacing what was there only once
    `source` is complete (`target` never holds a half-written folder)."""
    source, target = Path(source), Path(target)
    old = target.parent / f".{target.name}.old-{os.getpid()}"
    if target.exists():
        os.replace(target, old)
    os.replace(source, target)
    if old.exists():
        shutil.rmtree(old, ignore_errors=True)
