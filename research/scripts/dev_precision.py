"""A pipeline's scores on held-out gold with its parser in another precision (#68, round 3): the same
`evaluate-ud` scoring (`spacy_gdcws.eval.ud_eval.evaluate_pipeline`, each sentence's text as input) after
`set_precision(nlp, PRECISION, components=["parser"])`.

    OMP_NUM_THREADS=1 python research/scripts/dev_precision.py PIPELINE GOLD.spacy int8 --output int8.json
"""
import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("gold", type=Path)
    parser.add_argument("precision", help="saved, fp32, bf16 or int8")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    import spacy
    import torch

    from spacy_gdcws.app.precision import set_precision
    from spacy_gdcws.eval.ud_eval import evaluate_pipeline, read_gold

    torch.set_num_threads(1)
    nlp = spacy.load(args.model)
    set_precision(nlp, args.precision, components=["parser"])
    golds, texts = read_gold(args.gold, nlp.vocab)
    scores = evaluate_pipeline(nlp, golds, texts=texts)
    summary = {side: {k: round(scores[side][k]["f"] * 100, 2) for k in ("words", "upos", "xpos", "uas", "las")}
               for side in ("predicted_segmentation", "gold_segmentation")}
    report = {"model": args.model, "gold": str(args.gold), "parser_precision": args.precision, "summary": summary,
              **scores}
    args.output.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf8")
    print(json.dumps({"parser_precision": args.precision, **summary}))


if __name__ == "__main__":
    main()
