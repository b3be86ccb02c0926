"""Corpus-scale segmentation on Ray Data (`python -m spacy_gdcws segment-corpus`), streaming.

The driver only plans and commits; the corpus never passes through it:

1. Driver, before Ray starts: the inputs are listed (a file, a folder, a glob; local paths or
   any pyarrow filesystem URI: `s3://`, `gs://`, `hdfs://`), the model is loaded once to check
   it (and hashed: its identity), the output folder is checked (not an input, not inside the
   input folder). A file whose entry in the output folder's manifest matches its size, mtime,
   the model's identity and the settings is done: skipped (resume).
2. Workers: `LineChunks`, a Ray Data file datasource, streams each file (gzip by its
   extension) as rows of `batch_size` lines, numbered per file, then one end row with the
   file's number of chunks (or the coded error of a line that is not UTF-8: that file fails,
   the others go on). `map_batches` runs `SegmentActor` in an actor pool (`ActorPoolStrategy`,
   `num_gpus` per actor), each actor loading the pipeline once. `PartsSink` (a `Datasink`)
   writes each chunk's output lines as an ordered part file under a staging folder, on the
   worker, each part atomically (a retried or restarted task rewrites the same part).
3. Commit: one Ray task per finished file concatenates its parts in order, streaming, into a
   temporary file beside the target and renames it (gzip again for `.gz` inputs); the driver
   then records the file in the manifest and removes the staging folder.

The output of each file is `segment`'s, byte for byte: one line per input line, empty lines
kept. Needs the `[ray]` extra (E070 without it).
"""
import fnmatch
import hashlib
import json
import os
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from spacy_gdcws.errors import Errors
from spacy_gdcws.readers.base import iter_lines

# set (to a file path) by the tests: the first actor call that finds the file deletes it and
# kills its process, to show that an actor's death loses no line
CRASH_MARKER_ENV = "SPACY_GDCWS_RAY_CRASH_MARKER"
# in the output folder: what is done (input identity, model, settings), and the parts in flight
MANIFEST_NAME = ".segment-corpus-manifest.json"
STAGING_NAME = ".segment-corpus-parts"
MANIFEST_FORMAT = 1
_READ_BYTES = 1 << 20


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


@dataclass
class Summary:
    """What a run did: files segmented, skipped (done before) and failed (with their coded
    error), lines, characters, seconds."""

    files: int = 0
    skipped: List[str] = field(default_factory=list)
    failed: List[Tuple[str, str]] = field(default_factory=list)
    lines: int = 0
    chars: int = 0
    seconds: float = 0.0
    retries: int = 0

    @property
    def chars_per_second(self) -> float:
        return self.chars / self.seconds if self.seconds else 0.0


# --- filesystems and inputs (driver) ---


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


def model_identity(model: str) -> str:
    """A digest of the pipeline's files (a folder, or an installed package's folder): the
    model part of the manifest. E089 when it cannot be loaded (checked by loading it)."""
    import spacy

    try:
        nlp = spacy.load(model)
    except Exception as err:  # any failure to load: one coded line, before Ray starts
        raise ValueError(Errors.E089.format(model=model, error=f"{type(err).__name__}: {err}".splitlines()[0])) from None
    from spacy_gdcws.segment import find_segmenter

    find_segmenter(nlp)  # E024 for a pipeline without a segmenter
    folder = Path(model) if Path(model).is_dir() else spacy.util.get_package_path(model)
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(folder).as_posix().encode("utf8") + b"\0")
        with path.open("rb") as f:
            for block in iter(lambda: f.read(_READ_BYTES), b""):
                digest.update(block)
    return digest.hexdigest()


def settings_identity(delimiter: str, user_dicts: Sequence[str], user_dict_mode: str) -> Dict[str, Any]:
    """What else decides the output: the delimiter and the user dictionaries (with a digest of each)."""
    from spacy_gdcws.segment import split_dict_spec

    dicts = []
    for spec in user_dicts:
        path, mode = split_dict_spec(spec, user_dict_mode)
        try:
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError as err:
            raise ValueError(Errors.E016.format(path=path, message=err)) from None
        dicts.append({"path": os.path.abspath(path), "mode": mode, "sha256": digest})
    return {"delimiter": delimiter, "user_dicts": dicts}


def read_manifest(fs: Any, output_root: str) -> Dict[str, Any]:
    """The output folder's manifest (empty when absent or unreadable: nothing is trusted)."""
    try:
        with fs.open_input_stream(f"{output_root}/{MANIFEST_NAME}") as f:
            data = json.loads(f.read().decode("utf8"))
    except Exception:
        return {}
    return data.get("files", {}) if data.get("format") == MANIFEST_FORMAT else {}


