"""`segment-corpus`: files, folders or globs of text (local or cloud) segmented on Ray Data, one output file per input file."""
from typing import List, Optional

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app, fail


@app.command("segment-corpus")
def segment_corpus_cli(
    model: str = typer.Argument(..., help="Pipeline name or path, e.g. zh_gdcws (every actor loads it; on a cluster, every node needs it)"),
    input_path: str = typer.Argument(..., help="A text file (plain or .gz), a folder of them or a glob; local or s3://, gs://, hdfs://"),
    output_dir: str = typer.Argument(..., help="Output folder (local or a URI): one file per input file, same relative name"),
    address: Optional[str] = typer.Option(None, "--address", help="An existing Ray cluster: 'auto' or 'ray://host:port' (default: start Ray here)"),
    actors: int = typer.Option(2, "--actors", "-a", help="Actors in the pool (each loads the pipeline once)"),
    cpus_per_actor: float = typer.Option(1.0, "--cpus-per-actor", help="CPUs per actor (its torch threads)"),
    gpus_per_actor: float = typer.Option(0.0, "--gpus-per-actor", help="GPUs per actor (0 = CPU)"),
    batch_size: int = typer.Option(1000, "--batch-size", "-b", help="Lines per chunk (one actor call)"),
    delimiter: str = typer.Option("  ", "--delimiter", "-d", help="Between words (SIGHAN: two spaces)"),
    user_dict: List[str] = typer.Option([], "--user-dict", "-u", help="User dictionary file, PATH or PATH:MODE; repeatable (see `segment`)"),
    user_dict_mode: str = typer.Option("force", "--user-dict-mode", help="Mode of words listed without one: force, prefer or combine"),
    encoding: Optional[str] = typer.Option(None, "--encoding", help="Encoding of the user dictionary files (default UTF-8, or UTF-16 by its BOM), e.g. gbk"),
    retries: int = typer.Option(2, "--retries", help="Times a chunk that fails is tried again"),
    num_cpus: Optional[int] = typer.Option(None, "--num-cpus", help="CPUs of a local Ray (default: all)"),
    granularity: Optional[str] = typer.Option(None, "--granularity", help="fine or coarse (see `segment`); default: the pipeline's"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress (Ray Data's bars and logs) on stderr; failures are still reported"),
    fmt: str = typer.Option("words", "--format", "-f", help="words, pos (word/UPOS) or conllu (UPOS, XPOS, heads and relations; the whole pipeline), as `segment --format`"),
    pos_sep: str = typer.Option("/", "--pos-sep", help="Between a word and its UPOS in --format pos"),
) -> None:
    """Segment a corpus on Ray Data: the same lines as `segment`, byte for byte, one output
    file per input file, streamed (the driver never holds the corpus). A file is skipped when
    the output folder's manifest says it was done from the same input (size, mtime, SHA-256), model and
    settings (rerun the same command to resume); a file appears only once complete. A file
    that cannot be read is reported at the end, and the exit status is 1."""
    from spacy_gdcws.app.corpus import segment_corpus

    try:
        summary = segment_corpus(input_path, output_dir, model, address=address, actors=actors,
                                 cpus_per_actor=cpus_per_actor, gpus_per_actor=gpus_per_actor, batch_size=batch_size, delimiter=delimiter,
                                 user_dict=user_dict, user_dict_mode=user_dict_mode, user_dict_encoding=encoding,
                                 retries=retries, num_cpus=num_cpus, granularity=granularity, progress=not quiet,
                                 fmt=fmt, pos_sep=pos_sep)
    except ValueError as err:
        fail(str(err))
    if summary.skipped:
        msg.info(f"{len(summary.skipped)} file(s) already done with this model and settings, skipped")
    msg.good(f"{summary.files} file(s), {summary.lines:,} lines, {summary.chars:,} characters in "
             f"{summary.seconds:.1f} s ({summary.chars_per_second:,.0f} characters/s), {summary.retries} retried chunk(s) "
             f"-> {output_dir}")
    for relative, error in summary.failed:
        msg.fail(f"{relative}: {error}")
    if summary.failed:
        msg.fail(f"{len(summary.failed)} file(s) failed; the others are done", exits=1)
