"""Cost of the decoding step alone: greedy against Viterbi with each prior, in one run.

    python research/benchmarks/decoding.py --model training/exp/zx.v4/model-bp --dev corpus/zx/dev.spacy

The segmenter's gap scores for the texts of `--dev` are computed once; then every setting of
(`transition_weight`, `tag_prior_weight`, `bigram_prior_weight`) decodes them (`GDSegmenter.boundaries`) `--runs`
times, and the median seconds per pass are reported per character (whitespace included), with
the ratio to greedy decoding measured in the same run. Prints one line per setting and, with
`--output`, writes them as JSON.
"""
import argparse
import json
import statistics
import time
from pathlib import Path

import spacy
from spacy.tokens import DocBin

from spacy_gdcws.pipeline.names import find_segmenter
from spacy_gdcws.app.tuning import gap_logits

SETTINGS = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (1.0, 1.0, 0.0), (0.0, 0.0, 1.0), (1.0, 1.0, 1.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--dev", type=Path, required=True, help="docs whose texts to decode (.spacy)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    nlp = spacy.load(args.model)
    segmenter = nlp.get_pipe(find_segmenter(nlp))
    texts = [doc.text for doc in DocBin().from_disk(args.dev).get_docs(nlp.vocab)]
    docs = [nlp.make_doc(text) for text in texts]
    logits = gap_logits(nlp, texts)
    n_chars = sum(len(text) for text in texts)
    rows = []
    for transition_weight, tag_prior_weight, bigram_prior_weight in SETTINGS:
        segmenter.transition_weight, segmenter.tag_prior_weight = transition_weight, tag_prior_weight
        segmenter.bigram_prior_weight = bigram_prior_weight
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            for doc, doc_logits in zip(docs, logits):
                if len(doc) > 1:
                    segmenter.decode([doc], [doc_logits])
            times.append(time.perf_counter() - start)
        seconds = statistics.median(times)
        rows.append({"transition_weight": transition_weight, "tag_prior_weight": tag_prior_weight,
                     "bigram_prior_weight": bigram_prior_weight, "seconds": round(seconds, 4), "us_per_char": round(1e6 * seconds / n_chars, 3)})
    for row in rows:
        row["x_greedy"] = round(row["seconds"] / rows[0]["seconds"], 2)
        print(f"transition {row['transition_weight']} tag prior {row['tag_prior_weight']} "
              f"bigram prior {row['bigram_prior_weight']}: "
              f"{row['us_per_char']} us/char ({row['x_greedy']}x greedy)")
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps({"model": args.model, "dev": str(args.dev), "chars": n_chars,
                                           "runs": args.runs, "settings": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
