"""Corpus preparation (`prepare`): a known corpus (`readers.corpora`) read, brought to one annotation
and split, then written as the files the project trains and scores on.

Three steps, each its own function: `read_corpus` (the training files read and relabelled, the
treebank each sentence comes from, the dev split, the segmenter's words in the first file's
standard), `mark_parse_in` (the treebank the parser parses in, a named setting of the corpus:
`CorpusSpec.parse_in`), `write_corpus` (the DocBins and text files). The command line
(`cli.prepare`) only reports.
"""
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, List, Optional

from spacy_gdcws.errors import Errors
from spacy_gdcws.io import git_blob_id
from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.readers.corpora import CorpusSpec, resolve

#: where a sentence names its treebank (`Sentence.meta`): the file's path in the corpora folder
TREEBANK = "treebank"
#: where a sentence says its treebank is the one the parser parses in (`Sentence.meta`)
PARSE_IN = "parse_in"


@dataclass
class PreparedCorpus:
    """A corpus's sentences as the project trains on them: `train` and `dev` (the parser's and the
    scorer's words, each sentence naming its treebank), `segmenter_train` and `segmenter_dev`
    (the same sentences in the words the segmenter learns: the same objects where unchanged), and
    the gold `test`."""

    spec: CorpusSpec
    train: List[Sentence]
    dev: List[Sentence]
    segmenter_train: List[Sentence]
    segmenter_dev: List[Sentence]
    test: List[Sentence]
    messages: List[str] = field(default_factory=list)


def corpus_files(spec: CorpusSpec, corpora_dir: Path, verify: bool) -> List[Path]:
    """The corpus's files in `corpora_dir`, checked: E140 for a missing one, E120 for a fetched
    training file that is not the one its git blob id names (`verify`)."""
    names = (spec.train, spec.test, *spec.more_train, *([spec.dev] if spec.dev else []), *(f for _, f in spec.entities))
    paths = [resolve(corpora_dir, p) for p in names]
    for path in paths:
        if not path.exists():
            raise ValueError(Errors.E140.format(path=path))
    if spec.train_blob and verify and git_blob_id(paths[0]) != spec.train_blob:
        raise ValueError(Errors.E120.format(path=paths[0], found=git_blob_id(paths[0]), expected=spec.train_blob))
    return paths


def read_corpus(spec: CorpusSpec, corpora_dir: Path, dev_fraction: float = 0.1, split: str = "last",
                seed: int = 0, verify: bool = True) -> PreparedCorpus:
    """Read a corpus's files: the first training file relabelled where its spec says (pre-v2.5 GSD
    to UD v2), split into train and dev (or its own dev file), each further file relabelled and split
    on its own (every source has its dev part), the segmenter's words of the files its spec names
    in the first file's standard (`treebanks.word_standard`)."""
    from spacy_gdcws.readers import read_sentences, split_dev
    from spacy_gdcws.treebanks.relabel import relabel
    from spacy_gdcws.treebanks.word_standard import WordStandard

    corpus_files(spec, corpora_dir, verify)
    messages: List[str] = []
    sentences = from_treebank(spec.train, read_sentences(resolve(corpora_dir, spec.train), spec.fmt))
    if spec.relabel:
        places = place_names()
        sentences = [relabel(spec.relabel, sent, places) for sent in sentences]
    messages += with_entities(spec, spec.train, sentences, corpora_dir)
    if spec.dev:  # a dev file of its own: the training file is not split
        dev = from_treebank(spec.train, read_sentences(resolve(corpora_dir, spec.dev), spec.fmt))
        messages += with_entities(spec, spec.dev, dev, corpora_dir)
        train = sentences
    else:
        train, dev = split_dev(sentences, dev_fraction, split, seed)
    standard = WordStandard().learn(train) if spec.segmenter_standard else None
    segmenter_train, segmenter_dev = list(train), list(dev)
    more_relabel = dict(spec.more_relabel)
    for relative in spec.more_train:
        more = from_treebank(relative, read_sentences(resolve(corpora_dir, relative), spec.format_of(relative)))
        if relative in more_relabel:
            more = [relabel(more_relabel[relative], sent) for sent in more]
        messages += with_entities(spec, relative, more, corpora_dir)
        more_train, more_dev = split_dev(more, dev_fraction, split, seed)
        train += more_train
        dev += more_dev
        if standard is not None and relative in spec.segmenter_standard:
            more_train = [standard.convert(sent) for sent in more_train]
            more_dev = [standard.convert(sent) for sent in more_dev]
        segmenter_train += more_train
        segmenter_dev += more_dev
    test = list(read_sentences(resolve(corpora_dir, spec.test), spec.test_format))
    return PreparedCorpus(spec, train, dev, segmenter_train, segmenter_dev, test, messages)


def with_entities(spec: CorpusSpec, relative: str, sentences: List[Sentence], corpora_dir: Path) -> List[str]:
    """Give a training file's sentences the entities of the IOB2 file its spec pairs it with
    (`CorpusSpec.entities`; `treebanks.entities`), on their words as read and relabelled; RETURNS
    what came over, as a line to report (none where the spec pairs the file with nothing)."""
    from spacy_gdcws.readers.iob2 import read_iob2
    from spacy_gdcws.treebanks.entities import transfer_all

    source = dict(spec.entities).get(relative)
    if source is None:
        return []
    came, lost = transfer_all(sentences, list(read_iob2(resolve(corpora_dir, source))), source)
    return [f"{relative}: {came} entities from {source}, {lost} missing (their text differs there)"]


