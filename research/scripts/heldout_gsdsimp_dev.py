"""Write the main job's DocBins less GSDSimp dev, and GSDSimp dev alone, for choosing the
second stage's training data and config on dev text the tagger and parser never saw.

    python research/scripts/heldout_gsdsimp_dev.py corpus/ud_gsd_more

`prepare ud_gsd_more` writes GSD train's first 90% (3,597 sentences), then GSDSimp dev's first 450,
then HK's, CFL's and PUD's first 90% to train.spacy, and the last 10% of each, in the same order, to
dev.spacy (GSD's 400, GSDSimp's 50, …). This writes, beside them, `train_nogsdsimp.spacy` and
`dev_nogsdsimp.spacy` (without GSDSimp dev's docs) and `gsdsimp_dev.spacy` (the 500 GSDSimp dev
sentences, from `assets/`). `research/metrics/main_job/pipeline_design/trees/README.md` uses them.
With `--gsd-weight N` (N > 1) it also writes `train_nogsdsimp_gsdN.spacy`, GSD train's docs N times
(spaCy shuffles the training examples every epoch): a training-data weighting to compare on dev.
"""
import argparse
from pathlib import Path

import spacy
from spacy.tokens import DocBin

from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.readers.corpus import sentence_to_doc

ROOT = Path(__file__).resolve().parents[2]
GSDSIMP_DEV = ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"
GSD_TRAIN, GSD_DEV, GSDSIMP_TRAIN, GSDSIMP_HELD = 3597, 400, 450, 50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="the output folder of `prepare ud_gsd_more`")
    parser.add_argument("--gsd-weight", type=int, default=1, help="also write GSD train's docs N times")
    args = parser.parse_args()
    nlp = spacy.blank("zh")
    gold = [sentence_to_doc(nlp.vocab, s) for s in read_conll(GSDSIMP_DEV)]
    for part, start, n in (("train", GSD_TRAIN, GSDSIMP_TRAIN), ("dev", GSD_DEV, GSDSIMP_HELD)):
        docs = list(DocBin().from_disk(args.corpus / f"{part}.spacy").get_docs(nlp.vocab))
        dropped = docs[start:start + n]
        expected = gold[:GSDSIMP_TRAIN] if part == "train" else gold[GSDSIMP_TRAIN:]
        # the docs dropped are GSDSimp dev's, word for word
        assert [[t.text for t in d] for d in dropped] == [[t.text for t in d] for d in expected], part
        DocBin(docs=docs[:start] + docs[start + n:], store_user_data=True).to_disk(args.corpus / f"{part}_nogsdsimp.spacy")
        if part == "train" and args.gsd_weight > 1:
            weighted = docs[:start] * args.gsd_weight + docs[start + n:]
            DocBin(docs=weighted, store_user_data=True).to_disk(args.corpus / f"train_nogsdsimp_gsd{args.gsd_weight}.spacy")
    DocBin(docs=gold, store_user_data=True).to_disk(args.corpus / "gsdsimp_dev.spacy")
    print(f"-> {args.corpus}/train_nogsdsimp.spacy, dev_nogsdsimp.spacy, gsdsimp_dev.spacy ({len(gold)} docs)")


if __name__ == "__main__":
    main()
