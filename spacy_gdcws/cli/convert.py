"""`convert`: corpus files to DocBin, with the dev split and the training vocabulary."""
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, List, Optional

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app
from spacy_gdcws.io import atomic_write_bytes, atomic_write_text, check_outputs

if TYPE_CHECKING:  # the readers import spaCy: a command imports them when it runs
    from spacy_gdcws.readers import Sentence


def write_docbin(sentences: Iterable["Sentence"], path: Path) -> int:
    """Write sentences as reference docs to a .spacy file (whole or not at all), each with its
    treebank where the sentence names one (`sentence_to_doc`); RETURNS the count."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_gdcws.readers import sentence_to_doc

    nlp = spacy.blank("zh")
    db = DocBin(store_user_data=True)
    n = 0
    for sent in sentences:
        db.add(sentence_to_doc(nlp.vocab, sent))
        n += 1
    atomic_write_bytes(path, db.to_bytes())
    return n


def write_lines(path: Path, lines: Iterable[str]) -> None:
    """Write UTF-8 text, one item per line, creating the folder (whole or not at all)."""
    atomic_write_text(path, "".join(line + "\n" for line in lines))


def gold_lines(sentences: Iterable["Sentence"]) -> List[str]:
    """SIGHAN-style gold lines: the words two spaces apart."""
    return ["  ".join(s.words) for s in sentences]


def write_vocabulary(sentences: Iterable["Sentence"], path: Path) -> int:
    """Write the sorted set of words, one per line (the scorer's dictionary)."""
    words = sorted({w for s in sentences for w in s.words})
    write_lines(path, words)
    return len(words)


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
