"""How often training shows unknown bigrams and words, against how often new text has them.

    python research/scripts/unknown_rates.py sxu ud zx --blocks 10

For each corpus (prepared in corpus/CORPUS by `python -m spacy_gdcws prepare`): the share of
gold in-word gaps and of gold word-boundary gaps whose bigram (the two characters around the
gap) is unknown, and the share of unknown words, three ways:

- dev against the training split (what the model meets in new text);
- training docs under leave-one-doc-out (`holdout_folds = 0`: a bigram / word is unknown to a
  doc when all its training occurrences lie in that doc);
- training docs under block leave-out (`holdout_folds = K`: unknown when all its occurrences lie
  in the doc's block of K contiguous blocks, in file order).

The closer a training view is to dev, the better the model's "unknown" embeddings and
dictionary features match new text. Dev only: the test file is not read.
"""
import argparse
import collections
import json
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Tuple

import spacy
from spacy.tokens import Doc, DocBin

ROOT = Path(__file__).resolve().parents[2]


def gaps(doc: Doc) -> Iterator[Tuple[str, bool]]:
    """(bigram, is a gold word boundary) for each gap between two non-space characters."""
    text = doc.text
    ends = {t.idx + len(t.text) for t in doc}
    for i in range(len(text) - 1):
        if not (text[i].isspace() or text[i + 1].isspace()):
            yield text[i : i + 2], (i + 1) in ends


def words(doc: Doc) -> List[str]:
    return [t.text for t in doc if not t.is_space]


def rates(bigram_views: Iterable[Tuple[bool, bool]], word_views: Iterable[bool]) -> Dict[str, float]:
    """Percentages of unknown bigrams at in-word / boundary gaps, and of unknown words."""
    gap_counts: collections.Counter = collections.Counter(bigram_views)
    word_counts: collections.Counter = collections.Counter(word_views)

    def share(unknown: int, known: int) -> float:
        return round(100.0 * unknown / max(unknown + known, 1), 2)

    return {
        "in_word_bigrams": share(gap_counts[(True, False)], gap_counts[(False, False)]),
        "boundary_bigrams": share(gap_counts[(True, True)], gap_counts[(False, True)]),
        "words": share(word_counts[True], word_counts[False]),
    }


def corpus_rates(folder: Path, blocks: int) -> Dict[str, Dict[str, float]]:
    """The three views of one prepared corpus folder (train.spacy, dev.spacy)."""
    vocab = spacy.blank("zh").vocab
    train = list(DocBin().from_disk(folder / "train.spacy").get_docs(vocab))
    dev = list(DocBin().from_disk(folder / "dev.spacy").get_docs(vocab))
    n = len(train)
    block = [i * blocks // n for i in range(n)]
    bigrams: collections.Counter = collections.Counter()
    vocabulary: collections.Counter = collections.Counter()
    block_bigrams = [collections.Counter() for _ in range(blocks)]
    block_words = [collections.Counter() for _ in range(blocks)]
    for doc, b in zip(train, block):
        for bigram, _ in gaps(doc):
            bigrams[bigram] += 1
            block_bigrams[b][bigram] += 1
        for word in words(doc):
            vocabulary[word] += 1
            block_words[b][word] += 1

    def one_doc_out() -> Tuple[List[Tuple[bool, bool]], List[bool]]:
        g, w = [], []
        for doc in train:
            here = collections.Counter(bigram for bigram, _ in gaps(doc))
            g += [(bigrams[bigram] <= here[bigram], boundary) for bigram, boundary in gaps(doc)]
            here_words = collections.Counter(words(doc))
            w += [vocabulary[word] <= here_words[word] for word in words(doc)]
        return g, w

    return {
        "dev": rates(((bigrams[bg] == 0, bd) for d in dev for bg, bd in gaps(d)),
                     (vocabulary[w] == 0 for d in dev for w in words(d))),
        "train_leave_one_doc_out": rates(*one_doc_out()),
        f"train_{blocks}_blocks": rates(
            ((bigrams[bg] == block_bigrams[b][bg], bd) for d, b in zip(train, block) for bg, bd in gaps(d)),
            (vocabulary[w] == block_words[b][w] for d, b in zip(train, block) for w in words(d)),
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="+")
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--corpus-dir", type=Path, default=ROOT / "corpus", help="where the prepared corpora are")
    parser.add_argument("--output", type=Path, default=None, help="write the table as JSON too")
    args = parser.parse_args()
    table = {corpus: corpus_rates(args.corpus_dir / corpus, args.blocks) for corpus in args.corpora}
    print(f"{'corpus':8s} {'view':28s} {'in-word bigrams':>16s} {'boundary bigrams':>17s} {'words':>7s}")
    for corpus, views in table.items():
        for view, r in views.items():
            print(f"{corpus:8s} {view:28s} {r['in_word_bigrams']:15.2f}% {r['boundary_bigrams']:16.2f}% "
                  f"{r['words']:6.2f}%")
    if args.output:
        args.output.write_text(json.dumps(table, indent=2) + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
