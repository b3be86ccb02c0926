"""Writing files whole or not at all (to a temporary path beside the target, then
rename), on the local disk or any pyarrow filesystem; checksums and digests of
files and folders, read in blocks."""
import contextlib
import hashlib
import json
import os
import shutil
import stat
import tempfile
import uuid
from pathlib import Path
from typing import IO, Any, Callable, ContextManager, Dict, Iterable, Iterator, Optional, Tuple, Union

# what a stream is read by: bounded memory whatever the file's size
READ_BLOCK = 1 << 20


def read_blocks(stream: Any) -> Iterator[bytes]:
    """The bytes of a binary stream in blocks of `READ_BLOCK`."""
    return iter(lambda: stream.read(READ_BLOCK), b"")


def atomic_write_bytes(path: Union[str, Path], data: bytes) -> None:
    """Write `data` to `path` atomically (a temporary file beside it, then renamed)."""
    with _atomic_file(path, "wb") as f:
        f.write(data)


def atomic_write_text(path: Union[str, Path], text: str, encoding: str = "utf8") -> None:
    """Write `text` to `path` atomically: a reader sees the old file or the new
    one, never a part; a failure leaves no partial file behind."""
    with atomic_writer(path, encoding) as f:
        f.write(text)


def atomic_write_fs(filesystem: Any, path: str, data: bytes) -> None:
    """`atomic_write_bytes` on a pyarrow filesystem (local, s3://, gs://, hdfs://): a
    temporary file beside `path`, then moved onto it."""
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with filesystem.open_output_stream(tmp) as f:
        f.write(data)
    filesystem.move(tmp, path)


def atomic_writer(path: Union[str, Path], encoding: str = "utf8") -> ContextManager[IO[str]]:
    """A text file to write that appears at `path` only when the block ends
    without an error (a temporary file beside it, then renamed)."""
    return _atomic_file(path, "w", encoding=encoding, newline="")


@contextlib.contextmanager
def _atomic_file(path: Union[str, Path], mode: str, **open_args: Any) -> Iterator[IO]:
    """An open file (`mode` "w" or "wb") on a temporary path beside `path`, renamed
    to `path` when the block ends without an error and removed when it does not.

    A link is followed (its target is written, the link stays a link); an existing
    path that is not a regular file (a device such as /dev/null, a named pipe) is
    written through, in place: renaming over it would replace it with a file. A
    failure to write (no permission, a full disk, a file-size limit) is E103 naming
    `path`, never the temporary file; the block's own errors pass through as they are."""
    try:  # what the path is, links followed by the system (/dev/stdout on a pipe: a pipe, not a file)
        kind = os.stat(path).st_mode
    except OSError:
        kind = None
    if kind is not None and not stat.S_ISREG(kind) and not stat.S_ISDIR(kind):
        # a device, a named pipe, a process's stream: written through in place, by the name given
        # (its resolved name, `/proc/PID/fd/pipe:[N]`, names nothing that can be opened)
        with _writing(Path(path)):
            f = open(path, mode, **open_args)
        yield from _writes_to(f, Path(path))
        return
    path = Path(os.path.realpath(path))
    with _writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with _writing(path):
            # mkstemp makes the file 0600: give it the mode of the file it replaces (as writing over it
            # in place would keep), or that a plain open() would give a new one (0666 less the umask)
            os.fchmod(fd, _kept_mode(path))
            f = os.fdopen(fd, mode, **open_args)
        yield from _writes_to(f, path)
        with _writing(path):
            os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[None]:
    """An OSError of the block is E103 for `path`."""
    from spacy_gdcws.errors import Errors

    try:
        yield
    except (OSError, _WriteError) as err:
        message = err.args[0] if isinstance(err, _WriteError) else (err.strerror or str(err))
        raise ValueError(Errors.E103.format(path=path, message=message)) from None