def write_manifest(fs: Any, output_root: str, files: Dict[str, Any]) -> None:
    _write_atomic(fs, f"{output_root}/{MANIFEST_NAME}",
                  json.dumps({"format": MANIFEST_FORMAT, "files": files}, indent=1, ensure_ascii=False).encode("utf8"))


def _write_atomic(fs: Any, path: str, data: bytes) -> None:
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with fs.open_output_stream(tmp) as f:
        f.write(data)
    fs.move(tmp, path)


def is_done(entry: Optional[Dict[str, Any]], file: CorpusFile, model: str, settings: Dict[str, Any], fs: Any) -> bool:
    """Whether a manifest entry says `file` is done with this model and these settings, and its output is there."""
    import pyarrow.fs as pafs

    if not entry or entry.get("source") != file.identity() or entry.get("model") != model or entry.get("settings") != settings:
        return False
    info = fs.get_file_info(file.target)
    return info.type == pafs.FileType.File and info.size == entry.get("output_size")


# --- workers: read, segment, write parts ---


def _raw_lines(stream: Any) -> Iterator[bytes]:
    """The lines of a binary stream, "\\n" kept, read in blocks (bounded memory)."""
    rest = b""
    while True:
        block = stream.read(_READ_BYTES)
        if not block:
            break
        pieces = (rest + block).split(b"\n")
        rest = pieces.pop()
        for piece in pieces:
            yield piece + b"\n"
    if rest:
        yield rest


def _chunk_block(file: int, chunk: int, lines: List[str], n_chunks: int = -1, error: Optional[str] = None) -> Any:
    import pyarrow as pa

    return pa.table({"file": pa.array([file], pa.int64()), "chunk": pa.array([chunk], pa.int64()),
                     "n_chunks": pa.array([n_chunks], pa.int64()), "error": pa.array([error], pa.string()),
                     "lines": pa.array([lines], pa.list_(pa.string()))})


def line_chunks_datasource(paths: Sequence[str], filesystem: Any, lines_per_chunk: int) -> Any:
    """A Ray Data file datasource of the files' lines in chunks (see `LineChunks`)."""
    from ray.data.datasource import FileBasedDatasource

    class LineChunks(FileBasedDatasource):
        """Each file as rows of `lines_per_chunk` lines as `segment` reads them (BOM and line
        ends removed, empty lines kept), numbered per file, then an end row: the number of
        chunks, or the coded error (E015 file:line) of a line that is not UTF-8."""

        def __init__(self) -> None:
            super().__init__(list(paths), filesystem=filesystem)
            self._index = {os.path.normpath(p): i for i, p in enumerate(paths)}

        def _read_stream(self, f: Any, path: str) -> Iterator[Any]:
            file = self._index[os.path.normpath(path)]
            chunk, lines = 0, []
            try:
                for _, text in iter_lines(_raw_lines(f), path):
                    lines.append(text)
                    if len(lines) == lines_per_chunk:
                        yield _chunk_block(file, chunk, lines)
                        chunk, lines = chunk + 1, []
                if lines:
                    yield _chunk_block(file, chunk, lines)
                    chunk += 1
            except Exception as err:  # this file fails; the others go on
                yield _chunk_block(file, -1, [], error=str(err))
                return
            yield _chunk_block(file, -1, [], n_chunks=chunk)

    return LineChunks()


class SegmentActor:
    """Loads the pipeline once per actor; segments each chunk row (`map_batches`); end rows pass."""

    def __init__(self, model: str, delimiter: str, user_dicts: Sequence[str], user_dict_mode: str,
                 nlp_batch_size: int, retries: int, gpu: bool) -> None:
        import ray
        import spacy

        from spacy_gdcws.segment import load_user_dicts, set_threads

        if gpu:
            spacy.require_gpu()
        # torch's threads = the CPUs Ray gave this actor (never more actors x threads than cores)
        set_threads(max(1, int(ray.get_runtime_context().get_assigned_resources().get("CPU", 1.0))))
        self.nlp = spacy.load(model)
        load_user_dicts(self.nlp, user_dicts, user_dict_mode)  # each file in one table build
        self.delimiter = delimiter
        self.nlp_batch_size = nlp_batch_size
        self.retries = retries

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, Any]:
        marker = os.environ.get(CRASH_MARKER_ENV)
        if marker and os.path.exists(marker):
            os.unlink(marker)
            os._exit(1)  # an actor that dies mid-run (tests)
        texts, tries, n_lines, chars = [], [], [], []
        for chunk, lines in zip(batch["chunk"], batch["lines"]):
            lines = [] if lines is None else list(lines)
            n_lines.append(len(lines))
            chars.append(sum(len(line) for line in lines))
            if chunk < 0:
                texts.append("")
                tries.append(0)
                continue
            for attempt in range(self.retries + 1):
                try:
                    texts.append(self._segment(lines))
                    tries.append(attempt)
                    break
                except Exception:
                    if attempt == self.retries:
                        raise
        return {"file": batch["file"], "chunk": batch["chunk"], "n_chunks": batch["n_chunks"], "error": batch["error"],
                "text": texts, "lines": n_lines, "chars": chars, "retries": tries}

    def _segment(self, lines: List[str]) -> str:
        from spacy_gdcws.segment import doc_words

        out = [self.delimiter.join(doc_words(doc)) + "\n" for doc in self.nlp.pipe(lines, batch_size=self.nlp_batch_size)]
        return "".join(out)


