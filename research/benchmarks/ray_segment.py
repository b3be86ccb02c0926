"""Single-process `segment` against `segment-corpus` on Ray with 1 and 2 actors, in one run.

    python research/benchmarks/ray_segment.py --model training/enc/sxu.fast/model-best \\
        --lines 50000 --output research/benchmarks/results/ray_cpu.json

The corpus: the SXU test lines (or UD test where the shared corpora are absent) repeated to
`--lines` lines, in 4 files. Reported per engine: wall-clock seconds (model loading and Ray's
start included, as a user runs the command), characters per second, seconds per million
characters, and the ratio to the single process; the outputs are checked to be identical.
"""
import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def corpus_lines(n: int):
    sxu = ROOT.parent / "shared" / "corpora" / "sxu" / "test.txt"
    if sxu.exists():
        base = ["".join(line.split()) for line in sxu.read_text(encoding="utf8").split("\n") if line.strip()]
    else:

        from spacy_gdcws.readers import read_conll

        base = ["".join(s.words) for s in read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu")]
    return [base[i % len(base)] for i in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--batch-size", type=int, default=2000)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    lines = corpus_lines(args.lines)
    chars = sum(len(line) for line in lines)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "in").mkdir()
        quarter = -(-len(lines) // 4)
        for k in range(4):
            (tmp / "in" / f"part{k}.txt").write_text("\n".join(lines[k * quarter : (k + 1) * quarter]) + "\n", encoding="utf8")
        start = time.perf_counter()
        for k in range(4):
            subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", args.model, str(tmp / "in" / f"part{k}.txt"),
                            str(tmp / "single" / f"part{k}.txt"), "-b", "256"], check=True, capture_output=True)
        results["segment"] = time.perf_counter() - start
        for actors in (1, 2):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment-corpus", args.model, str(tmp / "in"),
                            str(tmp / f"ray{actors}"), "--actors", str(actors), "--batch-size", str(args.batch_size)],
                           check=True, capture_output=True)
            results[f"ray_{actors}_actors"] = time.perf_counter() - start
            for k in range(4):
                same = (tmp / f"ray{actors}" / f"part{k}.txt").read_bytes() == (tmp / "single" / f"part{k}.txt").read_bytes()
                assert same, f"ray with {actors} actors differs from segment on part{k}.txt"
    report = {
        "command": " ".join([Path(sys.executable).name] + sys.argv), "machine": platform.platform(), "lines": len(lines),
        "chars": chars,
        "engines": {name: {"seconds": round(s, 2), "chars_per_second": round(chars / s),
                           "seconds_per_million_chars": round(s / chars * 1e6, 1),
                           "x_segment": round(results["segment"] / s, 3)} for name, s in results.items()},
        "outputs_identical": True,
    }
    print(json.dumps(report, indent=2))
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
