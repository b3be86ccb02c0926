"""`segment`: files or stdin/stdout, one output line per input line."""
import sys
from pathlib import Path
from typing import Optional

import spacy
import typer
from tqdm import tqdm
from wasabi import msg

from ..segment import read_text_lines, segment_lines, write_segmented
from ._app import app


@app.command("segment")
def segment_cli(
    model: str = typer.Argument(..., help="Pipeline name or path, e.g. zh_gdcws"),
    input_path: Optional[Path] = typer.Argument(None, help="UTF-8 text file; '-' or nothing for stdin"),
    output_path: Optional[Path] = typer.Argument(None, help="Output file; nothing for stdout"),
    delimiter: str = typer.Option("  ", "--delimiter", "-d", help="Between words (SIGHAN: two spaces)"),
    batch_size: int = typer.Option(256, "--batch-size", "-b", help="Lines per nlp.pipe batch"),
    n_process: int = typer.Option(1, "--n-process", "-n", help="Processes (CPU only)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", "-g", help="GPU id, -1 for CPU"),
) -> None:
    """Segment text line by line. Every input line, empty ones included, gives
    exactly one output line: the words separated by the delimiter."""
    if gpu_id >= 0:
        spacy.require_gpu(gpu_id)
    nlp = spacy.load(model)
    lines = read_text_lines(input_path)
    show = output_path is not None and sys.stderr.isatty()
    docs = tqdm(segment_lines(nlp, lines, batch_size, n_process), total=len(lines), disable=not show, unit="line")
    if output_path is None:
        write_segmented(docs, sys.stdout, delimiter)
        return
    output_path.parent.mkdir(parents=True, exist_ok=True)
    with output_path.open("w", encoding="utf8") as out:
        n = write_segmented(docs, out, delimiter)
    msg.good(f"{n} lines -> {output_path}")
