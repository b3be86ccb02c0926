"""Peak memory of `segment` on files of 10k, 100k and 1M lines: it must not grow with the file.

    python research/benchmarks/long_file.py --model training/ud_gsd.idcnn.tuned/model-best \\
        --output research/benchmarks/results/long_file.json

The input is the words of UD Chinese GSD train (assets/ud_zh/train.conll, joined,
one sentence per line, or its first `--line-chars` characters) repeated up to each line count. Each size runs
`python -m spacy_gdcws segment MODEL INPUT OUTPUT` in a fresh process (the command a user
runs); reported: wall-clock seconds, characters per second, the process's peak resident
memory (ru_maxrss of the child), and a check that the output has one line per input line.
`--reader list` runs the same with the input read whole into a list first (how `segment`
read files before 2026-11-25), for the contrast.
"""
import argparse
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

from spacy_gdcws.readers.conll import read_conll

ROOT = Path(__file__).resolve().parents[2]
TREEBANK = ROOT / "assets" / "ud_zh" / "train.conll"

# `segment` with the input read into a list first (the old reader), for the contrast
LIST_READER = """
import sys
from spacy_gdcws.cli import segment as cli
from spacy_gdcws import segment as seg
cli.iter_text_lines = seg.read_text_lines
sys.argv = ["spacy-gdcws", "segment"] + sys.argv[1:]
from spacy_gdcws.cli import run
run()
"""


WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(json.loads(sys.argv[1]), check=True, stdout=subprocess.DEVNULL)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": round(seconds, 1), "peak_rss_mb": round(peak / 1024, 1)}))
"""


def make_input(path: Path, n_lines: int, line_chars: int = 0) -> int:
    """Write `n_lines` lines cycling through the UD GSD training sentences (each cut to its
    first `line_chars` characters if > 0); RETURNS characters."""
    sentences = ["".join(sent.words) for sent in read_conll(TREEBANK)]
    if line_chars > 0:
        sentences = [s[:line_chars] for s in sentences]
    n_chars = 0
    with path.open("w", encoding="utf8") as f:
        for i in range(n_lines):
            text = sentences[i % len(sentences)]
            f.write(text + "\n")
            n_chars += len(text)
    return n_chars


def run_segment(model: str, source: Path, target: Path, reader: str) -> Dict[str, float]:
    """Segment in a child process; RETURNS seconds and the child's peak RSS in MB."""
    if reader == "stream":
        command = [sys.executable, "-m", "spacy_gdcws", "segment", model, str(source), str(target)]
    else:
        command = [sys.executable, "-c", LIST_READER, model, str(source), str(target)]
    # a wrapper process per run: its children's ru_maxrss is this one command's peak alone
    wrapper = [sys.executable, "-c", WRAPPER, json.dumps(command)]
    out = subprocess.run(wrapper, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--lines", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--reader", choices=["stream", "list"], default="stream")
    parser.add_argument("--line-chars", type=int, default=0,
                        help="cut each line to this many characters (0 = whole sentences, ~39 on average)")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    rows: List[Dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sorted(args.lines):
            source, target = Path(tmp) / f"in_{n}.txt", Path(tmp) / f"out_{n}.txt"
            n_chars = make_input(source, n, args.line_chars)
            result = run_segment(args.model, source, target, args.reader)
            with target.open("rb") as f:
                n_out = sum(1 for _ in f)
            row = {"lines": n, "chars": n_chars, **result, "chars_per_second": round(n_chars / result["seconds"]),
                   "output_lines_match": n_out == n, "input_mb": round(source.stat().st_size / 2**20, 1)}
            rows.append(row)
            print(json.dumps(row), flush=True)
            source.unlink()
            target.unlink()
    record = {"command": "python " + " ".join(sys.argv), "model": args.model, "reader": args.reader,
              "line_chars": args.line_chars, "note": "seconds include loading the pipeline",
              "machine": {"python": platform.python_version(), "processor": platform.processor(),
                          "cpus": __import__("os").cpu_count()}, "runs": rows}
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(record, indent=2) + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
