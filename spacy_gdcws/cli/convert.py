"""`convert`: corpus files to DocBin, with the dev split and the training vocabulary."""
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app
from spacy_gdcws.io import check_outputs


@app.command("convert")
def convert_cli(
    input_path: Path = typer.Argument(..., exists=True, dir_okay=False, help="Corpus file"),
    output_path: Path = typer.Argument(..., dir_okay=False, help="Output .spacy file (train part)"),
    fmt: str = typer.Option("auto", "--format", "-f", help="auto, sighan, conll or wordpos"),
    dev_output: Optional[Path] = typer.Option(None, "--dev-output", help="Write the dev part here"),
    dev_fraction: float = typer.Option(0.1, "--dev-fraction", help="Share of sentences for dev"),
    split: str = typer.Option("last", "--split", help="last (the paper's convention) or random"),
    seed: int = typer.Option(0, "--seed", help="Seed of the random split"),
    vocab_output: Optional[Path] = typer.Option(None, "--vocab-output", help="Write the vocabulary of the whole file"),
    raw_output: Optional[Path] = typer.Option(None, "--raw-output", help="Write the text of each sentence, one per line"),
    gold_output: Optional[Path] = typer.Option(None, "--gold-output", help="Write the words of each sentence, two spaces apart"),
) -> None:
    """Convert a SIGHAN, CoNLL-U/X or word_POS file to DocBin.

    Without --dev-output the whole file goes to OUTPUT_PATH. Bad lines stop
    the conversion with file and line.
    """
    from spacy_gdcws.readers import read_sentences, split_dev
    from spacy_gdcws.readers.writers import gold_lines, write_docbin, write_lines, write_vocabulary

    check_outputs({"OUTPUT_PATH": output_path, "--dev-output": dev_output, "--vocab-output": vocab_output, "--raw-output": raw_output, "--gold-output": gold_output}, {"INPUT_PATH": input_path})
    sentences = list(read_sentences(input_path, fmt))
    if dev_output is not None:
        train, dev = split_dev(sentences, dev_fraction, split, seed)
        msg.good(f"{write_docbin(train, output_path)} train sentences -> {output_path}")
        msg.good(f"{write_docbin(dev, dev_output)} dev sentences -> {dev_output}")
    else:
        msg.good(f"{write_docbin(sentences, output_path)} sentences -> {output_path}")
    if vocab_output is not None:
        msg.good(f"{write_vocabulary(sentences, vocab_output)} words -> {vocab_output}")
    if raw_output is not None:
        write_lines(raw_output, ("".join(s.words) for s in sentences))
        msg.good(f"raw text -> {raw_output}")
    if gold_output is not None:
        write_lines(gold_output, gold_lines(sentences))
        msg.good(f"gold words -> {gold_output}")
