"""The driver of a corpus run: plan (inputs, manifest, model), run the Ray Data pipeline,
commit each finished file and record it in the manifest."""
import contextlib
import inspect
import logging
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from spacy_gdcws.app.corpus.files import (
    CorpusFile,
    check_locations,
    check_outputs_are_not_inputs,
    filesystem_of,
    find_inputs,
)
from spacy_gdcws.app.corpus.lock import OutputLock
from spacy_gdcws.app.corpus.manifest import (
    is_done,
    model_identity,
    read_manifest,
    settings_identity,
    write_manifest,
)
from spacy_gdcws.app.corpus.workers import (
    SegmentActor,
    commit_file,
    line_chunks_datasource,
    parts_sink,
)
from spacy_gdcws.app.segment import check_format
from spacy_gdcws.decoding.decoder import check_granularity
from spacy_gdcws.errors import Errors

# in the output folder: the parts in flight
STAGING_NAME = ".segment-corpus-parts"
# the address a Ray started here runs on: a loopback address other than 127.0.0.1, which Ray
# replaces by this machine's routable address (`ray._private.services.resolve_ip_for_localhost`)
LOOPBACK = "127.0.0.2"


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
    # where the time went: seconds of reading, segmenting and writing chunks, summed over the workers
    # (each chunk once), and the commit's wall seconds
    stages: Dict[str, float] = field(default_factory=lambda: {"read": 0.0, "segment": 0.0, "write": 0.0,
                                                                "commit": 0.0})

    @property
    def chars_per_second(self) -> float:
        return self.chars / self.seconds if self.seconds else 0.0


