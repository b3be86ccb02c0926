"""On how many SXU test lines do a pipeline's words change with its precision (bf16 autocast, int8
Linear layers) or against other pipelines? Each line is a text of its own (`nlp.pipe`, batches of 256).

    python research/benchmarks/agreement.py --model training/enc/sxu.fastest/model-best \\
        --others training/enc/sxu.fast_s0/model-best --output research/benchmarks/results/agreement_fastest.json
"""
import argparse
import sys
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from reports import emit  # noqa: E402
BF16 = {"components": {"segmenter": {"model": {"mixed_precision": True}}}}


def words(nlp, texts: List[str]) -> List[Tuple[str, ...]]:
    return [tuple(t.text for t in doc) for doc in nlp.pipe(texts, batch_size=256)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="the pipeline (float32 is the reference)")
    parser.add_argument("--others", nargs="*", default=[], help="other pipelines to compare with the reference")
    parser.add_argument("--sxu-test", type=Path, default=ROOT.parent / "shared" / "corpora" / "sxu" / "test.txt")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()

    import spacy

    from spacy_gdcws.app.precision import quantize_segmenter

    texts = ["".join(line.split()) for line in args.sxu_test.read_text(encoding="utf8").splitlines()]
    texts = [t for t in texts if t]
    reference = words(spacy.load(args.model), texts)
    variants: Dict[str, List[Tuple[str, ...]]] = {"bf16_autocast": words(spacy.load(args.model, config=BF16), texts)}
    int8 = spacy.load(args.model)
    quantize_segmenter(int8)
    variants["int8_linear"] = words(int8, texts)
    for other in args.others:
        variants[other] = words(spacy.load(other), texts)
    report = {
        "command": " ".join(["python"] + sys.argv), "model": args.model, "lines": len(texts),
        "lines_differing": {name: sum(a != b for a, b in zip(got, reference)) for name, got in variants.items()},
    }
    report["share_differing"] = {name: round(n / len(texts), 5) for name, n in report["lines_differing"].items()}
    emit(report, args.output)


if __name__ == "__main__":
    main()
