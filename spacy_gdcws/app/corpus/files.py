"""The inputs of a corpus run (a file, a folder, a glob; local or any pyarrow filesystem URI)
and where their outputs go, checked before Ray starts."""
import fnmatch
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from spacy_gdcws.errors import Errors
from spacy_gdcws.io import READ_BLOCK


@dataclass
class CorpusFile:
    """One input file (path in its filesystem, size, mtime) and where its output goes;
    `error`: why it cannot be read (a link to nothing), found while listing."""

    source: str
    relative: str
    target: str
    size: int = 0
    mtime_ns: int = 0
    error: Optional[str] = None
    _digest: Optional[str] = None

    @property
    def compression(self) -> Optional[str]:
        """The codec the input is read with (by its extension, as Ray Data reads it:
        `pyarrow.Codec.detect`), and so the codec its output is written with."""
        return compression_of(self.source)

    def identity(self, fs: Any) -> Dict[str, Any]:
        """What the manifest records of the input: its path, size, mtime and the SHA-256 of all
        its bytes (copy and sync tools restore mtimes: an edit that keeps the size and the mtime,
        anywhere in the file, is still seen). Read once per file and run, at a small fraction of
        the cost of segmenting it."""
        if self._digest is None:
            digest = hashlib.sha256()
            with fs.open_input_file(self.source) as f:
                while True:
                    block = f.read(READ_BLOCK)
                    if not block:
                        break
                    digest.update(block)
            self._digest = digest.hexdigest()
        return {"input": self.source, "size": self.size, "mtime_ns": self.mtime_ns, "sha256": self._digest}


    def identity_now(self, fs: Any) -> Optional[Dict[str, Any]]:
        """The input's identity as it is now (read again: size, mtime, SHA-256), or None where it
        is gone or cannot be read."""
        import pyarrow.fs as pafs

        try:
            info = fs.get_file_info(self.source)
            if info.type != pafs.FileType.File:
                return None
            fresh = CorpusFile(self.source, self.relative, self.target, info.size, int(info.mtime_ns or 0))
            return fresh.identity(fs)
        except OSError:
            return None


# codecs pyarrow reads but cannot write as a stream
_READ_ONLY_CODECS = ("snappy",)


def compression_of(path: str) -> Optional[str]:
    """The codec of a file by its extension, as Ray Data infers it (None: plain text)."""
    import pyarrow as pa

    try:
        return pa.Codec.detect(path).name
    except (ValueError, TypeError):
        return "snappy" if path.endswith(".snappy") else None


def filesystem_of(location: Union[str, Path]) -> Tuple[Any, str]:
    """(pyarrow filesystem, path in it) of a local path or a URI (s3://, gs://, hdfs://, file://)."""
    import pyarrow.fs as pafs

    text = str(location)
    if "://" in text:
        return pafs.FileSystem.from_uri(text)
    # the real path: an output folder that is a link to the input is the input
    return pafs.LocalFileSystem(), os.path.realpath(os.path.expanduser(text))


def _hidden(relative: str) -> bool:
    return any(part.startswith(".") for part in relative.split("/"))


def glob_match(path: str, pattern: str) -> bool:
    """Whether `path` matches a glob `pattern` as a shell reads it: `*`, `?` and `[...]` within
    one path component, `**` across components."""
    if "**" in pattern:
        return fnmatch.fnmatchcase(path, pattern)
    parts, wanted = path.split("/"), pattern.split("/")
    return len(parts) == len(wanted) and all(fnmatch.fnmatchcase(p, w) for p, w in zip(parts, wanted))