def segment_corpus(input_path: Union[str, Path], output_dir: Union[str, Path], model: str, *,
                   address: Optional[str] = None, actors: int = 2, cpus_per_actor: float = 1.0,
                   gpus_per_actor: float = 0.0,
                   batch_size: int = 1000, delimiter: str = "  ",
                   user_dict: Union[None, str, Sequence[str]] = None, user_dict_mode: str = "force",
                   user_dict_encoding: Optional[str] = None,
                   nlp_batch_size: int = 256, retries: int = 2, num_cpus: Optional[int] = None,
                   granularity: Optional[str] = None, progress: bool = True, fmt: str = "words",
                   pos_sep: str = "/") -> Summary:
    """Segment every input file into `output_dir` on Ray (see the module docstring).

    input_path: a file, a folder or a glob pattern, local or a URI (s3://, gs://, hdfs://).
    output_dir: a folder, local or a URI. address: an existing Ray cluster ("auto",
    "ray://host:10001"), or None to start Ray locally. actors: actors in the pool.
    cpus_per_actor: CPUs each actor gets (its torch threads). gpus_per_actor: GPUs each actor
    gets (0 = CPU). batch_size: lines per chunk (one actor
    call). retries: times a chunk that raises is tried again in its actor (an actor that dies
    is restarted by Ray and its chunks run again). granularity: "fine" or "coarse" (None: the
    pipeline's). fmt: "words", "pos" (word/UPOS, `pos_sep` between) or "conllu", as `segment
    --format` (the last two need the pipeline's tagger and parser: E123).
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
    if granularity is not None:
        check_granularity(granularity)
    check_format(model, fmt)
    check_locations(input_path, output_dir)
    files = find_inputs(input_path, output_dir)
    check_outputs_are_not_inputs(output_dir, files)
    settings = settings_identity(delimiter, user_dicts, user_dict_mode, user_dict_encoding, granularity, fmt, pos_sep)
    identity = model_identity(model)
    in_fs, _ = filesystem_of(input_path)
    out_fs, out_root = filesystem_of(output_dir)
    out_root = out_root.rstrip("/")
    try:  # an output folder that cannot be made is found now, not after segmenting
        out_fs.create_dir(out_root, recursive=True)
    except OSError as err:
        raise ValueError(Errors.E103.format(path=output_dir, message=err)) from None
    # one driver per output folder (E129 for a second); the parts a killed driver left are cleared
    with OutputLock(out_fs, out_root):
        _remove_dir(out_fs, f"{out_root}/{STAGING_NAME}")
        manifest = read_manifest(out_fs, out_root)
        summary = Summary()
        todo = []
        for file in files:
            if file.error:  # found while listing (a link to nothing): it fails alone
                summary.failed.append((file.relative, file.error))
            elif is_done(manifest.get(file.relative), file, identity, settings, out_fs, in_fs):
                summary.skipped.append(file.relative)
            else:
                todo.append(file)
        # what each input is before it is read: one gone since it was listed fails alone now (the
        # datasource needs every file), one that changes or goes while the run reads it is not
        # committed (`_unchanged`)
        before = [file.identity_now(in_fs) for file in todo]
        for file, identity_before in zip(todo, before):
            if identity_before is None:
                message = "it could not be read (gone since it was listed?)"
                summary.failed.append((file.relative, Errors.E016.format(path=file.source, message=message)))
        todo = [file for file, identity_before in zip(todo, before) if identity_before is not None]
        before = [identity_before for identity_before in before if identity_before is not None]
        if not todo:
            return summary
        start = time.perf_counter()
        started_here = not ray.is_initialized()
        if started_here:
            # a Ray of its own stays on loopback (its nodes and actors on LOOPBACK, not this machine's
            # interfaces); a cluster on a loopback address runs here: the driver joins it there
            host = _loopback_host(address)
            local = {"_node_ip_address": host or LOOPBACK} if host or not address else {}
            ray.init(address=address, num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                     ignore_reinit_error=True, logging_level=logging.INFO if progress else logging.ERROR, **local)
        staging = f"{out_root}/{STAGING_NAME}/{uuid.uuid4().hex}"
        try:
            context = ray.data.DataContext.get_current()
            context.enable_progress_bars = context.enable_operator_progress_bars = progress
            context.print_on_execution_start = progress
            if not progress:  # off a terminal Ray Data logs its progress instead of drawing bars; its errors
                # are raised here and reported once (a coded line, or the traceback of an unexpected one)
                logging.getLogger("ray.data").setLevel(logging.CRITICAL)
            # reading and writing parts are I/O: they take no CPU from the actors (with every CPU
            # given to actors, tasks that asked for one would never be scheduled)
            dataset = ray.data.read_datasource(line_chunks_datasource([f.source for f in todo], in_fs, batch_size),
                                               **_no_cpu_read_args(ray.data.read_datasource))
            segmented = dataset.map_batches(
                SegmentActor,
                fn_constructor_args=(model, delimiter, user_dicts, user_dict_mode, user_dict_encoding, granularity,
                                     nlp_batch_size, retries, gpus_per_actor > 0, fmt, pos_sep, batch_size),
                batch_size=1,
                compute=ray.data.ActorPoolStrategy(size=actors),
                num_cpus=cpus_per_actor,
                num_gpus=gpus_per_actor or None,
            )
            sink = parts_sink(staging, out_fs)
            with _write_errors_as_e103(output_dir):
                segmented.write_datasink(sink, ray_remote_args={"num_cpus": 0})
            ready = _finished_files(todo, sink.records, summary)
            ready = _unchanged(todo, ready, before, in_fs, summary)
            commit = ray.remote(num_cpus=0)(commit_file)
            committing = time.perf_counter()
            with _write_errors_as_e103(output_dir):
                sizes = ray.get([commit.remote(out_fs, staging, index, n, todo[index].target, todo[index].compression)
                                 for index, n in ready])
            summary.stages["commit"] = time.perf_counter() - committing
            for (index, _), size in zip(ready, sizes):
                manifest[todo[index].relative] = {"source": before[index], "model": identity,
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


# what a failed write of the output says, wherever Ray wraps it: the disk or the quota is full, the file
# too large, the filesystem read-only or the folder not writable (every node's writes fail alike)
_WRITE_FAILURES = ("[Errno 28]", "[Errno 122]", "[Errno 27]", "[Errno 30]", "[Errno 13]", "No space left on device",
                   "Disk quota exceeded")


@contextlib.contextmanager
def _write_errors_as_e103(output_dir: Union[str, Path]) -> Iterator[None]:
    """Turn a failed write of the output, raised on a worker and wrapped by Ray (a full disk mid-run),
    into E103 naming the output folder: nothing of the run is committed (its parts are removed), and
    the same command reruns once there is room."""
    try:
        yield
    except Exception as err:
        chain, seen = [], set()
        current: Any = err
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            chain.append(current)
            current = getattr(current, "cause", None) or current.__cause__ or current.__context__
        reason = next((c for c in chain if any(mark in str(c) for mark in _WRITE_FAILURES)), None)
        if reason is None:
            raise
        message = next((line for line in str(reason).splitlines() if any(m in line for m in _WRITE_FAILURES)),
                       str(reason))
        raise ValueError(Errors.E103.format(path=output_dir, message=message.strip())) from None


def _loopback_host(address: Optional[str]) -> Optional[str]:
    """The host of a cluster address ("127.0.0.2:6379") where it is a loopback address, else None."""
    import ipaddress

    host = (address or "").rsplit(":", 1)[0].strip("[]")
    try:
        return host if ipaddress.ip_address(host).is_loopback else None
    except ValueError:
        return None


def _unchanged(todo: Sequence[CorpusFile], ready: List[Tuple[int, int]], before: Sequence[Dict[str, Any]], in_fs: Any,
               summary: "Summary") -> List[Tuple[int, int]]:
    """The ready files whose input is as it was before the run read it; one that changed or went
    meanwhile fails alone (E130): its output would not be the segmentation of what is there."""
    kept = []
    for index, n in ready:
        if todo[index].identity_now(in_fs) == before[index]:
            kept.append((index, n))
        else:
            summary.failed.append((todo[index].relative, Errors.E130.format(path=todo[index].source)))
    return kept


def _remove_dir(fs: Any, path: str) -> None:
    """Remove a folder and what it holds, if it is there."""
    import pyarrow.fs as pafs

    if fs.get_file_info(path).type == pafs.FileType.Directory:
        fs.delete_dir(path)


def _remove_staging(fs: Any, staging: str) -> None:
    """Remove this run's parts (and the staging folder when no other run has parts there)."""
    import pyarrow.fs as pafs

    base = staging.rsplit("/", 1)[0]
    for path in (staging, base):
        if fs.get_file_info(path).type == pafs.FileType.Directory and (
                path == staging or not fs.get_file_info(pafs.FileSelector(path))):
            fs.delete_dir(path)