def _writes_to(f: IO, path: Path) -> Iterator[IO]:
    """Yield `f` to the caller's block, then close it: the block's writes' OSErrors and
    the closing's are E103 for `path`; the block's other errors pass through as they are."""
    try:
        yield _Written(f)
    except _WriteError:
        with contextlib.suppress(OSError):
            f.close()
        with _writing(path):
            raise
    except BaseException:
        with contextlib.suppress(OSError):
            f.close()
        raise
    else:
        with _writing(path):
            f.close()


class _WriteError(Exception):
    """An OSError of a write to the file `_atomic_file` opened (told apart from the
    caller's own OSErrors, such as reading its input, which pass through as they are)."""


class _Written:
    """The file `_atomic_file` yields: its writes' OSErrors become `_WriteError`."""

    def __init__(self, f: IO) -> None:
        self._f = f

    def write(self, data: Any) -> int:
        try:
            return self._f.write(data)
        except OSError as err:
            raise _WriteError(err.strerror or str(err)) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._f, name)


def check_outputs(outputs: Dict[str, Optional[Union[str, Path]]], inputs: Dict[str, Optional[Union[str, Path]]],
                  folders: Tuple[str, ...] = ()) -> None:
    """The one rule for every command that writes: an output path is never an
    input path (E077), nor inside an input that is a folder (a pipeline: E146), two outputs never share a
    path (E078), and a file output is not an existing folder (E079; `folders` names the outputs that
    are folders).
    Checked before any work, so a mistake costs nothing. Arguments map an
    option's name (as the user typed it) to its path; None = not given; inputs
    that are not paths (a package name) are skipped."""
    from spacy_gdcws.errors import Errors

    def key(path: Union[str, Path]) -> Path:
        return Path(os.path.abspath(os.path.expanduser(str(path))))

    seen: Dict[Path, str] = {}
    for name, output in outputs.items():
        if output is None or str(output) == "-":
            continue
        out = key(output)
        for input_name, source in inputs.items():
            if source is None or str(source) == "-":
                continue
            src = key(source)
            same = out == src or (out.exists() and src.exists() and os.path.samefile(out, src))
            # an output inside an input folder (`segment P in.txt P/segmenter/model`) would write into it
            if same:
                raise ValueError(Errors.E077.format(output_name=name, output=output, input_name=f"{input_name} {source}"))
            if src.is_dir() and _is_within(out, src):
                raise ValueError(Errors.E146.format(output_name=name, output=output, input_name=f"{input_name} {source}"))
        if out in seen:
            raise ValueError(Errors.E078.format(first=seen[out], second=name, path=output))
        seen[out] = name
        if name not in folders and out.is_dir():
            raise ValueError(Errors.E079.format(name=name, path=output))


def _is_within(path: Path, folder: Path) -> bool:
    """Whether `path` (which need not exist) lies inside `folder`, links resolved."""
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(folder))
    except ValueError:
        return False
    return True


def _kept_mode(path: Path) -> int:
    """The permission bits a file written over `path` gets: the existing file's, else 0666 less the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~current_umask()


def current_umask() -> int:
    """The process's umask (read without changing it where /proc has it)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:  # pragma: no cover (not Linux)
        pass
    mask = os.umask(0o022)  # pragma: no cover
    os.umask(mask)  # pragma: no cover
    return mask  # pragma: no cover


CHECKSUMS = "checksums.json"
# a whole pipeline's listing (every file but the two that `spacy package` rewrites), written where the
# project saves or packages a pipeline (`pipeline.serialize.seal_pipeline`), checked when it loads
PIPELINE_CHECKSUMS = "pipeline_checksums.json"


def break_seal(component_path: Union[str, Path]) -> None:
    """Remove the listing of the pipeline folder a component is being saved into: the files it
    lists are being replaced, so the pipeline saved now would be refused against it (spaCy's
    `Language.to_disk` writes into the folder and leaves other files as they are)."""
    root = Path(component_path).parent
    listing = root / PIPELINE_CHECKSUMS
    if (root / "config.cfg").is_file() and (listing.is_file() or listing.is_symlink()):
        listing.unlink()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in read_blocks(f):
            digest.update(block)
    return digest.hexdigest()