def mark_parse_in(prepared: PreparedCorpus) -> PreparedCorpus:
    """Mark the sentences of the treebank the parser parses in (the spec's `parse_in`: `meta`'s
    `PARSE_IN`, which `sentence_to_doc` keeps and `gdcws_parser`'s `initialize` reads), and put
    them first in the training data, where they stood when their place was the mark: the same
    training batches as before the mark."""
    parse_in = prepared.spec.parse_in
    if parse_in is None:
        return prepared
    train = prepared.train
    order = sorted(range(len(train)), key=lambda i: train[i].meta.get(TREEBANK) != parse_in)
    prepared.train = [train[i] for i in order]
    prepared.segmenter_train = [prepared.segmenter_train[i] for i in order]
    for sent in prepared.train + prepared.segmenter_train:
        if sent.meta.get(TREEBANK) == parse_in:
            sent.meta[PARSE_IN] = True
    return prepared


def write_corpus(prepared: PreparedCorpus, corpora_dir: Path, output_dir: Path) -> List[str]:
    """Write train.spacy, dev.spacy, segmenter_train.spacy, segmenter_dev.spacy (a copy where the
    segmenter's words are the same), test.spacy, test.conllu (a treebank's gold file, for
    `evaluate-ud`), words.txt (the release's training vocabulary, else the segmenter's), and
    test_gold.txt and test_raw.txt (line-aligned); RETURNS what was written, one line each."""
    from spacy_gdcws.eval.evaluate import raw_test_lines
    from spacy_gdcws.readers.writers import gold_lines, write_docbin, write_lines, write_vocabulary

    spec = prepared.spec
    output_dir.mkdir(parents=True, exist_ok=True)
    out = list(prepared.messages) + [f"train: {write_docbin(prepared.train, output_dir / 'train.spacy')} sentences",
           f"dev: {write_docbin(prepared.dev, output_dir / 'dev.spacy')} sentences"]
    for part, theirs, ours in (("train", prepared.segmenter_train, prepared.train),
                               ("dev", prepared.segmenter_dev, prepared.dev)):
        target = output_dir / f"segmenter_{part}.spacy"
        changed = sum(a is not b for a, b in zip(theirs, ours))  # `WordStandard.convert` keeps an unchanged one
        if not changed:
            shutil.copyfile(output_dir / f"{part}.spacy", target)
        else:
            out.append(f"segmenter {part}: {write_docbin(theirs, target)} sentences, {changed} in the first file's words")
    test, test_path = prepared.test, resolve(corpora_dir, spec.test)
    out.append(f"test: {write_docbin(test, output_dir / 'test.spacy')} sentences")
    if spec.test_format == "conll":  # `evaluate-ud` reads each sentence's # text as the input
        shutil.copyfile(test_path, output_dir / "test.conllu")
    dictionary = resolve(corpora_dir, spec.dictionary) if spec.dictionary else None
    if dictionary is not None and dictionary.exists():
        shutil.copyfile(dictionary, output_dir / "words.txt")
    else:  # the words the segmenter learns (the official scorer's training vocabulary)
        write_vocabulary(prepared.segmenter_train + prepared.segmenter_dev, output_dir / "words.txt")
    if spec.test_format == "sighan":  # the release's own lines (empty ones too), for line-aligned scoring
        shutil.copyfile(test_path, output_dir / "test_gold.txt")
    else:
        write_lines(output_dir / "test_gold.txt", gold_lines(test))
    raw: Optional[Path] = resolve(corpora_dir, spec.raw) if spec.raw else None
    if raw is not None and raw.exists():
        shutil.copyfile(raw, output_dir / "test_raw.txt")
    elif test and all("text" in sent.meta for sent in test):  # CoNLL-U's own text: spaces between Latin words kept
        write_lines(output_dir / "test_raw.txt", [sent.meta["text"] for sent in test])
    else:
        write_lines(output_dir / "test_raw.txt", raw_test_lines(output_dir / "test_gold.txt"))
    return out


def from_treebank(treebank: str, sentences: Iterable[Sentence]) -> List[Sentence]:
    """The sentences, each naming the treebank it comes from (`meta[TREEBANK]`: the file's path in
    the corpora folder; a dev file of its own counts as its training file's treebank), which the
    parser reads as a feature (`gdcws_parser`: one parse convention per treebank)."""
    sentences = list(sentences)
    for sent in sentences:
        sent.meta[TREEBANK] = treebank
    return sentences


def place_names() -> frozenset:
    """The words the shipped jieba dictionary tags as places or organisations (`PLACE_TAGS`): what the
    GSD conversion reads to tell a place's run of proper nouns from a person's name."""
    from spacy_gdcws.decoding.dictionary_files import read_entries, tagged_lexicon
    from spacy_gdcws.shipped import JIEBA_DICT
    from spacy_gdcws.treebanks.relabel import PLACE_TAGS

    return frozenset(w for w, (_, tag) in tagged_lexicon(read_entries(JIEBA_DICT)).items() if tag in PLACE_TAGS)
