"""What runs on the workers: `LineChunks` reads each file as chunks of lines, `SegmentActor`
segments them (the pipeline loaded once per actor), `PartsSink` writes each chunk as an ordered
part file, and `commit_file` concatenates a finished file's parts into its output."""
import os
import time
import uuid
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence

from spacy_gdcws.errors import Errors
from spacy_gdcws.io import atomic_write_fs, read_blocks
from spacy_gdcws.readers.base import iter_lines

# set (to a file path) by the tests: the first actor call that finds the file deletes it and
# kills its process, to show that an actor's death loses no line
CRASH_MARKER_ENV = "SPACY_GDCWS_RAY_CRASH_MARKER"


def _raw_lines(stream: Any) -> Iterator[bytes]:
    """The lines of a binary stream, "\\n" kept, read in blocks (bounded memory)."""
    rest = b""
    for block in read_blocks(stream):
        pieces = (rest + block).split(b"\n")
        rest = pieces.pop()
        for piece in pieces:
            yield piece + b"\n"
    if rest:
        yield rest


def _chunk_block(file: int, chunk: int, lines: List[str], n_chunks: int = -1, error: Optional[str] = None,
                 read_s: float = 0.0) -> Any:
    import pyarrow as pa

    return pa.table({"file": pa.array([file], pa.int64()), "chunk": pa.array([chunk], pa.int64()),
                     "n_chunks": pa.array([n_chunks], pa.int64()), "error": pa.array([error], pa.string()),
                     "lines": pa.array([lines], pa.list_(pa.string())), "read_s": pa.array([read_s], pa.float64())})


def line_chunks_datasource(paths: Sequence[str], filesystem: Any, lines_per_chunk: int) -> Any:
    """A Ray Data file datasource of the files' lines in chunks (see `LineChunks`)."""
    from ray.data.datasource import FileBasedDatasource

    class LineChunks(FileBasedDatasource):
        """Each file as rows of `lines_per_chunk` lines as `segment` reads them (BOM and line
        ends removed, empty lines kept), numbered per file, then an end row: the number of
        chunks, or the coded error of the file (E015 file:line for a line that is not UTF-8,
        E016 for a file that cannot be opened or read, e.g. deleted since it was listed)."""

        def __init__(self) -> None:
            # a file gone since it was listed is left out here and reported at the end (E016)
            super().__init__(list(paths), filesystem=filesystem, ignore_missing_paths=True)
            self._index = {os.path.normpath(p): i for i, p in enumerate(paths)}

        def _open_input_source(self, fs: Any, path: str, **open_args: Any) -> Any:
            try:
                return super()._open_input_source(fs, path, **open_args)
            except OSError as err:  # the file fails when read (an end row with its error), not the run
                return _Unreadable(Errors.E016.format(path=path, message=err))

        def _read_stream(self, f: Any, path: str) -> Iterator[Any]:
            file = self._index[os.path.normpath(path)]
            chunk, lines = 0, []
            started = time.perf_counter()  # the seconds of reading each chunk (the time breakdown)
            try:
                for _, text in iter_lines(_raw_lines(f), path):
                    lines.append(text)
                    if len(lines) == lines_per_chunk:
                        yield _chunk_block(file, chunk, lines, read_s=time.perf_counter() - started)
                        chunk, lines = chunk + 1, []
                        started = time.perf_counter()
                if lines:
                    yield _chunk_block(file, chunk, lines, read_s=time.perf_counter() - started)
                    chunk += 1
            except OSError as err:  # this file fails; the others go on
                yield _chunk_block(file, -1, [], error=Errors.E016.format(path=path, message=err))
                return
            except Exception as err:  # a coded error of a line (E015): this file fails; the others go on
                yield _chunk_block(file, -1, [], error=str(err))
                return
            yield _chunk_block(file, -1, [], n_chunks=chunk)

    return LineChunks()


class _Unreadable:
    """The stream of a file that could not be opened: reading it raises its coded error."""

    def __init__(self, error: str) -> None:
        self.error = error

    def read(self, *args: Any) -> bytes:
        raise ValueError(self.error)

    def close(self) -> None:
        pass

    def __enter__(self) -> "_Unreadable":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


