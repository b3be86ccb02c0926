"""How fast the command line starts: `python -m spacy_gdcws --version` and `--help` in fresh
processes (median of `--runs`), and whether either imports spaCy, thinc or torch (it should not).

    python research/benchmarks/cli_start.py --output research/benchmarks/results/cli_start.json
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from reports import cpu_model, emit

# the command, then the heavy modules it loaded (-X importtime lists every import on stderr)
HEAVY = ("spacy", "thinc", "torch")



def run(args, runs: int):
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "spacy_gdcws", *args], check=True, capture_output=True)
        seconds.append(time.perf_counter() - start)
    traced = subprocess.run([sys.executable, "-X", "importtime", "-m", "spacy_gdcws", *args], check=True,
                            capture_output=True, text=True)
    loaded = sorted({line.rsplit("|", 1)[-1].strip().split(".")[0] for line in traced.stderr.splitlines()
                     if line.startswith("import time:")} & set(HEAVY))
    return {"median_s": round(statistics.median(seconds), 3), "max_s": round(max(seconds), 3), "runs": runs,
            "heavy_imports": loaded}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    emit({"command": " ".join(["python", "research/benchmarks/cli_start.py", *sys.argv[1:]]),
          "machine": f"{cpu_model()}, {os.cpu_count()} cores", "python": platform.python_version(),
          "--version": run(["--version"], args.runs), "--help": run(["--help"], args.runs)}, args.output)


if __name__ == "__main__":
    main()
