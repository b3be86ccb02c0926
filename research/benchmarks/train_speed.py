"""Training speed of each config, measured side by side in one run; with
`--compare REF`, the code at git REF against this checkout's, config by config.

    python research/benchmarks/train_speed.py --configs default san idcnn bilstm fast \\
        --train corpus/sxu/train.spacy --output research/benchmarks/results/train_speed.json
    python research/benchmarks/train_speed.py --compare 0baa858 --configs fast general \\
        --steps 600 --dev corpus/sxu/dev.spacy --output research/metrics/train_speed/sxu_cpu.json

Each (code, config) pair trains in a process of its own (`--worker`: the code at
REF is unpacked with `git archive` and put first on `PYTHONPATH`; each uses its
own `configs/NAME.cfg`), built and initialized on the same training docs with
the same seed, and updated on the same batches (about `--batch-chars`
characters each, consecutive training docs, as `nlp.update` gets them from
`spacy train`). The processes take turns, one batch each per round and never
two at once, so that a machine that slows down or speeds up does so for all of
them. Reported per pair: characters per second of `nlp.update` (forward, loss,
backward, optimizer step) over the rounds after `--warmup`, median and total;
the update's time by part (`StepClock`: the torch module's forward, autograd's
backward, the optimizer step, and the rest, which is outside torch); and with
`--dev`, the dev set's token F at the last step (the optimizer's averaged
weights, as `spacy train` evaluates). With `--compare`, the ratio new/old per
config.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build(name: str, train_docs, n_init: int, root: Path = ROOT):
    from spacy.training import Example
    from spacy.util import load_config, load_model_from_config
    from thinc.api import fix_random_seed

    fix_random_seed(0)
    config = load_config(root / "spacy_gdcws" / "configs" / f"{name}.cfg")
    nlp = load_model_from_config(config, auto_fill=True, validate=True)
    examples = [Example(nlp.make_doc(d.text), d) for d in train_docs[:n_init]]
    nlp.initialize(lambda: examples)
    optimizer = nlp.resume_training()
    fix_random_seed(0)
    return nlp, optimizer


def batches(items, limit: int, size_of=lambda doc: len(doc.text)):
    """Consecutive `items` in batches closed once their summed `size_of` (a doc's characters by
    default) reaches `limit`; the last, smaller one is dropped."""
    out, current, size = [], [], 0
    for item in items:
        current.append(item)
        size += size_of(item)
        if size >= limit:
            out.append(current)
            current, size = [], 0
    return out


class StepClock:
    """Seconds of an update spent in the torch module's forward (thinc's
    `PyTorchShim.begin_update`), in autograd's backward (the model's and the
    loss's) and in the optimizer step (the segmenter's shim's `finish_update`:
    thinc's numpy Adam per parameter before #50, torch's fused kernel after)."""

    PARTS = ("forward", "backward", "optimizer")

    def __init__(self) -> None:
        import torch.autograd
        from thinc.shims import PyTorchShim

        from spacy_gdcws.ml.shims import InPlacePyTorchShim

        self.seconds = dict.fromkeys(self.PARTS, 0.0)
        for part, owner, attr in (("forward", PyTorchShim, "begin_update"), ("backward", torch.autograd, "backward"),
                                  ("optimizer", InPlacePyTorchShim, "finish_update")):
            setattr(owner, attr, self._timed(part, getattr(owner, attr)))

    def reset(self) -> None:
        self.seconds = dict.fromkeys(self.PARTS, 0.0)

    def _timed(self, part, fn):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[part] += time.perf_counter() - start

        return timed


def worker(args) -> None:
    """One (code, config) pair: answers "step" (one update: its seconds, chars and
    torch seconds), "eval" (dev token F) and "quit" on stdin, one JSON line each."""
    import spacy
    import torch
    from spacy.tokens import DocBin
    from spacy.training import Example

    torch.set_num_threads(args.threads or torch.get_num_threads())
    root = Path(args.code_root)
    vocab_nlp = spacy.blank("zh")
    docs = list(DocBin().from_disk(args.train).get_docs(vocab_nlp.vocab))[: args.docs]
    groups = batches(docs, args.batch_chars)
    nlp, optimizer = build(args.config, docs, args.docs, root)
    clock = StepClock()
    step = 0
    print(json.dumps({"ready": True, "module": sys.modules["spacy_gdcws"].__file__}), flush=True)
    for line in sys.stdin:
        command = line.strip()
        if command == "step":
            batch = groups[step % len(groups)]
            examples = [Example(nlp.make_doc(d.text), d) for d in batch]
            clock.reset()
            start = time.perf_counter()
            nlp.update(examples, sgd=optimizer)
            elapsed = time.perf_counter() - start
            optimizer.step_schedules()
            step += 1
            print(json.dumps({"seconds": elapsed, "chars": sum(len(d.text) for d in batch), **clock.seconds}),
                  flush=True)
        elif command == "eval":
            dev = list(DocBin().from_disk(args.dev).get_docs(nlp.vocab))
            examples = [Example(nlp.make_doc(d.text), d) for d in dev]
            with nlp.use_params(optimizer.averages):
                scores = nlp.evaluate(examples)
            print(json.dumps({"token_f": scores["token_f"], "step": step}), flush=True)
        elif command == "quit":
            return


def unpack(ref: str, into: Path) -> Path:
    """The repository at git `ref`, unpacked under `into` (the checkout is left alone)."""
    archive = into / "code.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", ref, "spacy_gdcws"], stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "code", filter="data")
    return into / "code"


def start(label: str, config: str, code_root: Path, args) -> dict:
    env = dict(os.environ, PYTHONPATH=str(code_root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", "--config", config, "--code-root",
               str(code_root), "--train", str(args.train), "--docs", str(args.docs), "--batch-chars",
               str(args.batch_chars), "--threads", str(args.threads)]
    if args.dev:
        command += ["--dev", str(args.dev)]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                            cwd=str(code_root))
    hello = json.loads(proc.stdout.readline())
    return {"label": label, "config": config, "proc": proc, "module": hello["module"], "times": [], "chars": [],
            **{part: [] for part in StepClock.PARTS}}


def ask(pair: dict, command: str) -> dict:
    pair["proc"].stdin.write(command + "\n")
    pair["proc"].stdin.flush()
    return json.loads(pair["proc"].stdout.readline())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", nargs="+", default=["default", "san", "idcnn", "bilstm", "fast"])
    parser.add_argument("--train", type=Path, default=ROOT / "corpus" / "sxu" / "train.spacy")
    parser.add_argument("--dev", type=Path, default=None, help="score the dev set's token F after the last step")
    parser.add_argument("--docs", type=int, default=3000, help="training docs to initialize on and batch from")
    parser.add_argument("--batch-chars", type=int, default=3000)
    parser.add_argument("--steps", "--rounds", dest="steps", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--compare", metavar="REF", help="also train with the code at git REF (the code before a change)")
    parser.add_argument("--output", type=Path)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    parser.add_argument("--code-root", default=str(ROOT), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    import torch

    # the workers run in the code's folder: paths absolute
    args.train = args.train.resolve()
    args.dev = args.dev.resolve() if args.dev else None
    with tempfile.TemporaryDirectory() as tmp:
        codes = [("new", ROOT)]
        if args.compare:
            codes.insert(0, ("old", unpack(args.compare, Path(tmp))))
        pairs = [start(label, config, root, args) for config in args.configs for label, root in codes]
        for r in range(args.steps):
            for pair in pairs:
                answer = ask(pair, "step")
                if r >= args.warmup:
                    pair["times"].append(answer["seconds"])
                    pair["chars"].append(answer["chars"])
                    for part in StepClock.PARTS:
                        pair[part].append(answer[part])
        dev = {id(pair): ask(pair, "eval") for pair in pairs} if args.dev else {}
        for pair in pairs:
            pair["proc"].communicate("quit\n")
    results = {}
    for pair in pairs:
        key = f"{pair['config']}:{pair['label']}" if args.compare else pair["config"]
        update = sum(pair["times"])
        results[key] = {
            "chars_per_second_median": round(statistics.median(c / t for c, t in zip(pair["chars"], pair["times"]))),
            "chars_per_second": round(sum(pair["chars"]) / update),
            # the update's time by part; "other": the data path, the loss, spaCy's example copies
            "shares": {**{part: round(sum(pair[part]) / update, 3) for part in StepClock.PARTS},
                       "other": round(1.0 - sum(sum(pair[part]) for part in StepClock.PARTS) / update, 3)},
            "code": pair["module"],
        }
        if id(pair) in dev:
            results[key]["dev_token_f"] = dev[id(pair)]["token_f"]
            results[key]["dev_step"] = dev[id(pair)]["step"]
    report = {
        "command": " ".join([Path(sys.executable).name] + sys.argv),
        "machine": {"platform": platform.platform(), "torch": torch.__version__, "cpus": os.cpu_count(),
                    "threads": args.threads or torch.get_num_threads()},
        "steps": args.steps, "warmup": args.warmup, "batch_chars": args.batch_chars, "results": results,
    }
    if args.compare:
        report["compare"] = args.compare
        report["new_over_old"] = {
            config: round(results[f"{config}:new"]["chars_per_second"] / results[f"{config}:old"]["chars_per_second"], 3)
            for config in args.configs
        }
        if args.dev:
            report["dev_f_new_minus_old"] = {
                config: round(results[f"{config}:new"]["dev_token_f"] - results[f"{config}:old"]["dev_token_f"], 5)
                for config in args.configs
            }
    else:
        speeds = {name: r["chars_per_second"] for name, r in results.items()}
        report["ratios"] = {f"{a}/{b}": round(speeds[a] / speeds[b], 3) for a in speeds for b in speeds if a != b}
    for name, r in results.items():
        shares = "  ".join(f"{part} {share:.0%}" for part, share in r["shares"].items())
        print(f"{name:16} {r['chars_per_second']:>8,} chars/s  {shares}"
              + (f"  dev F {r['dev_token_f']:.4f}" if "dev_token_f" in r else ""), file=sys.stderr)
    text = json.dumps(report, indent=2) + "\n"
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf8")
    else:
        print(text)


if __name__ == "__main__":
    main()
