"""Train character vectors on a training corpus and write them as a spaCy vectors pipeline.

    python research/scripts/char_vectors.py corpus/sxu/train.spacy training/vectors/sxu

Reads the training docs (a DocBin from `python -m spacy_gdcws prepare`; the
dev split is not read), writes their text one doc per line with a space
between characters, trains skip-gram vectors with floret in plain fastText
mode (`pip install spacy-gdcws[vectors]`; no subwords: a character has none),
and runs `spacy init vectors` on them, so `OUTPUT/vectors` is what
`[initialize] vectors` takes (`CharEmbed.v2 vectors_width` = `--dim`). The
closed-test rule holds: the vectors see only the training text.
"""
import argparse
import subprocess
import sys
from pathlib import Path

from spacy.tokens import DocBin
from spacy.vocab import Vocab


def char_lines(docbin: Path):
    """One line per doc: its characters separated by spaces, whitespace dropped."""
    for doc in DocBin().from_disk(docbin).get_docs(Vocab()):
        chars = [c for c in doc.text if not c.isspace()]
        if chars:
            yield " ".join(chars)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("train", type=Path, help="training DocBin (corpus/NAME/train.spacy)")
    parser.add_argument("output", type=Path, help="folder for chars.txt, chars.vec and vectors/")
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--epoch", type=int, default=10)
    parser.add_argument("--window", type=int, default=5)
    parser.add_argument("--min-count", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="1: the same vectors on every run")
    args = parser.parse_args()
    try:
        import floret
    except ImportError:
        sys.exit("char_vectors.py needs floret: pip install 'spacy-gdcws[vectors]'")
    args.output.mkdir(parents=True, exist_ok=True)
    text = args.output / "chars.txt"
    with text.open("w", encoding="utf8") as f:
        for line in char_lines(args.train):
            f.write(line + "\n")
    model = floret.train_unsupervised(str(text), model="skipgram", mode="fasttext", dim=args.dim, epoch=args.epoch,
                                      ws=args.window, minCount=args.min_count, minn=0, maxn=0,
                                      thread=args.threads)
    vec = args.output / "chars.vec"
    model.save_vectors(str(vec))
    subprocess.run([sys.executable, "-m", "spacy", "init", "vectors", "zh", str(vec), str(args.output / "vectors")],
                   check=True)
    print(f"{len(model.words)} character vectors of width {args.dim} -> {args.output / 'vectors'}")


if __name__ == "__main__":
    main()