def _no_cpu_read_args(read_datasource: Callable[..., Any]) -> Dict[str, Any]:
    """The arguments that give read tasks no CPU: `num_cpus` where `read_datasource` takes it
    (Ray >= 2.50, where `ray_remote_args` is deprecated), else `ray_remote_args` (Ray 2.41-2.49)."""
    if "num_cpus" in inspect.signature(read_datasource).parameters:
        return {"num_cpus": 0}
    return {"ray_remote_args": {"num_cpus": 0}}


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
            for stage in ("read", "segment", "write"):
                summary.stages[stage] += r[f"{stage}_s"]
        else:
            ends[r["file"]] = (r["n_chunks"], r["error"])
    ready = []
    for index, file in enumerate(todo):
        n, error = ends.get(index, (-1, None))
        got = sorted(chunks.get(index, []))
        if error:
            summary.failed.append((file.relative, error))
        elif n < 0 or got != list(range(n)):
            if n < 0 and not got:  # not one row: the file could not be read at all
                message = "it could not be read (gone since it was listed?)"
                summary.failed.append((file.relative, Errors.E016.format(path=file.source, message=message)))
            else:
                summary.failed.append((file.relative, Errors.E069.format(path=file.source, chunk=len(got),
                                                                         what="missing")))
        else:
            ready.append((index, n))
    return ready
