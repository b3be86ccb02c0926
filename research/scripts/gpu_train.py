"""Train and evaluate segmenters within a wall-clock budget (made for a GPU lent
for minutes, works on CPU too).

For each corpus: a short probe run measures training steps per second with the
given config, then the real run gets `max_steps` (and the learning-rate decay)
sized so that training fits `--minutes`; model-best (selected on dev, the last
10% of the training file) is evaluated on the test file with the official
scorer. A run that overshoots is stopped at 1.25x the budget (plus a minute) and model-best, as
saved by the last improving evaluation, is evaluated.

    python research/scripts/gpu_train.py sxu --config gpu --minutes 6 --gpu-id 0 --out results/
    python research/scripts/gpu_train.py sxu --name gpu_nocentre --steps 1250 --components.segmenter.model.encoder.centre_encoder false
    python research/scripts/gpu_train.py sxu --config gpu --name gpu_part2 --steps 1500 \
        --continue-from training/gpu/sxu.gpu/model-last --total-steps 20000

With `--continue-from`, the run goes on from a saved `model-last` (another loan's): the
segmenter sourced, its training state rebuilt from the corpus and the learning-rate
schedule resumed where the run stopped (`docs/configs.md`, "Continuing a run").

Writes OUT/CORPUS.NAME.json (metrics), OUT/CORPUS.NAME.txt (predictions),
OUT/CORPUS.NAME.jsonl (learning curve), OUT/CORPUS.NAME.log (NAME: --name, or the config); copy them to
research/metrics/, predictions/, research/metrics/curves/ to report them. Needs the prepared
corpus (`python -m spacy_gdcws prepare CORPUS ../shared/corpora corpus/CORPUS`).
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parents[2]


def train_command(
    data: Path, config: str, output: Path, curve: Path, steps: int, eval_every: int, gpu_id: int, overrides: List[str],
    total_steps: Optional[int] = None,
) -> List[str]:
    """The `spacy train` command of one run: LR decays to 0 at `total_steps` (default
    `steps`); `config` is a shipped config's name or a config file; `overrides` go last."""
    path = Path(config) if config.endswith(".cfg") else ROOT / "configs" / f"{config}.cfg"
    rate = "learn_rate.schedule" if config.endswith(".cfg") else "learn_rate"
    return [
        sys.executable, "-m", "spacy", "train", str(path),
        "--output", str(output), "--paths.train", str(data / "train.spacy"), "--paths.dev", str(data / "dev.spacy"),
        "--paths.curve", str(curve), "--training.max_steps", str(steps),
        f"--training.optimizer.{rate}.total_steps", str(total_steps or steps),
        "--training.eval_frequency", str(eval_every), "--gpu-id", str(gpu_id), *overrides,
    ]


def continue_config(config: str, model_last: Path, into: Path) -> Path:
    """A config that continues a run of `config` from its saved `model-last`
    (`docs/configs.md`, "Continuing a run"): the segmenter sourced, its training
    state rebuilt, the learning-rate schedule resumed where the run stopped."""
    from thinc.api import Config

    cfg = Config().from_disk(ROOT / "configs" / f"{config}.cfg", interpolate=False)
    cfg["components"]["segmenter"] = {"source": str(model_last)}
    cfg["initialize"]["after_init"] = {"@callbacks": "spacy_gdcws.continue_training.v1"}
    cfg["training"]["optimizer"]["learn_rate"] = {"@schedules": "spacy_gdcws.resumed.v1", "model": str(model_last),
                                                  "schedule": cfg["training"]["optimizer"]["learn_rate"]}
    into.mkdir(parents=True, exist_ok=True)
    path = into / f"{config}.continue.cfg"
    cfg.to_disk(path)
    return path


def steps_per_second(curve: Path) -> float:
    """Steps per second between the last two evaluations of a probe run."""
    records = [json.loads(line) for line in curve.read_text(encoding="utf8").splitlines() if line.strip()]
    if len(records) < 3:
        raise RuntimeError(f"probe wrote {len(records)} evaluations to {curve}, need 3")
    a, b = records[-2], records[-1]
    return (b["step"] - a["step"]) / (b["seconds"] - a["seconds"])


