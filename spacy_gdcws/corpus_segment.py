"""Corpus-scale segmentation on Ray Data (`python -m spacy_gdcws segment-corpus`).

Input files (plain text or gzip, one text per line) are cut into chunks of lines; a pool of
Ray actors, each loading the pipeline once, segments the chunks (`Dataset.map_batches` with a
callable class, `concurrency` actors, `num_gpus` each); the driver puts each file's chunks
back in order and writes one output file per input file, under the same relative name,
line-aligned with it (one output line per input line, empty lines kept: the `segment`
command's output, byte for byte). An output file appears only when it is complete
(written to a temporary name, then renamed), so rerunning the command skips the files that
are done (resume). A chunk whose segmentation raises is retried in its actor; an actor that
dies is restarted by Ray and its chunks run again; a chunk that is missing or arrives twice
is caught (E069) before anything is written. Without a cluster (`address` None) Ray starts
locally. Needs the `[ray]` extra: E070 without it.
"""
import gzip
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from spacy_gdcws.errors import Errors
from spacy_gdcws.io import atomic_write_bytes
from spacy_gdcws.readers.base import split_lines

# set (to a file path) by the tests: the first actor call that finds the file deletes it and
# kills its process, to show that an actor's death loses no line
CRASH_MARKER_ENV = "SPACY_GDCWS_RAY_CRASH_MARKER"


@dataclass
class CorpusFile:
    """One input file and where its output goes."""

    source: Path
    relative: str
    target: Path

    @property
    def gzipped(self) -> bool:
        return self.source.suffix == ".gz"


@dataclass
class Summary:
    """What a run did: files segmented and skipped, lines, characters, seconds, retries."""

    files: int = 0
    skipped: List[str] = field(default_factory=list)
    lines: int = 0
    chars: int = 0
    seconds: float = 0.0
    retries: int = 0

    @property
    def chars_per_second(self) -> float:
        return self.chars / self.seconds if self.seconds else 0.0


def find_inputs(input_path: Path, output_dir: Path) -> List[CorpusFile]:
    """The input files: a file, every file under a folder (sorted), or a glob pattern."""
    text = str(input_path)
    if any(c in text for c in "*?["):
        root = Path(text.split("*")[0].split("?")[0].split("[")[0]).parent
        paths = sorted(p for p in Path(root).glob(os.path.relpath(text, root)) if p.is_file())
    elif input_path.is_dir():
        root = input_path
        paths = sorted(p for p in input_path.rglob("*") if p.is_file() and not p.name.startswith("."))
    elif input_path.is_file():
        root = input_path.parent
        paths = [input_path]
    else:
        raise ValueError(Errors.E016.format(path=input_path, message="no such file, folder or pattern"))
    if not paths:
        raise ValueError(Errors.E016.format(path=input_path, message="no input files"))
    out = []
    for path in paths:
        relative = path.relative_to(root).as_posix()
        out.append(CorpusFile(path, relative, output_dir / relative))
    return out


def read_corpus_lines(file: CorpusFile) -> List[str]:
    """The lines of an input file as `segment` reads them (BOM and line ends removed,
    empty lines kept; a line that is not UTF-8 is an error naming file and line)."""
    try:
        data = file.source.read_bytes()
        if file.gzipped:
            data = gzip.decompress(data)
    except (OSError, EOFError) as err:
        raise ValueError(Errors.E016.format(path=file.source, message=err)) from err
    return [text for _, text in split_lines(data, file.source)]


