"""torch threads against processes for `segment` on 2 cores: the whole command's wall-clock time
(model loading included) for each (--n-process, --threads), rounds taken in turns, medians.

    python research/benchmarks/threads.py --model training/enc/sxu.idcnn/model-best \\
        --input corpus/sxu/test_raw.txt --output research/benchmarks/results/threads.json

Also checks that every setting writes the same bytes.
"""
import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reports import emit

SETTINGS = [(1, 1), (1, 2), (2, 1), (2, 2), (1, None), (2, None)]  # None: the default


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--input", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    chars = sum(len(line) for line in args.input.read_text(encoding="utf8").splitlines())
    times = {f"n_process={n} threads={t or 'default'}": [] for n, t in SETTINGS}
    outputs = {}
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for (n, t), name in zip(SETTINGS, times):
                out = Path(tmp) / f"{n}_{t}.txt"
                cmd = [sys.executable, "-m", "spacy_gdcws", "segment", args.model, str(args.input), str(out), "-n", str(n)]
                cmd += ["--threads", str(t)] if t else []
                start = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True, env=env)
                times[name].append(round(time.perf_counter() - start, 2))
                outputs[name] = out.read_bytes()
    assert len(set(outputs.values())) == 1, "settings wrote different words"
    report = {"command": "python research/benchmarks/threads.py " + " ".join(sys.argv[1:]),
              "machine": platform.platform(), "cores": len(os.sched_getaffinity(0)), "chars": chars,
              "seconds": times, "median_seconds": {k: statistics.median(v) for k, v in times.items()},
              "chars_per_second": {k: round(chars / statistics.median(v)) for k, v in times.items()},
              "identical_outputs": True}
    emit(report, args.output)


if __name__ == "__main__":
    main()
