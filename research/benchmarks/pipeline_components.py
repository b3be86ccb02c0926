"""Where a pipeline's time goes: each component's share of `nlp.pipe` on the SXU test lines, and
inside `gdcws_parser` its featurization, torch model, tree decoding and annotation.

    OMP_NUM_THREADS=1 python research/benchmarks/pipeline_components.py --model zh_gdcws \\
        [--parser-precision int8] --output research/benchmarks/results/pipeline_components.json

Each component's `pipe` (and the parser's featurization, predict and set_annotations; its model's
time is predict less featurization) is wrapped with a timer; the text is run once
untimed (the vocabulary grows on a first pass), then `--runs` timed passes; the medians are
reported with the machine (CPU model, cores, torch threads).
"""
import argparse
import json
import platform
import statistics
import time
from collections import defaultdict
from functools import wraps
from pathlib import Path
from typing import Any, Callable, Dict, List

from reports import cpu_model

ROOT = Path(__file__).resolve().parents[2]
SXU_TEST = ROOT.parent / "shared" / "corpora" / "sxu" / "test.txt"


def _timed(store: Dict[str, float], key: str, fn: Callable) -> Callable:
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        if hasattr(out, "__next__"):  # a generator (a component's pipe): time it as it is consumed
            return _timed_iter(store, key, out, start)
        store[key] += time.perf_counter() - start
        return out
    return wrapper


def _timed_iter(store: Dict[str, float], key: str, it: Any, start: float) -> Any:
    store[key] += time.perf_counter() - start
    while True:
        start = time.perf_counter()
        try:
            item = next(it)
        except StopIteration:
            store[key] += time.perf_counter() - start
            return
        store[key] += time.perf_counter() - start
        yield item


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--input", type=Path, default=SXU_TEST, help="one text per line (spaces removed)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--parser-precision", default="saved",
                        help="the parser's precision (`set_precision(nlp, P, components=['parser'])`: saved, int8, ...)")
    args = parser.parse_args()
    import spacy
    import torch

    texts = ["".join(line.split()) for line in args.input.read_text(encoding="utf8").splitlines()]
    texts = [t for t in texts if t]
    n_chars = sum(len(t) for t in texts)
    nlp = spacy.load(args.model)
    from spacy_gdcws.app.precision import set_precision

    set_precision(nlp, args.parser_precision, components=["parser"])
    times: Dict[str, float] = defaultdict(float)
    # nested timers: a component's own steps are inside its `pipe`; the components are not nested
    for name, proc in nlp.pipeline:
        proc.pipe = _timed(times, name, proc.pipe)
        if type(proc).__name__ == "BiaffineParser":
            feat = proc.featurizer
            feat.batches = _timed(times, f"{name}.featurize", feat.batches)
            proc.predict = _timed(times, f"{name}.predict", proc.predict)
            proc.set_annotations = _timed(times, f"{name}.decode_and_annotate", proc.set_annotations)
    list(nlp.pipe(texts, batch_size=args.batch_size))
    runs: List[Dict[str, float]] = []
    for _ in range(args.runs):
        times.clear()
        start = time.perf_counter()
        list(nlp.pipe(texts, batch_size=args.batch_size))
        total = time.perf_counter() - start
        runs.append({"total": total, **times})
    keys = sorted({k for r in runs for k in r})
    median = {k: statistics.median(r.get(k, 0.0) for r in runs) for k in keys}
    for name, _ in nlp.pipeline:  # the parser's model: its predict less its featurization
        if f"{name}.predict" in median:
            median[f"{name}.model"] = median[f"{name}.predict"] - median.get(f"{name}.featurize", 0.0)
    report = {
        "model": args.model,
        "input": str(args.input),
        "chars": n_chars,
        "runs": args.runs,
        "parser_precision": args.parser_precision,
        "seconds": median,
        "chars_per_s": {k: n_chars / v for k, v in median.items() if v > 0},
        "share_of_total": {k: v / median["total"] for k, v in median.items()},
        "machine": {"cpu": cpu_model(), "cores": __import__("os").cpu_count(), "torch_threads": torch.get_num_threads(),
                    "python": platform.python_version(), "torch": torch.__version__},
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    if args.output:
        args.output.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf8")



if __name__ == "__main__":
    main()