def chunks(files: Sequence[CorpusFile], lines_per_chunk: int) -> Iterator[Dict[str, Any]]:
    """Rows of the dataset: a file's chunk of lines, with the file's index and the chunk's."""
    for index, file in enumerate(files):
        lines = read_corpus_lines(file)
        n_chunks = max(1, -(-len(lines) // lines_per_chunk))
        for k in range(n_chunks):
            yield {"file": index, "chunk": k, "n_chunks": n_chunks,
                   "lines": lines[k * lines_per_chunk : (k + 1) * lines_per_chunk]}


class SegmentActor:
    """Loads the pipeline once per actor; segments a batch of chunks (Ray Data `map_batches`)."""

    def __init__(self, model: str, delimiter: str, user_dicts: Sequence[str], user_dict_mode: str,
                 nlp_batch_size: int, retries: int, gpu: bool) -> None:
        import spacy

        from spacy_gdcws.segment import load_user_dicts

        if gpu:
            spacy.require_gpu()
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
        texts, tries = [], []
        for lines in batch["lines"]:
            for attempt in range(self.retries + 1):
                try:
                    texts.append(self._segment(list(lines)))
                    tries.append(attempt)
                    break
                except Exception:
                    if attempt == self.retries:
                        raise
        return {"file": batch["file"], "chunk": batch["chunk"], "n_chunks": batch["n_chunks"], "text": texts,
                "retries": tries, "chars": [sum(len(line) for line in lines) for lines in batch["lines"]]}

    def _segment(self, lines: List[str]) -> str:
        from spacy_gdcws.segment import doc_words

        out = [self.delimiter.join(doc_words(doc)) + "\n" for doc in self.nlp.pipe(lines, batch_size=self.nlp_batch_size)]
        return "".join(out)


def segment_corpus(input_path: Path, output_dir: Path, model: str, *, address: Optional[str] = None,
                   actors: int = 2, gpus_per_actor: float = 0.0, batch_size: int = 1000, delimiter: str = "  ",
                   user_dict: Union[None, str, Sequence[str]] = None, user_dict_mode: str = "force", nlp_batch_size: int = 256,
                   retries: int = 2, max_restarts: int = 3, num_cpus: Optional[int] = None,
                   progress: bool = True) -> Summary:
    """Segment every input file into `output_dir` on Ray (see the module docstring).

    input_path: a file, a folder or a glob pattern. address: an existing Ray cluster
    ("auto", "ray://host:10001"), or None to start Ray locally. actors: actors in the pool.
    gpus_per_actor: GPUs each actor gets (0 = CPU). batch_size: lines per chunk (one
    actor call). retries: times a chunk that raises is tried again in its actor.
    max_restarts: times Ray restarts an actor that died (its chunks run again).
    RETURNS (Summary): files, lines, characters, seconds, retries, files skipped (done before).
    """
    try:
        import ray
    except ImportError as e:
        raise ImportError(Errors.E070.format(error=e)) from None
    user_dicts = [user_dict] if isinstance(user_dict, (str, Path)) else list(user_dict or [])
    for name, value in (("actors", actors), ("batch_size", batch_size), ("nlp_batch_size", nlp_batch_size)):
        if not 1 <= value <= 2**31 - 1:
            raise ValueError(Errors.E047.format(name=name, value=value))
    files = find_inputs(Path(input_path), Path(output_dir))
    summary = Summary()
    todo = []
    for file in files:
        if file.target.exists():
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
    try:
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = progress
        rows = list(chunks(todo, batch_size))
        dataset = ray.data.from_items(rows, override_num_blocks=max(1, min(len(rows), 4 * actors)))
        segmented = dataset.map_batches(
            SegmentActor,
            fn_constructor_args=(model, delimiter, user_dicts, user_dict_mode, nlp_batch_size, retries, gpus_per_actor > 0),
            batch_size=1,
            concurrency=actors,
            num_gpus=gpus_per_actor,
            max_restarts=max_restarts,
            max_task_retries=-1 if max_restarts else 0,
        )
        received: Dict[int, Dict[int, str]] = {}
        for row in segmented.iter_rows():
            file_index, chunk = int(row["file"]), int(row["chunk"])
            parts = received.setdefault(file_index, {})
            if chunk in parts:
                raise RuntimeError(Errors.E069.format(path=todo[file_index].source, chunk=chunk, what="twice"))
            parts[chunk] = row["text"]
            summary.retries += int(row["retries"])
            summary.chars += int(row["chars"])
            if len(parts) == int(row["n_chunks"]):
                _write(todo[file_index], parts)
                summary.files += 1
        for index, file in enumerate(todo):
            if not file.target.exists():
                raise RuntimeError(Errors.E069.format(path=file.source, chunk=len(received.get(index, {})), what="missing"))
        summary.lines = sum(text.count("\n") for parts in received.values() for text in parts.values())
    finally:
        if started_here:
            ray.shutdown()
    summary.seconds = time.perf_counter() - start
    return summary


def _write(file: CorpusFile, parts: Dict[int, str]) -> None:
    data = "".join(parts[k] for k in range(len(parts))).encode("utf8")
    atomic_write_bytes(file.target, gzip.compress(data) if file.gzipped else data)
