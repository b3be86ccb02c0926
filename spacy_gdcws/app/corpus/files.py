"""The inputs of a corpus run (a file, a folder, a glob; local or any pyarrow filesystem URI)
and where their outputs go, checked before Ray starts."""
import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple, Union

from spacy_gdcws.errors import Errors


@dataclass
class CorpusFile:
    """One input file (path in its filesystem, size, mtime) and where its output goes."""

    source: str
    relative: str
    target: str
    size: int = 0
    mtime_ns: int = 0

    @property
    def gzipped(self) -> bool:
        return self.source.endswith(".gz")

    def identity(self) -> Dict[str, Any]:
        return {"input": self.source, "size": self.size, "mtime_ns": self.mtime_ns}


def filesystem_of(location: Union[str, Path]) -> Tuple[Any, str]:
    """(pyarrow filesystem, path in it) of a local path or a URI (s3://, gs://, hdfs://, file://)."""
    import pyarrow.fs as pafs

    text = str(location)
    if "://" in text:
        return pafs.FileSystem.from_uri(text)
    return pafs.LocalFileSystem(), os.path.abspath(os.path.expanduser(text))


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
    a glob pattern; each with its size and mtime. E016 when nothing matches."""
    import pyarrow.fs as pafs

    fs, path = filesystem_of(input_path)
    _, out_root = filesystem_of(output_dir)
    pattern = None
    if any(c in path for c in "*?["):
        cut = min(i for i in (path.find("*"), path.find("?"), path.find("[")) if i >= 0)
        root, pattern = path[: cut].rsplit("/", 1)[0], path
    else:
        root = path
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.File and pattern is None:
        infos, root = [info], os.path.dirname(root)
    elif info.type == pafs.FileType.Directory:
        infos = [i for i in fs.get_file_info(pafs.FileSelector(root, recursive=True)) if i.type == pafs.FileType.File]
    else:
        raise ValueError(Errors.E016.format(path=input_path, message="no such file, folder or pattern"))
    out = []
    for i in sorted(infos, key=lambda i: i.path):
        relative = i.path[len(root):].lstrip("/")
        if _hidden(relative) or (pattern and not glob_match(i.path, pattern)):
            continue
        if pattern and (i.path == out_root or i.path.startswith(out_root.rstrip("/") + "/")):
            continue  # a pattern that reaches into the output folder: never an input
        out.append(CorpusFile(i.path, relative, f"{out_root.rstrip('/')}/{relative}", int(i.size or 0),
                              int(i.mtime_ns or 0)))
    if not out:
        raise ValueError(Errors.E016.format(path=input_path, message="no input files"))
    return out


def check_locations(input_path: Union[str, Path], output_dir: Union[str, Path]) -> None:
    """E088 when the output folder is the input folder or inside it (its outputs would be
    inputs of the next run)."""
    import pyarrow.fs as pafs

    fs, source = filesystem_of(input_path)
    _, out = filesystem_of(output_dir)
    out, root = out.rstrip("/"), source.rstrip("/")
    if any(c in source for c in "*?[") or fs.get_file_info(root).type != pafs.FileType.Directory:
        return
    if out == root or out.startswith(root + "/"):
        raise ValueError(Errors.E088.format(output=output_dir, input=input_path))


def check_outputs_are_not_inputs(output_dir: Union[str, Path], files: Sequence[CorpusFile]) -> None:
    """E077 when an output path is an input path."""
    inputs = {f.source for f in files}
    for file in files:
        if file.target in inputs:
            raise ValueError(Errors.E077.format(output_name="OUTPUT_DIR", output=output_dir,
                                                input_name=f"INPUT {file.source}"))
