"""Baselines on the same splits as our models, scored the same way.

    python research/scripts/baselines.py sxu ud zx --methods maxmatch jieba

Needs `python -m spacy_gdcws prepare CORPUS ../shared/corpora corpus/CORPUS` first.
Writes research/metrics/CORPUS.METHOD.json and predictions/CORPUS.METHOD.txt.

- maxmatch: forward maximum matching with the training vocabulary (corpus/CORPUS/words.txt).
- jieba: jieba 0.42 with its default dictionary and HMM, not retrained (`pip install jieba`).
- pkuseg: spacy-pkuseg 1.0 (`pip install spacy-pkuseg`) retrained with `spacy_pkuseg.train`
  (20 iterations, one thread) on exactly the sentences our models train on (corpus/CORPUS/train.spacy,
  i.e. the training file minus its last 10%), with the dev split as pkuseg's monitoring file;
  test text cut with `user_dict=None`. The model goes to training/CORPUS.pkuseg/ and is reused
  if present (`--retrain` forces training).
"""
import argparse
import time
from pathlib import Path
from typing import Callable, List

import srsly

from spacy_gdcws.app.baselines import train_pkuseg
from spacy_gdcws.eval.evaluate import evaluate_words, raw_test_lines, read_vocabulary

ROOT = Path(__file__).resolve().parents[2]


def max_match(vocabulary: set, max_len: int) -> Callable[[str], List[str]]:
    def segment(text: str) -> List[str]:
        words, i = [], 0
        chars = "".join(text.split())
        while i < len(chars):
            for n in range(min(max_len, len(chars) - i), 0, -1):
                if n == 1 or chars[i : i + n] in vocabulary:
                    words.append(chars[i : i + n])
                    i += n
                    break
        return words

    return segment


def jieba_segmenter(_: set, __: int) -> Callable[[str], List[str]]:
    import jieba

    jieba.setLogLevel(60)
    jieba.initialize()
    return lambda text: [w for w in jieba.cut(text) if w.strip()]


def train_pkuseg_model(corpus: str, retrain: bool = False) -> Path:
    """Retrain pkuseg on the corpus' training split (reused if present); RETURNS the model folder."""
    folder = ROOT / "corpus" / corpus
    model_dir = ROOT / "training" / f"{corpus}.pkuseg"
    if not ((model_dir / "weights.npz").exists() and (model_dir / "training.json").exists()) or retrain:
        train_pkuseg(folder / "train.spacy", folder / "dev.spacy", model_dir, iterations=20)
    return model_dir


def pkuseg_segmenter(corpus: str, retrain: bool) -> Callable[[str], List[str]]:
    import spacy_pkuseg

    seg = spacy_pkuseg.pkuseg(model_name=str(train_pkuseg_model(corpus, retrain)), user_dict=None)
    return lambda text: [w for w in seg.cut(text) if w.strip()]


METHODS = {"maxmatch": max_match, "jieba": jieba_segmenter, "pkuseg": pkuseg_segmenter}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="+")
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--retrain", action="store_true", help="retrain pkuseg even if a model exists")
    parser.add_argument("--perl-script", default=str(ROOT / "spacy_gdcws" / "eval" / "sighan_score" / "score"))
    args = parser.parse_args()
    for corpus in args.corpora:
        folder = ROOT / "corpus" / corpus
        gold, dictionary = folder / "test_gold.txt", folder / "words.txt"
        vocabulary = read_vocabulary(dictionary)
        max_len = min(max(len(w) for w in vocabulary), 16)
        lines = raw_test_lines(gold, folder / "test_raw.txt")
        for method in args.methods:
            if method == "pkuseg":
                segment = pkuseg_segmenter(corpus, args.retrain)
            else:
                segment = METHODS[method](vocabulary, max_len)
            start = time.perf_counter()
            predicted = [segment(line) for line in lines]
            seconds = time.perf_counter() - start
            name = f"{corpus}.{method}"
            result = evaluate_words(
                predicted, gold, dictionary, ROOT / "predictions" / f"{name}.txt", Path(args.perl_script), seconds
            )
            record = {"name": name, "model": method, "gold": str(gold), **result}
            if method == "pkuseg":
                record["training"] = srsly.read_json(ROOT / "training" / f"{corpus}.pkuseg" / "training.json")
            srsly.write_json(ROOT / "research" / "metrics" / f"{name}.json", record)
            fig = result["official"] or result["python"]
            print(f"{name}: F {fig['f']:.3f} OOV-R {fig['oov_recall']} ({result['chars_per_second']} chars/s)")


if __name__ == "__main__":
    main()
