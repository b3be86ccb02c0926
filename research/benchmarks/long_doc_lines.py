"""Whether a line's words depend on where it stands in a long document (issue #51, S5).

    python research/benchmarks/long_doc_lines.py --model training/sxu.fast/model-best \\
        --output research/benchmarks/results/long_doc_lines.json

The SXU test lines (gold words joined, 3,654 lines, 184,269 characters) are segmented one
by one, then joined by newlines into one document, repeated 1, 4 and 16 times (188k, 752k
and 3.0M characters with the newlines); for each document, the number of lines whose words
differ from the same line alone. Runs with whatever spacy_gdcws the interpreter imports, so
the same command in a venv of an earlier commit measures that commit.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import spacy
from reports import emit

ROOT = Path(__file__).resolve().parents[2]


def line_words(doc):
    """The words of each line of a doc (line-break tokens left out)."""
    out, line = [], []
    for token in doc:
        if "\n" in token.text:
            out.append(line)
            line = []
        elif not token.is_space:
            line.append(token.text)
    return out + [line]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--sxu-test", type=Path, default=ROOT.parent / "shared" / "corpora" / "sxu" / "test.txt")
    parser.add_argument("--repeats", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    nlp = spacy.load(args.model)
    nlp.max_length = 10**9
    lines = [line.replace(" ", "") for line in args.sxu_test.read_text(encoding="utf8").split("\n") if line.strip()]
    alone = [[t.text for t in doc if not t.is_space] for doc in nlp.pipe(lines, batch_size=256)]
    rows = []
    for repeats in args.repeats:
        text = "\n".join(lines * repeats)
        start = time.perf_counter()
        got = line_words(nlp(text))
        seconds = time.perf_counter() - start
        differ = sum(g != a for g, a in zip(got, alone * repeats))
        rows.append({"repeats": repeats, "characters": len(text), "lines": len(got), "lines_differ": differ,
                     "seconds": round(seconds, 2)})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    import spacy_gdcws

    report = {"command": " ".join(["python"] + sys.argv), "model": args.model, "spacy_gdcws": spacy_gdcws.__file__,
              "rows": rows}
    emit(report, args.output)


if __name__ == "__main__":
    main()
