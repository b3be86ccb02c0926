"""Ablations of the GD-Transformer on SXU, like the paper's Tables 7-9: every
variant is the CPU config with one part switched off, trained with the same
budget (steps, batch schedule, learning-rate schedule, seed), selected on dev,
scored on the test file with the official scorer.

    python research/scripts/ablations.py --steps 500 --jobs 2

Writes research/metrics/ablations/sxu.VARIANT.json, research/metrics/ablations/curves/VARIANT.jsonl
and predictions/ablations/sxu.VARIANT.txt; `research/scripts/results_table.py` turns
them into the README's ablation table. Needs `python -m spacy_gdcws prepare sxu
../shared/corpora corpus/sxu` first. Each job runs with one torch thread.
"""
import argparse
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[2]
# every ablated part is a setting of the GD encoder block
MODEL = "components.segmenter.model.encoder"

# variant -> overrides of configs/default.cfg (paper's names in the comments)
VARIANTS: Dict[str, Dict[str, str]] = {
    "full": {},
    "no_gaussian": {"gaussian": "false"},  # Table 7: without Gaussian mask
    "no_directional": {"directional": "false"},  # Table 7: without directional masks
    "plain_transformer": {  # Table 7: plain Transformer encoder (one pipeline, no masks, no HiRED)
        "gaussian": "false", "directional": "false", "forward_encoder": "false",
        "backward_encoder": "false", "hired": "false", "highway_in": "false", "highway_out": "false",
    },
    "no_hired": {"hired": "false", "highway_in": "false", "highway_out": "false"},  # Table 8
    "no_highway_in": {"highway_in": "false"},  # Table 8
    "no_highway_out": {"highway_out": "false"},  # Table 8
    "no_forward": {"forward_encoder": "false"},  # Table 9
    "no_centre": {"centre_encoder": "false"},  # Table 9
    "no_backward": {"backward_encoder": "false"},  # Table 9
}


def commands(variant: str, steps: int, config: str, extra: List[str]) -> List[List[str]]:
    out_dir = ROOT / "training" / "ablations" / variant
    train = [
        sys.executable, "-m", "spacy", "train", str(ROOT / "configs" / f"{config}.cfg"),
        "--output", str(out_dir),
        "--paths.train", str(ROOT / "corpus/sxu/train.spacy"), "--paths.dev", str(ROOT / "corpus/sxu/dev.spacy"),
        "--paths.curve", str(ROOT / "research/metrics/ablations/curves" / f"{variant}.jsonl"),
        "--training.max_steps", str(steps), "--training.optimizer.learn_rate.total_steps", str(steps),
        "--training.eval_frequency", str(max(steps // 2, 1)),
    ]
    for key, value in VARIANTS[variant].items():
        train += [f"--{MODEL}.{key}", value]
    train += extra
    evaluate = [
        sys.executable, "-m", "spacy_gdcws", "evaluate", str(out_dir / "model-best"),
        str(ROOT / "corpus/sxu/test_gold.txt"), str(ROOT / "corpus/sxu/words.txt"),
        "--raw", str(ROOT / "corpus/sxu/test_raw.txt"),
        "--output", str(ROOT / "research/metrics/ablations" / f"sxu.{variant}.json"),
        "--pred-output", str(ROOT / "predictions/ablations" / f"sxu.{variant}.txt"),
        "--perl-script", str(ROOT / "spacy_gdcws/eval/sighan_score/score"), "--name", f"sxu.{variant}",
    ]
    return [train, evaluate]


def run(variant: str, steps: int, config: str, extra: List[str]) -> int:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    log_dir = ROOT / "training" / "ablations"
    log_dir.mkdir(parents=True, exist_ok=True)
    with open(log_dir / f"{variant}.log", "w") as log:
        for cmd in commands(variant, steps, config, extra):
            code = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
            if code != 0:
                print(f"{variant}: failed ({cmd[2:4]}), see {log.name}", file=sys.stderr)
                return code
    print(f"{variant}: done", file=sys.stderr)
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=500, help="training steps of every variant (same budget)")
    parser.add_argument("--jobs", type=int, default=2, help="variants trained at once (one torch thread each)")
    parser.add_argument("--config", default="default")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    # anything else (`--section.key value`) is passed to `spacy train` for every variant
    args, overrides = parser.parse_known_args()
    with ThreadPoolExecutor(args.jobs) as pool:
        codes = list(pool.map(lambda v: run(v, args.steps, args.config, overrides), args.variants))
    sys.exit(max(codes))


if __name__ == "__main__":
    main()