def part_path(staging: str, file: int, chunk: int) -> str:
    return f"{staging}/{file:08d}/{chunk:010d}.part"


def parts_sink(staging: str, filesystem: Any) -> Any:
    """A Ray Data `Datasink` that writes each segmented chunk as its ordered part file (see `PartsSink`)."""
    from ray.data import Datasink
    from ray.data.block import BlockAccessor

    class PartsSink(Datasink):
        """Writes on the workers: each chunk's output lines to `staging/FILE/CHUNK.part`
        (atomically: a retried task rewrites the same part); returns what it wrote, per row,
        without the text (so only small records reach the driver)."""

        def __init__(self) -> None:
            self.records: List[Dict[str, Any]] = []

        def write(self, blocks: Iterable[Any], ctx: Any) -> List[Dict[str, Any]]:
            out = []
            for block in blocks:
                for row in BlockAccessor.for_block(block).to_arrow().to_pylist():
                    record = {k: row[k] for k in ("file", "chunk", "n_chunks", "error", "lines", "chars", "retries")}
                    if row["chunk"] >= 0:
                        filesystem.create_dir(f"{staging}/{row['file']:08d}", recursive=True)
                        _write_atomic(filesystem, part_path(staging, row["file"], row["chunk"]),
                                      row["text"].encode("utf8"))
                    out.append(record)
            return out

        def on_write_complete(self, write_result: Any) -> None:
            self.records = [r for returned in write_result.write_returns for r in (returned or [])]

    return PartsSink()


def commit_file(filesystem: Any, staging: str, file: int, n_chunks: int, target: str, gzipped: bool) -> int:
    """Concatenate a file's parts in order into a temporary file beside `target`, streaming, and
    rename it (`target` appears whole or not at all). RETURNS the output's size in bytes."""
    import pyarrow.fs as pafs

    parent = target.rsplit("/", 1)[0]
    filesystem.create_dir(parent, recursive=True)
    tmp = f"{parent}/.{target.rsplit('/', 1)[1]}.{uuid.uuid4().hex}.tmp"
    try:
        with filesystem.open_output_stream(tmp, compression="gzip" if gzipped else None) as out:
            for chunk in range(n_chunks):
                with filesystem.open_input_stream(part_path(staging, file, chunk)) as part:
                    for block in iter(lambda: part.read(_READ_BYTES), b""):
                        out.write(block)
        filesystem.move(tmp, target)
    except BaseException:
        if filesystem.get_file_info(tmp).type != pafs.FileType.NotFound:
            filesystem.delete_file(tmp)
        raise
    return int(filesystem.get_file_info(target).size)


# --- the run (driver) ---


