"""`prepare`: a known corpus -> train/dev/test DocBins, vocabulary, gold and raw test text."""
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, List

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app
from spacy_gdcws.cli.convert import (
    gold_lines,
    write_docbin,
    write_lines,
    write_vocabulary,
)
from spacy_gdcws.errors import Errors
from spacy_gdcws.io import git_blob_id

if TYPE_CHECKING:  # the readers import spaCy: a command imports them when it runs
    from spacy_gdcws.readers import Sentence


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
    for a treebank test.conllu (the gold file, for `evaluate-ud`)."""
    from spacy_gdcws.eval.evaluate import raw_test_lines
    from spacy_gdcws.readers import read_sentences, split_dev
    from spacy_gdcws.readers.corpora import get_corpus, resolve
    from spacy_gdcws.treebanks.relabel import relabel
    from spacy_gdcws.treebanks.word_standard import WordStandard

    spec = get_corpus(corpus)
    train_path = resolve(corpora_dir, spec.train)
    test_path = resolve(corpora_dir, spec.test)
    more_paths = [resolve(corpora_dir, p) for p in spec.more_train]
    dev_path = resolve(corpora_dir, spec.dev) if spec.dev else None
    for path in (train_path, test_path, *more_paths, *([dev_path] if dev_path else [])):
        if not path.exists():
            msg.fail(f"Missing {path}: run `spacy project assets` or point corpora_dir at a local copy", exits=1)
    if spec.train_blob and verify and git_blob_id(train_path) != spec.train_blob:
        msg.fail(Errors.E120.format(path=train_path, found=git_blob_id(train_path), expected=spec.train_blob), exits=1)
    output_dir.mkdir(parents=True, exist_ok=True)
    sentences = _from(spec.train, read_sentences(train_path, spec.fmt))
    if spec.relabel:
        places = place_names()
        sentences = [relabel(spec.relabel, sent, places) for sent in sentences]
    if dev_path is not None:  # a dev file of its own: the training file is not split
        train, dev = list(sentences), _from(spec.train, read_sentences(dev_path, spec.fmt))
    else:
        train, dev = split_dev(sentences, dev_fraction, split, seed)
    # the segmenter's words: further files in the first file's standard where the spec says so
    standard = WordStandard().learn(train) if spec.segmenter_standard else None
    segmenter_train, segmenter_dev = list(train), list(dev)
    more_relabel = dict(spec.more_relabel)
    for relative, path in zip(spec.more_train, more_paths):  # each file split on its own: every source has its dev part
        more = _from(relative, read_sentences(path, spec.more_format))
        if relative in more_relabel:
            more = [relabel(more_relabel[relative], sent) for sent in more]
        more_train, more_dev = split_dev(more, dev_fraction, split, seed)
        train += more_train
        dev += more_dev
        if standard is not None and relative in spec.segmenter_standard:
            more_train = [standard.convert(sent) for sent in more_train]
            more_dev = [standard.convert(sent) for sent in more_dev]
        segmenter_train += more_train
        segmenter_dev += more_dev
    if spec.parse_in:  # the treebank the parser parses in leads the training data (its first treebank)
        order = sorted(range(len(train)), key=lambda i: train[i].meta.get("treebank") != spec.parse_in)
        train, segmenter_train = [train[i] for i in order], [segmenter_train[i] for i in order]
    msg.good(f"train: {write_docbin(train, output_dir / 'train.spacy')} sentences")
    msg.good(f"dev: {write_docbin(dev, output_dir / 'dev.spacy')} sentences")
    for part, (theirs, ours) in {"train": (segmenter_train, train), "dev": (segmenter_dev, dev)}.items():
        target = output_dir / f"segmenter_{part}.spacy"
        # `WordStandard.convert` returns a sentence whose words stay as it is
        changed = sum(a is not b for a, b in zip(theirs, ours))
        if not changed:  # the same sentences: the same file
            shutil.copyfile(output_dir / f"{part}.spacy", target)
        else:
            msg.good(f"segmenter {part}: {write_docbin(theirs, target)} sentences, {changed} in the first file's words")
    test = list(read_sentences(test_path, spec.test_format))
    msg.good(f"test: {write_docbin(test, output_dir / 'test.spacy')} sentences")
    if spec.test_format == "conll":
        # the gold test file itself: `evaluate-ud` reads each sentence's # text as the input
        shutil.copyfile(test_path, output_dir / "test.conllu")
    if spec.dictionary and resolve(corpora_dir, spec.dictionary).exists():
        shutil.copyfile(resolve(corpora_dir, spec.dictionary), output_dir / "words.txt")
    else:
        # the words the segmenter learns (the official scorer's training vocabulary)
        write_vocabulary(segmenter_train + segmenter_dev, output_dir / "words.txt")
    if spec.test_format == "sighan":
        # keep the release's own lines (empty ones included) for line-aligned scoring
        shutil.copyfile(test_path, output_dir / "test_gold.txt")
    else:
        write_lines(output_dir / "test_gold.txt", gold_lines(test))
    if spec.raw and resolve(corpora_dir, spec.raw).exists():
        shutil.copyfile(resolve(corpora_dir, spec.raw), output_dir / "test_raw.txt")
    elif test and all("text" in sent.meta for sent in test):
        # the sentences' own text (CoNLL-U): spaces between Latin words kept, as in real input
        write_lines(output_dir / "test_raw.txt", [sent.meta["text"] for sent in test])
    else:
        write_lines(output_dir / "test_raw.txt", raw_test_lines(output_dir / "test_gold.txt"))
    msg.good(f"{corpus} -> {output_dir}")


def _from(treebank: str, sentences: Iterable["Sentence"]) -> List["Sentence"]:
    """The sentences, each naming the treebank it comes from (`meta["treebank"]`: the file's path in
    the corpora folder; a dev file of its own counts as its training file's treebank), which the
    parser reads as a feature (`gdcws_parser`: one parse convention per treebank)."""
    sentences = list(sentences)
    for sent in sentences:
        sent.meta["treebank"] = treebank
    return sentences


def place_names() -> frozenset:
    """The words the shipped jieba dictionary tags as places or organisations (`PLACE_TAGS`): what the
    GSD conversion reads to tell a place's run of proper nouns from a person's name."""
    from spacy_gdcws.decoding.dictionary_files import read_lines, tagged_lexicon
    from spacy_gdcws.shipped import JIEBA_DICT
    from spacy_gdcws.treebanks.relabel import PLACE_TAGS

    return frozenset(w for w, (_, tag) in tagged_lexicon(read_lines(JIEBA_DICT)).items() if tag in PLACE_TAGS)
