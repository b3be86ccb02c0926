"""How long `spacy.load` takes in a fresh process (issue #48: "load fast").

    python research/benchmarks/load_time.py --model zh_gdcws --runs 7 \\
        --python base=/path/to/venv-without-extras/bin/python --python full=.venv/bin/python \\
        --output research/benchmarks/results/load_time.json

Each run is a new interpreter that imports spaCy, loads the pipeline and segments one line; it
reports the seconds of the imports (`import spacy`), of `spacy.load` and of the whole process
(wall clock, interpreter start included), as medians over the runs, per interpreter given
(`LABEL=PATH`; default: this one). `--block-opencc` loads with the `opencc` module unimportable.
Run nothing else on the machine meanwhile.
"""
import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

from reports import emit

CODE = """
import sys, time, json
if {block!r}:
    sys.modules["opencc"] = None
t0 = time.perf_counter()
import spacy
t1 = time.perf_counter()
nlp = spacy.load({model!r})
t2 = time.perf_counter()
words = [t.text for t in nlp("他在電視臺工作，今年３０歲。")]
print(json.dumps({{"import": t1 - t0, "load": t2 - t1, "words": words}}))
"""


def measure(python: str, model: str, runs: int, block: bool) -> Dict[str, object]:
    rows: List[Dict[str, float]] = []
    words = None
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run([python, "-c", CODE.format(model=model, block=block)], capture_output=True, text=True)
        wall = time.perf_counter() - start
        if out.returncode != 0:
            raise SystemExit(out.stderr[-2000:])
        row = json.loads(out.stdout.strip().splitlines()[-1])
        words = row.pop("words")
        rows.append({**row, "process": wall})
    return {key: round(statistics.median(r[key] for r in rows), 3) for key in ("import", "load", "process")} | {
        "runs": runs, "words": words}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--python", action="append", default=[], help="LABEL=PATH of an interpreter (repeatable)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--block-opencc", action="store_true")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    pythons = dict(p.split("=", 1) for p in args.python) or {"this": sys.executable}
    results = {label: measure(path, args.model, args.runs, args.block_opencc) for label, path in pythons.items()}
    emit({"model": args.model, "block_opencc": args.block_opencc, "command": " ".join(sys.argv),
          "pythons": pythons, "results": results}, args.output)


if __name__ == "__main__":
    main()
