"""Training speed of each encoder config, measured side by side in one run.

    python research/benchmarks/train_speed.py --configs default san idcnn bilstm fast \\
        --train corpus/sxu/train.spacy --output research/benchmarks/results/train_speed.json

Every config is built from `configs/NAME.cfg`, initialized on the same training
docs and updated on the same batches (about `--batch-chars` characters each,
as `spacy train` batches them); the configs take turns, one batch each per
round, so that a machine that slows down or speeds up does so for all of them.
Reported: characters per second of `nlp.update` (forward, loss, backward,
optimizer step), median over rounds, and each config's speed over the others'.
The first `--warmup` rounds are not timed.
"""
import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build(name: str, train_docs, n_init: int):
    from spacy.training import Example
    from spacy.util import load_config, load_model_from_config
    from thinc.api import fix_random_seed

    fix_random_seed(0)
    config = load_config(ROOT / "configs" / f"{name}.cfg")
    nlp = load_model_from_config(config, auto_fill=True, validate=True)
    examples = [Example(nlp.make_doc(d.text), d) for d in train_docs[:n_init]]
    nlp.initialize(lambda: examples)
    optimizer = nlp.resume_training()
    return nlp, optimizer


def batches(docs, batch_chars: int):
    out, current, size = [], [], 0
    for doc in docs:
        current.append(doc)
        size += len(doc.text)
        if size >= batch_chars:
            out.append(current)
            current, size = [], 0
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", nargs="+", default=["default", "san", "idcnn", "bilstm", "fast"])
    parser.add_argument("--train", type=Path, default=ROOT / "corpus" / "sxu" / "train.spacy")
    parser.add_argument("--docs", type=int, default=3000, help="training docs to initialize on and batch from")
    parser.add_argument("--batch-chars", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    import spacy
    import torch
    from spacy.tokens import DocBin
    from spacy.training import Example

    if args.threads:
        torch.set_num_threads(args.threads)
    vocab_nlp = spacy.blank("zh")
    docs = list(DocBin().from_disk(args.train).get_docs(vocab_nlp.vocab))[: args.docs]
    groups = batches(docs, args.batch_chars)
    models = {name: build(name, docs, args.docs) for name in args.configs}
    times = {name: [] for name in args.configs}
    chars = {name: [] for name in args.configs}
    for r in range(args.rounds):
        batch = groups[r % len(groups)]
        for name, (nlp, optimizer) in models.items():
            examples = [Example(nlp.make_doc(d.text), d) for d in batch]
            start = time.perf_counter()
            nlp.update(examples, sgd=optimizer)
            elapsed = time.perf_counter() - start
            if r >= args.warmup:
                times[name].append(elapsed)
                chars[name].append(sum(len(d.text) for d in batch))
    speeds = {name: round(statistics.median(c / t for c, t in zip(chars[name], times[name]))) for name in args.configs}
    report = {
        "command": " ".join([Path(sys.executable).name] + sys.argv),
        "machine": {"platform": platform.platform(), "torch": torch.__version__, "threads": torch.get_num_threads()},
        "chars_per_second": speeds,
        "ratios": {f"{a}/{b}": round(speeds[a] / speeds[b], 3) for a in speeds for b in speeds if a != b},
        "rounds": args.rounds - args.warmup, "batch_chars": args.batch_chars,
    }
    for name, speed in speeds.items():
        print(f"{name:10} {speed:>8,} chars/s", file=sys.stderr)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf8")
    else:
        print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
