"""Train a config with the code at a git ref and with this checkout's, several seeds
each, the same steps, and score every run's model-best on a test file with the
official scorer (#50: "a model trained with the new path scores within 0.15 F of
the old path's on SXU test, same steps, three seeds each").

    python research/scripts/old_new_seeds.py --compare 0baa858 --config fast --seeds 0 1 2 \\
        --steps 3000 --corpus sxu --output research/metrics/train_speed/old_new_seeds_fast.json

Each run is `python -m spacy train` in a process of its own, the old code first
on `PYTHONPATH` (unpacked with `git archive`; the checkout is left alone), with
the ref's own config file; runs go one after another (wall-clock seconds are
recorded, but compare speeds with `research/benchmarks/train_speed.py`). Every
model is scored by this checkout's `evaluate` (prediction is the same code for
both), with the training words as the scorer's dictionary.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "research" / "benchmarks"))
from train_speed import unpack  # noqa: E402  (the code at a git ref, unpacked)


def train(code: Path, config: str, corpus: Path, seed: int, steps: int, output: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(code) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, "-m", "spacy", "train", str(code / "spacy_gdcws" / "configs" / f"{config}.cfg"),
               "--output", str(output), "--paths.train", str(corpus / "train.spacy"),
               "--paths.dev", str(corpus / "dev.spacy"), "--paths.curve", str(output / "curve.jsonl"),
               "--system.seed", str(seed), "--training.max_steps", str(steps)]
    output.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with (output.parent / f"{output.name}.log").open("w") as log:
        subprocess.run(command, check=True, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=str(code))
    return time.perf_counter() - start


def score(model: Path, corpus: Path, output: Path) -> dict:
    metrics = output / "test.json"
    subprocess.run([sys.executable, "-m", "spacy_gdcws", "evaluate", str(model), str(corpus / "test_gold.txt"),
                    str(corpus / "words.txt"), "--output", str(metrics), "--pred-output", str(output / "test.txt")],
                   check=True, capture_output=True, cwd=str(ROOT))
    return json.loads(metrics.read_text(encoding="utf8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compare", required=True, metavar="REF")
    parser.add_argument("--config", default="fast")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--corpus", default="sxu", help="corpus/NAME with train/dev .spacy, test_gold.txt, words.txt")
    parser.add_argument("--runs", type=Path, default=ROOT / "training" / "old_new_seeds")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--reuse", action="store_true", help="keep the runs an earlier call finished")
    args = parser.parse_args()
    corpus = ROOT / "corpus" / args.corpus
    args.runs = args.runs.resolve()  # the runs go in the code's folder
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        codes = {"old": unpack(args.compare, Path(tmp)), "new": ROOT}
        for seed in args.seeds:
            for label, code in codes.items():
                out = args.runs / f"{args.corpus}.{args.config}.{label}.s{seed}"
                done = out / "seconds.json"
                if args.reuse and done.exists():  # a finished run of an earlier call
                    seconds = json.loads(done.read_text())["seconds"]
                else:
                    seconds = train(code, args.config, corpus, seed, args.steps, out)
                    done.write_text(json.dumps({"seconds": seconds}))
                metrics = score(out / "model-best", corpus, out)
                # the Python port's F (it agrees with the official script, which prints three digits)
                runs[f"{label}.s{seed}"] = {"seconds": round(seconds, 1), "f": round(100 * metrics["python"]["f"], 3),
                                            "oov_r": round(100 * metrics["python"]["oov_recall"], 2),
                                            "official_f": metrics["official"]["f"],
                                            "scorers_agree": metrics["scorers_agree"]}
                print(label, seed, runs[f"{label}.s{seed}"]["f"], f"{seconds:.0f} s", file=sys.stderr, flush=True)
    summary = {}
    for label in ("old", "new"):
        fs = [runs[f"{label}.s{s}"]["f"] for s in args.seeds]
        summary[label] = {"f_mean": round(statistics.mean(fs), 3), "f": fs,
                          "seconds_mean": round(statistics.mean(runs[f"{label}.s{s}"]["seconds"] for s in args.seeds), 1)}
    report = {"command": " ".join([Path(sys.executable).name] + sys.argv), "compare": args.compare,
              "config": args.config, "steps": args.steps, "seeds": args.seeds, "summary": summary,
              "f_new_minus_old": round(summary["new"]["f_mean"] - summary["old"]["f_mean"], 3), "runs": runs}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