def segment_corpus(input_path: Union[str, Path], output_dir: Union[str, Path], model: str, *,
                   address: Optional[str] = None, actors: int = 2, cpus_per_actor: float = 1.0,
                   gpus_per_actor: float = 0.0,
                   batch_size: int = 1000, delimiter: str = "  ",
                   user_dict: Union[None, str, Sequence[str]] = None, user_dict_mode: str = "force",
                   nlp_batch_size: int = 256, retries: int = 2, num_cpus: Optional[int] = None,
                   progress: bool = True) -> Summary:
    """Segment every input file into `output_dir` on Ray (see the module docstring).

    input_path: a file, a folder or a glob pattern, local or a URI (s3://, gs://, hdfs://).
    output_dir: a folder, local or a URI. address: an existing Ray cluster ("auto",
    "ray://host:10001"), or None to start Ray locally. actors: actors in the pool.
    cpus_per_actor: CPUs each actor gets (its torch threads). gpus_per_actor: GPUs each actor
    gets (0 = CPU). batch_size: lines per chunk (one actor
    call). retries: times a chunk that raises is tried again in its actor (an actor that dies
    is restarted by Ray and its chunks run again).
    RETURNS (Summary): files segmented, skipped and failed (each with its coded error), lines,
        characters, seconds.
    """
    try:
        import pyarrow.fs as pafs
        import ray
    except ImportError as e:
        raise ImportError(Errors.E070.format(error=e)) from None
    user_dicts = [str(user_dict)] if isinstance(user_dict, (str, Path)) else [str(d) for d in (user_dict or [])]
    for name, value in (("actors", actors), ("batch_size", batch_size), ("nlp_batch_size", nlp_batch_size)):
        if not 1 <= value <= 2**31 - 1:
            raise ValueError(Errors.E047.format(name=name, value=value))
    if not cpus_per_actor > 0:
        raise ValueError(Errors.E093.format(value=cpus_per_actor))
    check_locations(input_path, output_dir)
    files = find_inputs(input_path, output_dir)
    check_outputs_are_not_inputs(output_dir, files)
    settings = settings_identity(delimiter, user_dicts, user_dict_mode)
    identity = model_identity(model)
    in_fs, _ = filesystem_of(input_path)
    out_fs, out_root = filesystem_of(output_dir)
    out_root = out_root.rstrip("/")
    manifest = read_manifest(out_fs, out_root)
    summary = Summary()
    todo = []
    for file in files:
        if is_done(manifest.get(file.relative), file, identity, settings, out_fs):
            summary.skipped.append(file.relative)
        else:
            todo.append(file)
    if not todo:
        return summary
    start = time.perf_counter()
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                 ignore_reinit_error=True)
    staging = f"{out_root}/{STAGING_NAME}/{uuid.uuid4().hex}"
    try:
        ray.data.DataContext.get_current().enable_progress_bars = progress
        # reading and writing parts are I/O: they take no CPU from the actors (with every CPU
        # given to actors, tasks that asked for one would never be scheduled)
        dataset = ray.data.read_datasource(line_chunks_datasource([f.source for f in todo], in_fs, batch_size),
                                           num_cpus=0)
        segmented = dataset.map_batches(
            SegmentActor,
            fn_constructor_args=(model, delimiter, user_dicts, user_dict_mode, nlp_batch_size, retries,
                                 gpus_per_actor > 0),
            batch_size=1,
            compute=ray.data.ActorPoolStrategy(size=actors),
            num_cpus=cpus_per_actor,
            num_gpus=gpus_per_actor or None,
        )
        sink = parts_sink(staging, out_fs)
        segmented.write_datasink(sink, ray_remote_args={"num_cpus": 0})
        ready = _finished_files(todo, sink.records, summary)
        commit = ray.remote(num_cpus=0)(commit_file)
        sizes = ray.get([commit.remote(out_fs, staging, index, n, todo[index].target, todo[index].gzipped)
                         for index, n in ready])
        for (index, _), size in zip(ready, sizes):
            manifest[todo[index].relative] = {"source": todo[index].identity(), "model": identity,
                                              "settings": settings, "output_size": size}
        failed = {relative for relative, _ in summary.failed}
        for file in todo:  # a failed file has no output: not a stale one from an earlier run either
            if file.relative in failed:
                manifest.pop(file.relative, None)
                if out_fs.get_file_info(file.target).type == pafs.FileType.File:
                    out_fs.delete_file(file.target)
        summary.files = len(ready)
        write_manifest(out_fs, out_root, manifest)
    finally:
        _remove_staging(out_fs, staging)
        if started_here:
            ray.shutdown()
    summary.seconds = time.perf_counter() - start
    return summary


def _remove_staging(fs: Any, staging: str) -> None:
    """Remove this run's parts (and the staging folder when no other run has parts there)."""
    import pyarrow.fs as pafs

    base = staging.rsplit("/", 1)[0]
    for path in (staging, base):
        if fs.get_file_info(path).type == pafs.FileType.Directory and (
                path == staging or not fs.get_file_info(pafs.FileSelector(path))):
            fs.delete_dir(path)


def _finished_files(todo: Sequence[CorpusFile], records: Sequence[Dict[str, Any]], summary: Summary) -> List[Tuple[int, int]]:
    """The files whose every chunk was written exactly once: (index, number of chunks); the
    others go to `summary.failed` with their coded error (E015 bad line, E069 a chunk missing)."""
    chunks: Dict[int, List[int]] = defaultdict(list)
    ends: Dict[int, Tuple[int, Optional[str]]] = {}
    seen = set()
    for r in records:
        if (r["file"], r["chunk"]) in seen:  # a chunk written twice (a retried task): one part, counted once
            continue
        seen.add((r["file"], r["chunk"]))
        if r["chunk"] >= 0:
            chunks[r["file"]].append(r["chunk"])
            summary.lines += r["lines"]
            summary.chars += r["chars"]
            summary.retries += r["retries"]
        else:
            ends[r["file"]] = (r["n_chunks"], r["error"])
    ready = []
    for index, file in enumerate(todo):
        n, error = ends.get(index, (-1, None))
        got = sorted(chunks.get(index, []))
        if error:
            summary.failed.append((file.relative, error))
        elif n < 0 or got != list(range(n)):
            summary.failed.append((file.relative, Errors.E069.format(path=file.source, chunk=len(got), what="missing")))
        else:
            ready.append((index, n))
    return ready
