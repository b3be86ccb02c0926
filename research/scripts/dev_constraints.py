"""Held-out dev for the parser's constrained labels (#68's optional items): one trained pipeline
scored on GSDSimp dev from raw text and from the gold words, with `constrain` off and on (the tag
pairs read off the pipeline's training file where its cfg has none: a model trained before they
were recorded).

    python research/scripts/dev_constraints.py PIPELINE TRAIN.spacy DEV.spacy --output OUT.json
"""
import argparse
import json
from pathlib import Path

import spacy
from spacy.tokens import DocBin

from spacy_gdcws.eval.ud_eval import evaluate_pipeline


def _summary(scores: dict) -> dict:
    return {where: {k: round(100 * scores[where][k]["f"], 2) for k in ("words", "upos", "xpos", "uas", "las")}
            for where in ("predicted_segmentation", "gold_segmentation")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("train", type=Path, help="the DocBin the pipeline's parser trained on")
    parser.add_argument("dev", type=Path, help="the held-out gold DocBin")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    nlp = spacy.load(args.pipeline)
    component = nlp.get_pipe("parser")
    if not component.cfg.get("tag_pairs"):
        pairs = {(t.pos_, t.tag_) for d in DocBin().from_disk(args.train).get_docs(nlp.vocab) for t in d
                 if t.tag_ and t.tag_ != "_" and t.pos_ and t.pos_ != "_"}
        component.cfg["tag_pairs"] = [list(p) for p in sorted(pairs)]
    golds = list(DocBin().from_disk(args.dev).get_docs(nlp.vocab))
    out = {}
    for constrain in (False, True):
        component.constrain = constrain
        out["constrained" if constrain else "free"] = _summary(evaluate_pipeline(nlp, golds))
        print(constrain, out["constrained" if constrain else "free"], flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"pipeline": str(args.pipeline), "dev": str(args.dev), **out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