class SegmentActor:
    """Loads the pipeline once per actor; segments each chunk row (`map_batches`); end rows pass."""

    def __init__(self, model: str, delimiter: str, user_dicts: Sequence[str], user_dict_mode: str,
                 user_dict_encoding: Optional[str], granularity: Optional[str],
                 nlp_batch_size: int, retries: int, gpu: bool, fmt: str = "words", pos_sep: str = "/",
                 chunk_lines: int = 1000) -> None:
        import ray
        import spacy

        from spacy_gdcws.app.precision import set_threads
        from spacy_gdcws.app.segment import load_pipeline, set_granularity
        from spacy_gdcws.app.user_dicts import load_user_dicts

        if gpu:
            spacy.require_gpu()
        # torch's threads = the CPUs Ray gave this actor (never more actors x threads than cores)
        set_threads(max(1, int(ray.get_runtime_context().get_assigned_resources().get("CPU", 1.0))))
        # the words alone for `words`; the whole pipeline (tagger and parser) for `pos` and `conllu`
        self.nlp = load_pipeline(model, words_only=fmt == "words")
        set_granularity(self.nlp, granularity)
        load_user_dicts(self.nlp, user_dicts, user_dict_mode, user_dict_encoding)  # each file in one table build
        self.delimiter = delimiter
        self.nlp_batch_size = nlp_batch_size
        self.retries = retries
        self.fmt, self.pos_sep, self.chunk_lines = fmt, pos_sep, chunk_lines

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, Any]:
        marker = os.environ.get(CRASH_MARKER_ENV)
        if marker and os.path.exists(marker):
            os.unlink(marker)
            os._exit(1)  # an actor that dies mid-run (tests)
        texts, tries, n_lines, chars, seconds = [], [], [], [], []
        for chunk, lines in zip(batch["chunk"], batch["lines"]):
            started = time.perf_counter()
            lines = [] if lines is None else list(lines)
            n_lines.append(len(lines))
            chars.append(sum(len(line) for line in lines))
            if chunk < 0:
                texts.append("")
                tries.append(0)
                seconds.append(0.0)
                continue
            for attempt in range(self.retries + 1):
                try:
                    texts.append(self._segment(lines, chunk))
                    tries.append(attempt)
                    break
                except Exception:
                    if attempt == self.retries:
                        raise
            seconds.append(time.perf_counter() - started)
        return {"file": batch["file"], "chunk": batch["chunk"], "n_chunks": batch["n_chunks"], "error": batch["error"],
                "text": texts, "lines": n_lines, "chars": chars, "retries": tries, "read_s": batch["read_s"],
                "segment_s": seconds}

    def _segment(self, lines: List[str], chunk: int = 0) -> str:
        """The chunk's lines written as `segment --format` writes them (a long line in pieces:
        `app.pieces`); CoNLL-U sentence ids number the file's lines (chunk `chunk` of `chunk_lines`)."""
        import io

        from spacy_gdcws.app.segment import segment_lines, write_format

        out = io.StringIO()
        pieces = segment_lines(self.nlp, lines, self.nlp_batch_size)
        write_format(pieces, out, self.fmt, self.delimiter, self.pos_sep, first_line=int(chunk) * self.chunk_lines + 1)
        return out.getvalue()


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
                    record = {k: row[k] for k in ("file", "chunk", "n_chunks", "error", "lines", "chars", "retries",
                                                  "read_s", "segment_s")}
                    started = time.perf_counter()
                    if row["chunk"] >= 0:
                        filesystem.create_dir(f"{staging}/{row['file']:08d}", recursive=True)
                        atomic_write_fs(filesystem, part_path(staging, row["file"], row["chunk"]),
                                      row["text"].encode("utf8"))
                    record["write_s"] = time.perf_counter() - started
                    out.append(record)
            return out

        def on_write_complete(self, write_result: Any) -> None:
            self.records = [r for returned in write_result.write_returns for r in (returned or [])]

    return PartsSink()


def commit_file(filesystem: Any, staging: str, file: int, n_chunks: int, target: str,
                compression: Optional[str]) -> int:
    """Concatenate a file's parts in order into a temporary file beside `target`, streaming,
    compressed with the input's codec, and rename it (`target` appears whole or not at all).
    RETURNS the output's size in bytes."""
    import pyarrow.fs as pafs

    parent = target.rsplit("/", 1)[0]
    filesystem.create_dir(parent, recursive=True)
    tmp = f"{parent}/.{target.rsplit('/', 1)[1]}.{uuid.uuid4().hex}.tmp"
    try:
        with filesystem.open_output_stream(tmp, compression=compression) as out:
            for chunk in range(n_chunks):
                with filesystem.open_input_stream(part_path(staging, file, chunk)) as part:
                    for block in read_blocks(part):
                        out.write(block)
        filesystem.move(tmp, target)
    except BaseException:
        if filesystem.get_file_info(tmp).type != pafs.FileType.NotFound:
            filesystem.delete_file(tmp)
        raise
    return int(filesystem.get_file_info(target).size)
