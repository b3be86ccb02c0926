"""The driver of a corpus run, in steps: check the options (`check_options`), plan (`plan_run`: the
inputs against the manifest), run the plan on Ray Data (`run_plan`: segment, commit each finished
file) and record it in the manifest (`record_run`)."""
import contextlib
import inspect
import logging
import time
import uuid
from dataclasses import dataclass
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
from spacy_gdcws.app.corpus.session import ray_session, require_ray
from spacy_gdcws.app.corpus.summary import Summary, finished_files, unchanged
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


@dataclass
class RunOptions:
    """How a run segments: what each actor loads and writes (`SegmentActor`'s arguments), and how
    Ray runs it."""

    model: str
    delimiter: str
    user_dicts: List[str]
    user_dict_mode: str
    user_dict_encoding: Optional[str]
    granularity: Optional[str]
    nlp_batch_size: int
    retries: int
    fmt: str
    pos_sep: str
    batch_size: int
    actors: int
    cpus_per_actor: float
    gpus_per_actor: float

    def actor_args(self) -> Tuple[Any, ...]:
        return (self.model, self.delimiter, self.user_dicts, self.user_dict_mode, self.user_dict_encoding,
                self.granularity, self.nlp_batch_size, self.retries, self.gpus_per_actor > 0, self.fmt, self.pos_sep,
                self.batch_size)


@dataclass
class Plan:
    """What a run does, decided before Ray starts: the files to segment (`todo`, each with what its
    input is before it is read: `before`), and the summary so far (skipped and failed files)."""

    todo: List[CorpusFile]
    before: List[Dict[str, Any]]
    summary: Summary
    identity: Dict[str, Any]
    settings: Dict[str, Any]