def find_inputs(input_path: Union[str, Path], output_dir: Union[str, Path]) -> List[CorpusFile]:
    """The input files: a file, every file under a folder (sorted; hidden names left out), or
    a glob pattern; each with its size and mtime. E016 when nothing matches. On the local
    disk, links to folders are not followed (a link back to the folder would list its files
    again and again) and a link to nothing is an entry with its `error`."""
    import pyarrow.fs as pafs

    fs, path = filesystem_of(input_path)
    _, out_root = filesystem_of(output_dir)
    pattern = None
    if is_pattern(fs, path):
        cut = min(i for i in (path.find("*"), path.find("?"), path.find("[")) if i >= 0)
        root, pattern = path[: cut].rsplit("/", 1)[0], path
    else:
        root = path
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.File and pattern is None:
        infos, root = [info], os.path.dirname(root)
    elif info.type == pafs.FileType.Directory:
        infos = _list_files(fs, root)
    else:
        raise ValueError(Errors.E016.format(path=input_path, message="no such file, folder or pattern"))
    out = []
    for i in sorted(infos, key=lambda i: i.path):
        relative = i.path[len(root):].lstrip("/")
        if _hidden(relative) or (pattern and not glob_match(i.path, pattern)):
            continue
        if pattern and (i.path == out_root or i.path.startswith(out_root.rstrip("/") + "/")):
            continue  # a pattern that reaches into the output folder: never an input
        error = None if i.type == pafs.FileType.File else Errors.E016.format(path=i.path, message="a link to nothing")
        if error is None and compression_of(i.path) in _READ_ONLY_CODECS:
            error = Errors.E104.format(path=i.path, codec=compression_of(i.path))
        if error is None and ("\n" in i.path or "\r" in i.path):
            error = Errors.E105.format(path=repr(i.path))
        out.append(CorpusFile(i.path, relative, f"{out_root.rstrip('/')}/{relative}", int(i.size or 0),
                              int(i.mtime_ns or 0), error))
    if not out:
        raise ValueError(Errors.E016.format(path=input_path, message="no input files"))
    return out


def _list_files(fs: Any, root: str) -> List[Any]:
    """The files under `root` (pyarrow FileInfo): on the local disk without following links
    to folders, links to nothing included (type NotFound); elsewhere, pyarrow's listing."""
    import pyarrow.fs as pafs

    if not isinstance(fs, pafs.LocalFileSystem):
        return [i for i in fs.get_file_info(pafs.FileSelector(root, recursive=True)) if i.type == pafs.FileType.File]
    paths = []
    for folder, _, names in os.walk(root, followlinks=False):
        paths.extend(os.path.join(folder, name) for name in names)
    infos = fs.get_file_info(paths) if paths else []
    return [i for i in infos if i.type in (pafs.FileType.File, pafs.FileType.NotFound)]


def is_pattern(fs: Any, path: str) -> bool:
    """Whether `path` is a glob pattern: it has `*`, `?` or `[` and names no file or folder
    (a folder called `data[1]` is that folder)."""
    import pyarrow.fs as pafs

    return any(c in path for c in "*?[") and fs.get_file_info(path).type == pafs.FileType.NotFound


def check_locations(input_path: Union[str, Path], output_dir: Union[str, Path]) -> None:
    """E088 when the output folder is the input folder or inside it (its outputs would be
    inputs of the next run)."""
    import pyarrow.fs as pafs

    fs, source = filesystem_of(input_path)
    _, out = filesystem_of(output_dir)
    out, root = out.rstrip("/"), source.rstrip("/")
    if is_pattern(fs, source) or fs.get_file_info(root).type != pafs.FileType.Directory:
        return
    if out == root or out.startswith(root + "/"):
        raise ValueError(Errors.E088.format(output=output_dir, input=input_path))


def check_outputs_are_not_inputs(output_dir: Union[str, Path], files: Sequence[CorpusFile]) -> None:
    """E077 when an output path is an input path."""
    inputs = {os.path.realpath(f.source) if "://" not in f.source else f.source for f in files}
    for file in files:
        target = os.path.realpath(file.target) if "://" not in file.target else file.target
        if target in inputs:
            raise ValueError(Errors.E077.format(output_name="OUTPUT_DIR", output=output_dir,
                                                input_name=f"INPUT {file.source}"))
