"""`segment`: files or stdin/stdout, one output line per input line."""
import sys
from pathlib import Path
from typing import Any, Iterator, List, Optional

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app, fail, use_gpu, write_stdout
from spacy_gdcws.errors import Errors
from spacy_gdcws.io import atomic_writer, check_outputs


@app.command("segment")
def segment_cli(
    model: str = typer.Argument(..., help="Pipeline name or path, e.g. zh_gdcws"),
    input_path: Optional[Path] = typer.Argument(None, help="UTF-8 text file; '-' or nothing for stdin"),
    output_path: Optional[Path] = typer.Argument(None, help="Output file; '-' or nothing for stdout"),
    delimiter: str = typer.Option("  ", "--delimiter", "-d", help="Between words (SIGHAN: two spaces)"),
    batch_size: int = typer.Option(256, "--batch-size", "-b", help="Lines per nlp.pipe batch"),
    n_process: int = typer.Option(1, "--n-process", "-n", help="Processes (CPU only)"),
    threads: Optional[int] = typer.Option(None, "--threads", "-t", help="torch threads per process (default: the CPU cores this process may use // --n-process)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", "-g", help="GPU id, -1 for CPU"),
    precision: str = typer.Option("saved", "--precision", help="saved (as the pipeline says), fp32, bf16 (autocast) or int8 (Linear and LSTM layers of the segmenter and parser): speed and changed words in docs/speed.md"),
    user_dict: List[str] = typer.Option([], "--user-dict", "-u", help="User dictionary file, PATH or PATH:MODE (force, prefer, combine); repeatable. One word a line, jieba's 'word freq tag' or pkuseg's 'word<TAB>tag'"),
    user_dict_mode: str = typer.Option("force", "--user-dict-mode", help="Mode of words listed without one: force, prefer or combine"),
    encoding: Optional[str] = typer.Option(None, "--encoding", help="Encoding of the user dictionary files (default UTF-8, or UTF-16 by its BOM), e.g. gbk"),
    strict_dict: bool = typer.Option(False, "--strict-dict", help="Refuse a user dictionary file at its first bad line (default: leave the line out with a warning, as jieba does)"),
    granularity: Optional[str] = typer.Option(None, "--granularity", help="fine (the model's words) or coarse (merged into the general lexicon's words where the model's boundaries allow); default: the pipeline's"),
    search: bool = typer.Option(False, "--search", help="Search granularity (jieba's cut_for_search): each word preceded by the user dictionary's and general lexicon's words inside it"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no summary line on stderr"),
    fmt: str = typer.Option("words", "--format", "-f", help="words (the words), pos (word/UPOS, jieba's -p), conllu (UPOS, XPOS, heads and relations, entities in MISC as NER=B-PER; the whole pipeline) or iob2 (Universal NER's columns: ID, FORM, IOB2 entity tag)"),
    pos_sep: str = typer.Option("/", "--pos-sep", help="Between a word and its UPOS in --format pos"),
    input_format: str = typer.Option("text", "--input-format", "-i", help="text (the segmenter finds the words), words (each line's words, separated by whitespace: tagged and parsed as given) or conllu (the words of each CoNLL-U sentence, tagged and parsed as one sentence; --format conllu keeps its comments and # text)"),
) -> None:
    """Segment text line by line. Every input line, empty ones included, gives
    exactly one output line: the words separated by the delimiter (`--format pos`: each word
    with its UPOS; `--format conllu`: each line's sentences as CoNLL-U blocks, from the whole
    pipeline, entities in MISC; `--format iob2`: the same blocks in Universal NER's columns). The output file appears whole or not at all (written to a temporary file, then
    renamed). With --input-format words or conllu, the words are given: the segmenter leaves them
    as they are (Stanza's tokenize_pretokenized, UDPipe's presegmented input)."""
    from spacy_gdcws.app.precision import PRECISIONS, set_precision, set_threads
    from spacy_gdcws.app.segment import (
        INPUT_FORMATS,
        check_format,
        input_pieces,
        load_pipeline,
        set_granularity,
        write_format,
    )
    from spacy_gdcws.app.user_dicts import load_user_dicts, split_dict_spec
    from spacy_gdcws.decoding.decoder import check_granularity
    from spacy_gdcws.pipeline.subwords import add_search

    check_outputs({"OUTPUT_PATH": output_path}, {"INPUT_PATH": input_path, "MODEL": model,
                   **{f"--user-dict {spec}": split_dict_spec(spec)[0] for spec in user_dict}})
    for name, value in (("--batch-size", batch_size), ("--n-process", n_process), ("--threads", threads)):
        if value is not None and not 1 <= value <= 2**31 - 1:
            fail(Errors.E047.format(name=name, value=value))
    set_threads(threads, n_process)
    if output_path is not None and str(output_path) == "-":  # as for the input: '-' is the standard stream
        output_path = None
    use_gpu(gpu_id)
    if precision not in PRECISIONS:
        fail(Errors.E094.format(precision=precision, options=", ".join(PRECISIONS)))
    if granularity is not None:
        check_granularity(granularity)  # before loading the model
    check_format(model, fmt)  # E121, E123, E144: before loading the model
    if input_format not in INPUT_FORMATS:
        fail(Errors.E121.format(fmt=input_format, options=", ".join(INPUT_FORMATS)))
    if fmt != "words" and search:
        fail(Errors.E122)
    nlp = load_pipeline(model, words_only=fmt == "words" and input_format == "text")
    set_precision(nlp, precision)
    set_granularity(nlp, granularity)
    load_user_dicts(nlp, user_dict, user_dict_mode, encoding, strict_dict)
    if search:
        add_search(nlp)
    # a stream: memory stays flat however long the input is
    # a progress bar only on a terminal: bytes of the input read, against its size, with an ETA
    show = output_path is not None and sys.stderr.isatty() and not quiet
    docs = input_pieces(nlp, input_path, input_format, batch_size, n_process)
    if show:
        docs = with_progress(docs, input_path, input_format)
    def write(out) -> int:
        return write_format(docs, out, fmt, delimiter, pos_sep, search)

    if output_path is None:
        write_stdout(write)
        return
    with atomic_writer(output_path) as out:
        n = write(out)
    if not quiet:
        msg.good(f"{n} lines -> {output_path}")


def with_progress(pieces: Iterator[Any], input_path: Optional[Path], input_format: str) -> Iterator[Any]:
    """The pieces, with a progress bar on stderr: the input's bytes read (each piece's text and its
    line end) of its size (a file's; stdin has none: no total, no ETA)."""
    from tqdm import tqdm

    size = None
    if input_path is not None and str(input_path) != "-" and input_path.is_file() and input_format in ("text", "words"):
        size = input_path.stat().st_size
    with tqdm(total=size, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr,
              dynamic_ncols=True) as bar:
        for doc, last in pieces:
            bar.update(len(doc.text.encode("utf8")) + (1 if last else 0))
            yield doc, last
