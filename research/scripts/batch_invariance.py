"""Does a pipeline analyse a text the same whatever batch it comes in? `nlp.pipe` at batch size 1
against 256 on the same texts, at each precision of the parser (`set_precision`): the docs and
words whose text, UPOS, XPOS, relation or head differ.

    OMP_NUM_THREADS=1 python research/scripts/batch_invariance.py PIPELINE GOLD.spacy \\
        --precisions fp32 int8 --limit 300 --output research/metrics/precision/batch_invariance.json

torch's dynamic int8 quantisation scales each batch's activations by the batch's own range, so an
int8 parser's output can depend on the other sentences of its batch; float32's does not.
"""
import argparse
import json
from pathlib import Path


def analyses(docs):
    return [[(t.text, t.pos_, t.tag_, t.dep_, t.head.i) for t in doc] for doc in docs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pipeline", help="a saved pipeline (segmenter and parser)")
    parser.add_argument("gold", type=Path, help="a DocBin whose texts are analysed")
    parser.add_argument("--precisions", nargs="+", default=["fp32", "int8"])
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    import spacy
    from spacy.tokens import DocBin

    from spacy_gdcws.app.precision import set_precision

    nlp = spacy.load(args.pipeline)
    texts = [d.text for d in DocBin().from_disk(args.gold).get_docs(nlp.vocab)][: args.limit]
    out = {"pipeline": str(args.pipeline), "gold": str(args.gold), "texts": len(texts), "precisions": {}}
    for precision in args.precisions:
        set_precision(nlp, precision, components=["parser"])
        one = analyses(nlp.pipe(texts, batch_size=1))
        many = analyses(nlp.pipe(texts, batch_size=256))
        out["precisions"][precision] = {
            "docs_differing": sum(a != b for a, b in zip(one, many)),
            "words_differing": sum(x != y for a, b in zip(one, many) for x, y in zip(a, b)),
            "words": sum(map(len, one)),
        }
        print(precision, out["precisions"][precision])
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(out, indent=1) + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
