"""A second dev set from the training file only: one contiguous block held out.

    python research/scripts/block_dev.py zx ../shared/corpora corpus/zx_block5 --block 5

The training file is cut into `--blocks` contiguous blocks (10: as many as the last-10% dev);
block `--block` becomes dev.spacy and, so that `python -m spacy_gdcws evaluate` and
`research/scripts/baselines.py` score on it with their usual files, also test_gold.txt / test_raw.txt /
test.spacy; the other blocks are train.spacy and their words are words.txt. The real test file is
not read. For checking on another stretch of the text what the last-10% dev shows (e.g. OOV
recall against pkuseg), without looking at the test file.
"""
import argparse
from pathlib import Path

from spacy_gdcws.readers.writers import gold_lines, write_docbin, write_lines, write_vocabulary
from spacy_gdcws.readers.corpora import get_corpus, resolve
from spacy_gdcws.readers import read_sentences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("corpora_dir", type=Path)
    parser.add_argument("output_dir", type=Path)
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--block", type=int, required=True, help="which block is held out, 0-based")
    args = parser.parse_args()
    if not 0 <= args.block < args.blocks:
        parser.error(f"--block must be in [0, {args.blocks})")
    spec = get_corpus(args.corpus)
    sentences = list(read_sentences(resolve(args.corpora_dir, spec.train), spec.fmt))
    n = len(sentences)
    start, stop = args.block * n // args.blocks, (args.block + 1) * n // args.blocks
    train, dev = sentences[:start] + sentences[stop:], sentences[start:stop]
    out = args.output_dir
    out.mkdir(parents=True, exist_ok=True)
    write_docbin(train, out / "train.spacy")
    write_docbin(dev, out / "dev.spacy")
    write_docbin(dev, out / "test.spacy")
    write_vocabulary(train, out / "words.txt")
    gold = gold_lines(dev)
    write_lines(out / "test_gold.txt", gold)
    write_lines(out / "test_raw.txt", ["".join(line.split()) for line in gold])
    print(f"{args.corpus}: block {args.block} of {args.blocks} (sentences {start}-{stop - 1} of {n}) -> {out}")


if __name__ == "__main__":
    main()
