"""Write the main job's DocBins less GSDSimp dev, and GSDSimp dev alone, for choosing the
second stage's training data and config on dev text the tagger and parser never saw.

    python research/scripts/heldout_gsdsimp_dev.py corpus/ud_gsd_more

`prepare ud_gsd_more` writes the first 90% of GSD train (3,597 sentences), GSDSimp dev (450), HK, CFL
and PUD to train.spacy, and the last 10% of each to dev.spacy (GSD's 400, GSDSimp's 50, …), each
sentence naming its treebank. This writes, beside them, `train_nogsdsimp.spacy` and
`dev_nogsdsimp.spacy` (without GSDSimp dev's docs, found by their treebank) and `gsdsimp_dev.spacy`
(the 500 GSDSimp dev sentences, from `assets/`). `research/metrics/main_job/pipeline_design/trees/README.md` uses them.
With `--gsd-weight N` (N > 1) it also writes `train_nogsdsimp_gsdN.spacy`, GSD train's docs N times
(spaCy shuffles the training examples every epoch): a training-data weighting to compare on dev.
With `--folds`, two-fold files for a question only GSDSimp dev's own trees can answer (how the main
job should train on them): for each half H of GSDSimp dev (A: its first 250 sentences, B: the last
250), `train_nogsdsimp_H_gsd.spacy` (H's docs named as GSD's treebank, after GSD's, as `prepare`
writes them), `train_nogsdsimp_H_own.spacy` (H's docs named as a treebank of their own and written
first, so the parser's first treebank, the one it parses in, is GSDSimp's) and
`gsdsimp_dev_not_H.spacy` (the other half, to score on); with `--own-weight N` (N > 1) also
`train_nogsdsimp_H_ownN.spacy`, H's own docs N times. With `--segmenter`, the same cut of the segmenter's
files (`segmenter_train.spacy`, `segmenter_dev.spacy`: its words in GSD's standard) to
`segmenter_{train,dev}_nogsdsimp.spacy`, for a segmenter that never saw GSDSimp dev either.
"""
import argparse
from pathlib import Path
from typing import List

import spacy
from spacy.tokens import Doc, DocBin

from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.readers.corpus import TREEBANK_KEY, sentence_to_doc

ROOT = Path(__file__).resolve().parents[2]
GSDSIMP_DEV = ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"
GSDSIMP_TRAIN = 450
# the treebank names `prepare ud_gsd_more` gives (`Sentence.meta["treebank"]`): GSD's file, GSDSimp dev's own
GSD_NAME, GSDSIMP_NAME = "ud_zh/train.conll", "ud_zh/zh_gsdsimp-ud-dev.conllu"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="the output folder of `prepare ud_gsd_more`")
    parser.add_argument("--gsd-weight", type=int, default=1, help="also write GSD train's docs N times")
    parser.add_argument("--folds", action="store_true", help="also write the two-fold files (above)")
    parser.add_argument("--own-weight", type=int, default=1, help="with --folds: also write each half's own docs N times")
    parser.add_argument("--segmenter", action="store_true", help="also cut the segmenter's files (above)")
    args = parser.parse_args()
    nlp = spacy.blank("zh")
    gold = [sentence_to_doc(nlp.vocab, s) for s in read_conll(GSDSIMP_DEV)]
    if args.segmenter:
        for part in ("train", "dev"):
            cut(nlp, gold, args.corpus, f"segmenter_{part}", part)
    for part in ("train", "dev"):
        kept = cut(nlp, gold, args.corpus, part, part)
        if part == "train":
            train = kept
            if args.gsd_weight > 1:
                gsd = [doc for doc in kept if doc.user_data.get(TREEBANK_KEY) == GSD_NAME]
                weighted = gsd * args.gsd_weight + [doc for doc in kept if doc.user_data.get(TREEBANK_KEY) != GSD_NAME]
                DocBin(docs=weighted, store_user_data=True).to_disk(args.corpus / f"train_nogsdsimp_gsd{args.gsd_weight}.spacy")
    DocBin(docs=gold, store_user_data=True).to_disk(args.corpus / "gsdsimp_dev.spacy")
    if args.folds:
        write_folds(args.corpus, train, gold, args.own_weight)
    print(f"-> {args.corpus}/train_nogsdsimp.spacy, dev_nogsdsimp.spacy, gsdsimp_dev.spacy ({len(gold)} docs)")


def cut(nlp, gold: List[Doc], corpus: Path, name: str, part: str) -> List[Doc]:
    """Write `{name}_nogsdsimp.spacy`: `{name}.spacy` without GSDSimp dev's docs (checked word for word
    against its part of `gold`). RETURNS the docs kept."""
    docs = list(DocBin().from_disk(corpus / f"{name}.spacy").get_docs(nlp.vocab))
    dropped = [doc for doc in docs if doc.user_data.get(TREEBANK_KEY) == GSDSIMP_NAME]
    kept = [doc for doc in docs if doc.user_data.get(TREEBANK_KEY) != GSDSIMP_NAME]
    expected = gold[:GSDSIMP_TRAIN] if part == "train" else gold[GSDSIMP_TRAIN:]
    assert [[t.text for t in d] for d in dropped] == [[t.text for t in d] for d in expected], name
    DocBin(docs=kept, store_user_data=True).to_disk(corpus / f"{name}_nogsdsimp.spacy")
    return kept


def write_folds(corpus: Path, train: List[Doc], gold: List[Doc], own_weight: int = 1) -> None:
    """The two-fold files of `--folds` (the module's docstring) from the training docs less GSDSimp
    dev's (`train`, GSD's first) and GSDSimp dev's 500 (`gold`)."""
    n_gsd = sum(doc.user_data.get(TREEBANK_KEY) == GSD_NAME for doc in train)
    half = len(gold) // 2
    for name, part, rest in (("A", gold[:half], gold[half:]), ("B", gold[half:], gold[:half])):
        variants = [("gsd", GSD_NAME, 1), ("own", GSDSIMP_NAME, 1)]
        if own_weight > 1:
            variants.append((f"own{own_weight}", GSDSIMP_NAME, own_weight))
        for variant, treebank, weight in variants:
            docs = [Doc(doc.vocab).from_bytes(doc.to_bytes()) for doc in part]
            for doc in docs:
                doc.user_data[TREEBANK_KEY] = treebank
            ordered = train[:n_gsd] + docs + train[n_gsd:] if variant == "gsd" else docs * weight + train
            DocBin(docs=ordered, store_user_data=True).to_disk(corpus / f"train_nogsdsimp_{name}_{variant}.spacy")
        DocBin(docs=rest, store_user_data=True).to_disk(corpus / f"gsdsimp_dev_not_{name}.spacy")
    print(f"-> {corpus}/train_nogsdsimp_{{A,B}}_{{gsd,own}}.spacy, gsdsimp_dev_not_{{A,B}}.spacy ({half} + {len(gold) - half})")


if __name__ == "__main__":
    main()