def segment_corpus(input_path: Union[str, Path], output_dir: Union[str, Path], model: str, *,
                   address: Optional[str] = None, actors: int = 2, cpus_per_actor: float = 1.0,
                   gpus_per_actor: float = 0.0,
                   batch_size: int = 1000, delimiter: str = "  ",
                   user_dict: Union[None, str, Sequence[str]] = None, user_dict_mode: str = "force",
                   user_dict_encoding: Optional[str] = None,
                   nlp_batch_size: int = 256, retries: int = 2, num_cpus: Optional[int] = None,
                   granularity: Optional[str] = None, progress: bool = True, fmt: str = "words",
                   pos_sep: str = "/") -> Summary:
    """Segment every input file into `output_dir` on Ray (see the module docstring): check the
    options, plan (`plan_run`), run the plan on Ray (`run_plan`) and record it (`record_run`).

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
    require_ray()
    user_dicts = [str(user_dict)] if isinstance(user_dict, (str, Path)) else [str(d) for d in (user_dict or [])]
    options = RunOptions(model, delimiter, user_dicts, user_dict_mode, user_dict_encoding, granularity,
                         nlp_batch_size, retries, fmt, pos_sep, batch_size, actors, cpus_per_actor, gpus_per_actor)
    check_options(options)
    check_locations(input_path, output_dir)
    files = find_inputs(input_path, output_dir)
    check_outputs_are_not_inputs(output_dir, files)
    in_fs, _ = filesystem_of(input_path)
    # the model loads (E089, E024) before the output folder is made
    identity = model_identity(options.model)
    out_fs, out_root = _made_output(output_dir)
    # one driver per output folder (E129 for a second); the parts a killed driver left are cleared
    with OutputLock(out_fs, out_root):
        _remove_dir(out_fs, f"{out_root}/{STAGING_NAME}")
        manifest = read_manifest(out_fs, out_root)
        plan = plan_run(files, manifest, options, identity, in_fs, out_fs)
        if not plan.todo:
            return plan.summary
        start = time.perf_counter()
        staging = f"{out_root}/{STAGING_NAME}/{uuid.uuid4().hex}"
        with ray_session(address, num_cpus, progress):
            try:
                ready, sizes = run_plan(plan, options, staging, output_dir, in_fs, out_fs, progress)
                record_run(plan, ready, sizes, manifest, out_fs, out_root)
            finally:
                _remove_staging(out_fs, staging)
        plan.summary.seconds = time.perf_counter() - start
        return plan.summary


def _made_output(output_dir: Union[str, Path]) -> Tuple[Any, str]:
    """The output folder's filesystem and root, the folder made: one that cannot be made is E103 now,
    not after segmenting."""
    out_fs, out_root = filesystem_of(output_dir)
    out_root = out_root.rstrip("/")
    try:
        out_fs.create_dir(out_root, recursive=True)
    except OSError as err:
        raise ValueError(Errors.E103.format(path=output_dir, message=err)) from None
    return out_fs, out_root


def check_options(options: RunOptions) -> None:
    """The options' own checks, before any file is listed: counts in range (E047), CPUs per actor
    (E093), the granularity (E107) and the format the pipeline can write (E121, E123)."""
    for name in ("actors", "batch_size", "nlp_batch_size"):
        value = getattr(options, name)
        if not 1 <= value <= 2**31 - 1:
            raise ValueError(Errors.E047.format(name=name, value=value))
    if not options.cpus_per_actor > 0:
        raise ValueError(Errors.E093.format(value=options.cpus_per_actor))
    if options.granularity is not None:
        check_granularity(options.granularity)
    check_format(options.model, options.fmt)


def plan_run(files: Sequence[CorpusFile], manifest: Dict[str, Any], options: RunOptions, identity: str,
             in_fs: Any, out_fs: Any) -> Plan:
    """The files to segment: each input but those that failed while listed (a link to nothing),
    those done before with the same model (`identity`: `model_identity`) and settings (the manifest:
    skipped) and those gone since they were listed (failed alone now: the datasource needs every file
    it is given)."""
    settings = settings_identity(options.delimiter, options.user_dicts, options.user_dict_mode,
                                 options.user_dict_encoding, options.granularity, options.fmt, options.pos_sep)
    summary = Summary()
    todo = []
    for file in files:
        if file.error:
            summary.failed.append((file.relative, file.error))
        elif is_done(manifest.get(file.relative), file, identity, settings, out_fs, in_fs):
            summary.skipped.append(file.relative)
        else:
            todo.append(file)
    # what each input is before it is read: one that changes or goes while the run reads it is not
    # committed (`summary.unchanged`)
    kept, before = [], []
    for file in todo:
        identity_before = file.identity_now(in_fs)
        if identity_before is None:
            message = "it could not be read (gone since it was listed?)"
            summary.failed.append((file.relative, Errors.E016.format(path=file.source, message=message)))
        else:
            kept.append(file)
            before.append(identity_before)
    return Plan(kept, before, summary, identity, settings)


def run_plan(plan: Plan, options: RunOptions, staging: str, output_dir: Union[str, Path], in_fs: Any, out_fs: Any,
             progress: bool) -> Tuple[List[Tuple[int, int]], List[int]]:
    """Segment the plan's files on Ray Data (chunks of lines read on the workers, an actor pool,
    parts written by a datasink), then commit each file whose every chunk was written and whose
    input did not change: RETURNS the committed files (index, chunks) and their output sizes."""
    import ray

    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = context.enable_operator_progress_bars = progress
    context.print_on_execution_start = progress
    if not progress:  # off a terminal Ray Data logs its progress instead of drawing bars; its errors
        # are raised here and reported once (a coded line, or the traceback of an unexpected one)
        logging.getLogger("ray.data").setLevel(logging.CRITICAL)
    todo = plan.todo
    # reading and writing parts are I/O: they take no CPU from the actors (with every CPU given to
    # actors, tasks that asked for one would never be scheduled)
    dataset = ray.data.read_datasource(line_chunks_datasource([f.source for f in todo], in_fs, options.batch_size),
                                       **_no_cpu_read_args(ray.data.read_datasource))
    segmented = dataset.map_batches(SegmentActor, fn_constructor_args=options.actor_args(), batch_size=1,
                                    compute=ray.data.ActorPoolStrategy(size=options.actors),
                                    num_cpus=options.cpus_per_actor, num_gpus=options.gpus_per_actor or None)
    sink = parts_sink(staging, out_fs)
    with _write_errors_as_e103(output_dir):
        segmented.write_datasink(sink, ray_remote_args={"num_cpus": 0})
    ready = finished_files(todo, sink.records, plan.summary)
    ready = unchanged(todo, ready, plan.before, in_fs, plan.summary)
    commit = ray.remote(num_cpus=0)(commit_file)
    committing = time.perf_counter()
    with _write_errors_as_e103(output_dir):
        sizes = ray.get([commit.remote(out_fs, staging, index, n, todo[index].target, todo[index].compression)
                         for index, n in ready])
    plan.summary.stages["commit"] = time.perf_counter() - committing
    return ready, sizes


def record_run(plan: Plan, ready: Sequence[Tuple[int, int]], sizes: Sequence[int], manifest: Dict[str, Any],
               out_fs: Any, out_root: str) -> None:
    """The run in the manifest: each committed file with its input, model, settings and output
    size; a failed file with no output (not a stale one from an earlier run either)."""
    import pyarrow.fs as pafs

    todo = plan.todo
    for (index, _), size in zip(ready, sizes):
        manifest[todo[index].relative] = {"source": plan.before[index], "model": plan.identity,
                                          "settings": plan.settings, "output_size": size}
    failed = {relative for relative, _ in plan.summary.failed}
    for file in todo:
        if file.relative in failed:
            manifest.pop(file.relative, None)
            if out_fs.get_file_info(file.target).type == pafs.FileType.File:
                out_fs.delete_file(file.target)
    plan.summary.files = len(ready)
    write_manifest(out_fs, out_root, manifest)


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
