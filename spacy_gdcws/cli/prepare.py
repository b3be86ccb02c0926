"""`prepare`: a known corpus -> train/dev/test DocBins, vocabulary, gold and raw test text
(`app.prepare` reads, marks and writes; this command reports)."""
from pathlib import Path

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app


@app.command("prepare")
def prepare_cli(
    corpus: str = typer.Argument(..., help="ud_gsd_more, ud_by_sa, ud_gsdsimp_v2, ud_gsd, sxu, ud, zx, pku, msr, as, cityu or ud_gsdsimp"),
    corpora_dir: Path = typer.Argument(..., help="Folder with the corpora (release layout)"),
    output_dir: Path = typer.Argument(..., help="Where to write train/dev/test .spacy and text files"),
    dev_fraction: float = typer.Option(0.1, "--dev-fraction", help="Share of the training file for dev"),
    split: str = typer.Option("last", "--split", help="last (paper) or random"),
    seed: int = typer.Option(0, "--seed"),
    verify: bool = typer.Option(True, "--verify/--no-verify",
                                help="Check a fetched training file against its git blob id (--no-verify: a stand-in file)"),
) -> None:
    """Write train.spacy, dev.spacy (last 10% of the training file), test.spacy,
    segmenter_train.spacy and segmenter_dev.spacy (the same sentences, the words the
    segmenter learns: for ud_gsd_more, HK's, CFL's and PUD's in GSD's standard),
    words.txt (the segmenter's training vocabulary: the official one where the release has
    it), test_gold.txt and test_raw.txt (line-aligned with the gold file), and
    for a treebank test.conllu (the gold file, for `evaluate-ud`). Each training sentence
    names its treebank; those of the treebank the parser parses in (the corpus's parse_in)
    are marked as such."""
    from spacy_gdcws.app.prepare import mark_parse_in, read_corpus, write_corpus
    from spacy_gdcws.readers.corpora import get_corpus

    prepared = mark_parse_in(read_corpus(get_corpus(corpus), corpora_dir, dev_fraction, split, seed, verify))
    for line in write_corpus(prepared, corpora_dir, output_dir):
        msg.good(line)
    msg.good(f"{corpus} -> {output_dir}")