def run_corpus(
    corpus: str, config: str, minutes: float, steps: Optional[int], gpu_id: int, out: Path, work: Path,
    eval_every: int, name: str, overrides: List[str], corpus_dir: Path, continue_from: Optional[Path] = None,
    total_steps: Optional[int] = None,
) -> None:
    """Train (after a probe if `steps` is None) and evaluate one corpus; see the module docstring."""
    name = f"{corpus}.{name}"
    data = corpus_dir / corpus
    log_path = out / f"{name}.log"
    if continue_from is not None:
        config = str(continue_config(config, continue_from, work))
    with log_path.open("w", encoding="utf8") as log:
        if steps is None:
            probe_curve = work / f"{name}.probe.jsonl"
            probe = train_command(data, config, work / f"{name}.probe", probe_curve, 60, 30, gpu_id, overrides)
            subprocess.run(probe, stdout=log, stderr=subprocess.STDOUT, check=True)
            rate = steps_per_second(probe_curve)
            steps = max(eval_every, int(rate * minutes * 60) // eval_every * eval_every)
            print(f"{name}: probe {rate:.2f} steps/s (with one evaluation) -> {steps} steps", file=sys.stderr, flush=True)
            log.write(f"# probe: {rate:.3f} steps/s -> max_steps {steps}\n")
            log.flush()
        output = work / name
        command = train_command(data, config, output, out / f"{name}.jsonl", steps, eval_every, gpu_id, overrides,
                                total_steps)
        log.write("# " + " ".join(command[1:]) + "\n")
        log.flush()
        start = time.perf_counter()
        try:
            subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=True, timeout=minutes * 60 * 1.25 + 60)
        except subprocess.TimeoutExpired:
            log.write("# stopped at 1.25x the budget: evaluating model-best\n")
        print(f"{name}: trained in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
        evaluate = [
            sys.executable, "-m", "spacy_gdcws", "evaluate", str(output / "model-best"),
            str(data / "test_gold.txt"), str(data / "words.txt"), "--raw", str(data / "test_raw.txt"),
            "--output", str(out / f"{name}.json"), "--pred-output", str(out / f"{name}.txt"),
            "--perl-script", str(ROOT / "spacy_gdcws/eval/sighan_score/score"), "--name", name, "--gpu-id", str(gpu_id),
        ]
        subprocess.run(evaluate, stdout=log, stderr=subprocess.STDOUT, check=True)
    result = [line for line in log_path.read_text(encoding="utf8").splitlines() if "OOV-R" in line]
    print(result[-1] if result else f"{name}: no result, see {log_path}", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="+")
    parser.add_argument("--config", default="gpu")
    parser.add_argument("--name", default=None, help="system name in the output files (default: the config's)")
    parser.add_argument("--minutes", type=float, nargs="+", default=[6.0], help="training budget per corpus (one value, or one per corpus)")
    parser.add_argument("--steps", type=int, nargs="+", default=None, help="max_steps per corpus (one value, or one per corpus): no probe; --minutes then only bounds the run")
    parser.add_argument("--gpu-id", type=int, default=0)
    parser.add_argument("--eval-every", type=int, default=250)
    parser.add_argument("--corpus-dir", type=Path, default=ROOT / "corpus", help="prepared corpora (CORPUS/train.spacy ...)")
    parser.add_argument("--out", type=Path, default=ROOT / "training" / "gpu_results")
    parser.add_argument("--work", type=Path, default=ROOT / "training" / "gpu")
    parser.add_argument("--continue-from", type=Path, default=None,
                        help="a run's model-last to continue (one corpus): --steps more steps, the schedule resumed")
    parser.add_argument("--total-steps", type=int, default=None,
                        help="the schedule's total steps when continuing (the run's own; default: its updates + --steps)")
    # anything else (`--section.key value`) is passed to `spacy train`
    args, overrides = parser.parse_known_args()
    minutes = args.minutes * len(args.corpora) if len(args.minutes) == 1 else args.minutes
    steps = [None] * len(args.corpora) if args.steps is None else args.steps
    steps = steps * len(args.corpora) if len(steps) == 1 else steps
    if len(minutes) != len(args.corpora) or len(steps) != len(args.corpora):
        parser.error("give one --minutes / --steps value, or one per corpus")
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.continue_from is not None and (len(args.corpora) != 1 or steps[0] is None):
        parser.error("--continue-from continues one corpus's run: give one corpus and --steps")
    total = args.total_steps
    if args.continue_from is not None and total is None:
        from spacy_gdcws.training.resume import saved_updates

        total = saved_updates(args.continue_from) + steps[0]
    for corpus, budget, max_steps in zip(args.corpora, minutes, steps):
        run_corpus(
            corpus, args.config, budget, max_steps, args.gpu_id, args.out, args.work, args.eval_every,
            args.name or args.config, overrides, args.corpus_dir, args.continue_from, total,
        )


if __name__ == "__main__":
    main()
