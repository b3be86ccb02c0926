"""One parser on the words of several segmenters: a pipeline of SEGMENTER with the `parser` of PIPELINE
(sourced), scored by `evaluate_pipeline` on held-out gold docs (raw text and gold words).

    OMP_NUM_THREADS=1 python research/scripts/swap_segmenter.py SEGMENTER PIPELINE GOLD.spacy --output OUT.json
"""
import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("segmenter", help="a saved segmenter pipeline")
    parser.add_argument("pipeline", help="a saved pipeline whose `parser` is used")
    parser.add_argument("gold", type=Path, help="gold docs (DocBin), scored from their text")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    import spacy
    from spacy.tokens import DocBin

    from spacy_gdcws.eval.ud_eval import evaluate_pipeline

    nlp = spacy.load(args.segmenter)
    nlp.add_pipe("parser", source=spacy.load(args.pipeline))
    golds = list(DocBin().from_disk(args.gold).get_docs(nlp.vocab))
    scores = evaluate_pipeline(nlp, golds)
    raw = {k: round(v["f"] * 100, 2) for k, v in scores["predicted_segmentation"].items() if isinstance(v, dict) and "f" in v}
    print(args.segmenter, raw)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"segmenter": args.segmenter, "pipeline": args.pipeline, **scores}, indent=1) + "\n",
                           encoding="utf8")


if __name__ == "__main__":
    main()
