"""What a loaded pipeline holds in memory: the resident set size (RSS) of a fresh process after each
step of loading it, and what the pipeline is made of (its torch parameters, lexicons, vocab), with
and without numba (the parser's compiled Eisner; without it, its numpy fallback).

    python research/benchmarks/load_memory.py --model zh_gdcws --output research/benchmarks/results/load_memory.json

Each measurement runs in a fresh Python process (`--worker`), so one does not carry another's imports.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

STEPS = ("python", "import numpy", "import torch", "import spacy", "spacy.load", "first text")


def rss_mb() -> float:
    """The process's resident set size now (Linux's /proc/self/status, VmRSS), MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def worker(model: str, block_numba: bool) -> dict:
    if block_numba:
        sys.modules["numba"] = None  # as if it were not installed: the parser's numpy Eisner
    out = {"python": rss_mb()}
    import numpy  # noqa: F401

    out["import numpy"] = rss_mb()
    import torch

    out["import torch"] = rss_mb()
    import spacy

    out["import spacy"] = rss_mb()
    nlp = spacy.load(model)
    out["spacy.load"] = rss_mb()
    nlp("我爱北京天安门。习近平在北京会见了联合国秘书长古特雷斯。")
    out["first text"] = rss_mb()
    parts = {}
    for name, pipe in nlp.pipeline:
        params = 0
        for node in getattr(pipe, "model", None).walk() if getattr(pipe, "model", None) is not None else []:
            for shim in node.shims:
                net = getattr(shim, "_model", None)
                if net is not None and hasattr(net, "parameters"):
                    params += sum(p.numel() * p.element_size() for p in net.parameters())
        parts[name] = {"torch_parameters_mb": round(params / 2**20, 2)}
        if hasattr(pipe, "lexicon"):
            parts[name]["lexicon_entries"] = len(pipe.lexicon.entries)
        if hasattr(pipe, "general_words"):
            parts[name]["general_words"] = len(pipe.general_words)
            parts[name]["train_words"] = len(pipe.train_words)
    out["parts"] = parts
    out["vocab_strings"] = len(nlp.vocab.strings)
    out["numba_loaded"] = "numba" in sys.modules and sys.modules["numba"] is not None
    out["torch_threads"] = torch.get_num_threads()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--output", type=Path)
    parser.add_argument("--worker", choices=["with_numba", "without_numba"])
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.model, args.worker == "without_numba")))
        return
    results = {}
    for kind in ("with_numba", "without_numba"):
        out = subprocess.run([sys.executable, __file__, "--model", args.model, "--worker", kind],
                             capture_output=True, text=True, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
        results[kind] = json.loads(out.stdout.strip().splitlines()[-1])
        print(kind, {k: round(v, 1) for k, v in results[kind].items() if k in STEPS}, file=sys.stderr)
    report = {"command": " ".join([Path(sys.executable).name] + sys.argv), "model": args.model,
              "machine": {"platform": platform.platform(), "python": platform.python_version(),
                          "cpus": os.cpu_count()}, "results": results}
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf8")
    else:
        print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