def git_blob_id(path: Union[str, Path]) -> str:
    """The file's git blob id (what `git hash-object FILE` prints: SHA-1 of a `blob <size>` header
    and the bytes), to check a downloaded file against the commit it was taken from."""
    path = Path(path)
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode("ascii"))
    with path.open("rb") as f:
        for block in read_blocks(f):
            digest.update(block)
    return digest.hexdigest()


def folder_digest(folder: Union[str, Path]) -> str:
    """SHA-256 of a folder's files: each file's path under the folder and its bytes, in
    path order (`__pycache__` left out, so that importing a package does not change it)."""
    folder = Path(folder)
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(folder).as_posix().encode("utf8") + b"\0")
        with path.open("rb") as f:
            for block in read_blocks(f):
                digest.update(block)
    return digest.hexdigest()


def write_checksums(folder: Union[str, Path], name: str = CHECKSUMS, skip: Iterable[str] = ()) -> None:
    """Record the SHA-256 of every file under `folder` in `folder/name` (`skip`: paths under
    the folder, as the listing writes them, left out)."""
    folder = Path(folder)
    skip = set(skip) | {name}
    sums = {p.relative_to(folder).as_posix(): _sha256(p) for p in sorted(folder.rglob("*"))
            if p.is_file() and p.relative_to(folder).as_posix() not in skip and "__pycache__" not in p.parts}
    atomic_write_text(folder / name, json.dumps(sums, indent=0, sort_keys=True) + "\n")


def verify_checksums(folder: Union[str, Path], name: str = CHECKSUMS, missing: Optional[str] = None,
                     changed: Optional[str] = None, skip: Optional[Callable[[str], bool]] = None) -> bool:
    """Check the files under `folder` against its listing `name`: `missing` (E063) for a
    listed file that is missing, `changed` (E064) for one whose bytes changed (or a listing that
    cannot be read). RETURNS False if the folder has no listing or an empty one (the caller
    decides whether that is an old folder or a damaged one)."""
    from spacy_gdcws.errors import Errors

    missing, changed = missing or Errors.E063, changed or Errors.E064
    folder = Path(folder)
    listing = folder / name
    if not listing.exists() or not listing.stat().st_size:
        return False
    try:
        sums = json.loads(listing.read_text(encoding="utf8"))
    except (ValueError, UnicodeDecodeError):
        sums = None
    if not isinstance(sums, dict) or not all(isinstance(v, str) for v in sums.values()):
        raise ValueError(changed.format(path=listing))
    for entry, digest in sums.items():
        if skip is not None and skip(entry):
            continue
        path = folder / entry
        # a listing names files of its folder only: an entry that leaves it (`../outside.txt`, an absolute
        # path, a link out) is refused before it is read, so no check says anything of another file
        if Path(entry).is_absolute() or not _is_within(path, folder):
            raise ValueError(Errors.E145.format(path=listing, entry=entry))
        if not path.is_file():
            raise ValueError(missing.format(path=path))
        if _sha256(path) != digest:
            raise ValueError(changed.format(path=path))
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


def save_whole(path: Union[str, Path], writers: Dict[str, Callable[[Path], Any]], exclude: Iterable[str] = ()) -> None:
    """A component's folder written whole: each writer writes its entry (`writers[name](folder / name)`,
    as `spacy.util.to_disk` calls them; an entry whose name before any `.` is in `exclude` is left
    out) into a folder beside `path`, with checksums (`write_checksums`), then moved into place
    (`replace_dir`): a failed save leaves the previous folder, or none, never a half-written one."""
    path = Path(path)
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    excluded = set(exclude)
    try:
        tmp.mkdir(parents=True)
        for name, write in writers.items():
            if name.split(".")[0] not in excluded:
                write(tmp / name)
        write_checksums(tmp)
        replace_dir(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
