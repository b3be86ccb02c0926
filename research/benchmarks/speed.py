"""Segmentation speed and peak memory, every contender measured in the same run.

    python research/benchmarks/speed.py --model training/sxu.default/model-best \\
        --pkuseg-model training/sxu.pkuseg --quantization-dev corpus/sxu/dev.spacy \\
        --output research/benchmarks/results/cpu.json

Inputs (characters are counted without whitespace):
- `sxu_test`: the SXU gold test file with its words joined, one text per line
  (3,654 lines, 184,269 characters);
- `doc_100k`, `doc_1m`: one document of 100,000 / 1,000,000 characters without
  a single line break (the SXU test sentences concatenated and repeated): the
  worst case for a model that scores windows, and the linearity check.

Contenders (`--contenders` picks some):
- `gdcws_pipe`: our pipeline through `nlp.pipe` (words merged in `Doc`s), its words alone: the
  components after the segmenter (the main job's tagger and parser) disabled, as
  `spacy.load("zh_gdcws", enable=["segmenter"])` gives;
- `gdcws_full`: the same pipeline whole (segmenter, tagger, parser, entities); `gdcws_full_nonumba` the same
  in a process where numba cannot be imported (the parser's Eisner in numpy, as without the extra);
- `gdcws_full_int8`, `gdcws_full_bf16`: the same with the parser's Linear and LSTM layers in int8
  (`set_precision(nlp, "int8", components=["parser"])`), or its bf16 autocast; the segmenter as saved;
- `gdcws_full_baseline`: `--baseline-model`'s pipeline whole (e.g. the previous main job's, spaCy's
  transition-based second stage), so two second stages' rates are measured in the same run;
- `gdcws_pipe_int8`: the same after `spacy_gdcws.app.precision.quantize_segmenter` (int8 Linear layers);
- `gdcws_pipe_bf16`: the same loaded with `mixed_precision = true` (bf16 autocast; on CPU it pays
  only with AVX512-BF16 / AMX);
- `gdcws_segment`: `spacy_gdcws.app.segment.segment_texts` (text in, words out, no merging);
- `gdcws_model`: the segmenter's `predict` alone on ready-made character docs;
- `gdcws_pipe_baseline`: `gdcws_pipe` with `--baseline-model` and, with `--baseline-code DIR` (a git
  worktree of an earlier commit), that commit's `spacy_gdcws` (e.g. our previous version, or one
  member of an ensemble), so the two models' ratio is measured in the same run;
- `gdcws_fast`, `gdcws_fast_bf16`: `gdcws_pipe` with `--fast-model` (e.g. `configs/fast.cfg`
  trained), in float32 and with bf16 autocast;
- `gdcws_zero`: the data path alone: `--model` with its torch module replaced by one that
  returns zeros (featurization, windows, decoding, the word `Doc`s), greedy decoding;
- `gdcws_zero_priors`: the same with all three decoding priors on (weight 1 each; a gap
  model with recorded counts);
- `spacy_char`: blank `zh` with the `char` segmenter: Doc creation alone, the
  ceiling of any spaCy segmenter;
- `linear_char`: the same with `spacy_gdcws.ChineseCharTokenizer.v1` (identical
  tokens in linear time: spaCy's is quadratic in the length of a line);
- `pkuseg`: spacy-pkuseg `cut` (`user_dict=None`) with `--pkuseg-model`;
- `jieba`: `jieba.lcut`, default dictionary;
- `jieba_posseg`: `jieba.posseg.lcut` (words and jieba's parts of speech), the POS peer;
- `spacy_pkuseg`: spaCy `zh` with the pkuseg segmenter and `--pkuseg-model`.

Each (contender, input) runs in a fresh Python process: load, one untimed
pass over the whole input (`--warmup full`: the first pass over a text also
grows spaCy's vocabulary, a Lexeme made in Python per new word type, which a
long-running process pays once; `--warmup slice`, the first 50 texts only, was
the warm-up before 2026-11-25), then `--runs` timed passes; the median is reported with
every time, and peak resident memory (`ru_maxrss`) of that process, plus its
resident memory before the timed passes. Ratios of median characters/s are
computed pair by pair within this one run, so they hold on any machine;
absolute numbers hold only for the machine recorded in the output. With
`--rounds N` the contenders take turns N times (a shared machine's speed
drifts by tens of percent within minutes): ratios are taken within each
round and the median over rounds is reported, with each contender's median
characters/s over the rounds (`medians`).
"""
import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[2]
CONTENDERS = ["gdcws_pipe", "gdcws_full", "gdcws_full_nonumba", "gdcws_full_int8", "gdcws_full_bf16", "gdcws_pipe_int8", "gdcws_pipe_bf16",
              "gdcws_segment", "gdcws_model",
              "gdcws_pipe_baseline", "gdcws_fast", "gdcws_fast_bf16", "gdcws_zero", "gdcws_zero_priors",
              "spacy_char", "linear_char", "pkuseg", "jieba", "jieba_posseg", "spacy_pkuseg", "gdcws_full_baseline"]
INPUTS = ["sxu_test", "doc_100k", "doc_1m"]
NEEDS_MODEL = {"gdcws_pipe", "gdcws_full", "gdcws_full_nonumba", "gdcws_full_int8", "gdcws_full_bf16", "gdcws_pipe_int8", "gdcws_pipe_bf16",
               "gdcws_segment", "gdcws_model", "gdcws_zero", "gdcws_zero_priors"}
NEEDS_FAST = {"gdcws_fast", "gdcws_fast_bf16"}
# load-time config that turns on bf16 autocast (the benchmarked pipelines name the component "segmenter")
BF16_CONFIG = {"components": {"segmenter": {"model": {"mixed_precision": True}}}}
LINEAR_CHAR_CONFIG = {"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}}
NEEDS_PKUSEG = {"pkuseg", "spacy_pkuseg"}
NEEDS_BASELINE = {"gdcws_pipe_baseline", "gdcws_full_baseline"}


def load_texts(name: str, sxu_test: Path) -> List[str]:
    """The texts of one input: SXU test lines, or one long document."""
    lines = ["".join(line.split()) for line in sxu_test.read_text(encoding="utf8").splitlines()]
    lines = [line for line in lines if line]
    if name == "sxu_test":
        return lines
    size = {"doc_100k": 100_000, "doc_1m": 1_000_000}[name]
    joined = "".join(lines)
    return [(joined * (size // len(joined) + 1))[:size]]


def make_contender(name: str, args: argparse.Namespace) -> Tuple[Callable[[List[str]], int], Callable[[List[str]], object]]:
    """RETURNS (run, prepare): `run(prepared)` segments and returns a word count;
    `prepare(texts)` does the untimed work (only `gdcws_model` has any)."""
    identity = lambda texts: texts  # noqa: E731
    if name in NEEDS_MODEL or name in NEEDS_BASELINE or name in NEEDS_FAST:
        import spacy

        from spacy_gdcws.app.segment import keep_words_only

        config = dict(BF16_CONFIG) if name in ("gdcws_pipe_bf16", "gdcws_fast_bf16") else {}
        if args.linear_char:
            config.update(LINEAR_CHAR_CONFIG)
        path = args.baseline_model if name in NEEDS_BASELINE else args.fast_model if name in NEEDS_FAST else args.model
        nlp = spacy.load(path, config=config)
        nlp.max_length = 10**8
        if name in ("gdcws_full_int8", "gdcws_full_bf16"):
            from spacy_gdcws.app.precision import set_precision

            set_precision(nlp, name.rsplit("_", 1)[1], components=["parser"])
        if name in ("gdcws_full", "gdcws_full_nonumba", "gdcws_full_int8", "gdcws_full_bf16", "gdcws_full_baseline"):
            return (lambda texts: sum(len(d) for d in nlp.pipe(texts, batch_size=args.batch_size))), identity
        keep_words_only(nlp)
        if name in ("gdcws_zero", "gdcws_zero_priors"):
            zero_model(nlp, priors=name == "gdcws_zero_priors")
            return (lambda texts: sum(len(d) for d in nlp.pipe(texts, batch_size=args.batch_size))), identity
        if name in NEEDS_FAST:
            return (lambda texts: sum(len(d) for d in nlp.pipe(texts, batch_size=args.batch_size))), identity
        if name == "gdcws_pipe_int8":
            from spacy_gdcws.app.precision import quantize_segmenter

            quantize_segmenter(nlp)
        if name in ("gdcws_pipe", "gdcws_pipe_int8", "gdcws_pipe_bf16", "gdcws_pipe_baseline"):
            return (lambda texts: sum(len(d) for d in nlp.pipe(texts, batch_size=args.batch_size))), identity
        if name == "gdcws_segment":
            from spacy_gdcws.app.segment import segment_texts

            return (lambda texts: sum(len(w) for w in segment_texts(nlp, texts, batch_size=args.batch_size))), identity
        segmenter = nlp.get_pipe("segmenter")
        # the model's scores alone: `scores` (before 2026-12-01, `predict` gave them)
        model_scores = getattr(segmenter, "scores", segmenter.predict)

        def model_only(docs) -> int:
            n = 0
            for start in range(0, len(docs), args.batch_size):
                n += sum(len(s) for s in model_scores(docs[start : start + args.batch_size]))
            return n

        return model_only, lambda texts: [nlp.make_doc(t) for t in texts]
    if name in ("spacy_char", "linear_char"):
        import spacy

        nlp = spacy.blank("zh", config=LINEAR_CHAR_CONFIG if name == "linear_char" else {})
        nlp.max_length = 10**8
        return (lambda texts: sum(len(d) for d in nlp.pipe(texts, batch_size=args.batch_size))), identity
    if name == "pkuseg":
        import spacy_pkuseg

        cutter = spacy_pkuseg.pkuseg(model_name=str(args.pkuseg_model), user_dict=None)
        return (lambda texts: sum(len(cutter.cut(t)) for t in texts)), identity
    if name == "jieba":
        import jieba

        jieba.setLogLevel(60)
        jieba.initialize()
        return (lambda texts: sum(len(jieba.lcut(t)) for t in texts)), identity
    if name == "jieba_posseg":
        import jieba
        import jieba.posseg

        jieba.setLogLevel(60)
        jieba.initialize()
        return (lambda texts: sum(len(jieba.posseg.lcut(t)) for t in texts)), identity
    if name == "spacy_pkuseg":
        import spacy

        import spacy_pkuseg

        nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"segmenter": "pkuseg"}}})
        # spaCy turns pkuseg_user_dict=None into the model path, which pkuseg then fails to
        # read as a dictionary: set the same cutter as the `pkuseg` contender directly
        nlp.tokenizer.pkuseg_seg = spacy_pkuseg.pkuseg(model_name=str(args.pkuseg_model), user_dict=None)
        nlp.max_length = 10**8
        return (lambda texts: sum(len(d) for d in nlp.pipe(texts, batch_size=args.batch_size))), identity
    raise ValueError(f"unknown contender {name!r}; choose from {CONTENDERS}")


def zero_model(nlp, priors: bool) -> None:
    """Replace the segmenter's torch module by one that returns zeros of the right
    shape: what is left is the data path. With `priors`, decode with all three
    decoding priors (weight 1 each)."""
    import torch

    from spacy_gdcws.ml.shims import torch_shims
    from spacy_gdcws.ml.windows import OUTPUT

    class ZeroNet(torch.nn.Module):
        def __init__(self, kind: str, n_scores: int) -> None:
            super().__init__()
            self.kind, self.n_scores = kind, n_scores

        def forward(self, chars, bigrams, mask, lexicon=None, vectors=None):
            batch, length = mask.shape
            return torch.zeros(batch, length - 1 if self.kind == "gaps" else length, self.n_scores)

    segmenter = nlp.get_pipe(seg_name(nlp))
    for node in segmenter.model.walk():
        if OUTPUT in node.attrs:
            torch_shims(node)[0].net = ZeroNet(node.attrs[OUTPUT], node.attrs["n_scores"])
    if priors:
        segmenter.transition_weight = segmenter.tag_prior_weight = segmenter.bigram_prior_weight = 1.0
    else:
        segmenter.transition_weight = segmenter.tag_prior_weight = segmenter.bigram_prior_weight = 0.0


def seg_name(nlp) -> str:
    from spacy_gdcws.pipeline.names import find_segmenter

    return find_segmenter(nlp)


def rss_mb() -> float:
    """Current resident memory of this process, MB (Linux /proc)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def worker(args: argparse.Namespace) -> None:
    """Measure one contender on one input; print one JSON object."""
    if args.worker.endswith("_nonumba"):  # as if numba were not installed: the parser's numpy Eisner
        sys.modules["numba"] = None
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    if args.gpu_id >= 0:  # our pipelines' torch modules go to the GPU (spaCy's contenders stay on the CPU)
        import spacy

        spacy.require_gpu(args.gpu_id)
    texts = load_texts(args.input, args.sxu_test)
    chars = sum(len(t) for t in texts)
    run, prepare = make_contender(args.worker, args)
    if args.warmup == "full":  # one whole pass: the vocabulary holds every word type of the input
        run(prepare(texts))
    else:
        run(prepare(texts[:50] if len(texts) > 1 else [texts[0][:5000]]))
    prepared = prepare(texts)
    before = rss_mb()
    times, words = [], 0
    for _ in range(args.runs):
        start = time.perf_counter()
        words = run(prepared)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(json.dumps({
        "contender": args.worker, "input": args.input, "chars": chars, "units": words,
        "seconds": [round(t, 4) for t in times], "median_seconds": round(median, 4),
        "chars_per_second": round(chars / median), "rss_before_mb": round(before, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }))


def quantization_cost(model: str, dev: Path) -> Dict[str, float]:
    """Dev token F of the float32, the bf16-autocast and the int8-quantised
    segmenter (the accuracy cost of each)."""
    import spacy
    from spacy.tokens import DocBin
    from spacy.training import Example

    from spacy_gdcws.app.precision import quantize_segmenter

    nlp = spacy.load(model)
    golds = list(DocBin().from_disk(dev).get_docs(nlp.vocab))
    examples = lambda: [Example(nlp.make_doc(g.text), g) for g in golds]  # noqa: E731
    result = {"dev": str(dev), "float32_token_f": nlp.evaluate(examples())["token_f"]}
    result["bf16_token_f"] = spacy.load(model, config=BF16_CONFIG).evaluate(examples())["token_f"]
    quantize_segmenter(nlp)
    result["int8_token_f"] = nlp.evaluate(examples())["token_f"]
    return result


def machine() -> Dict[str, object]:
    info: Dict[str, object] = {"platform": platform.platform(), "python": platform.python_version(),
                               "cpus": os.cpu_count()}
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
        info["cuda"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    except ImportError:  # pragma: no cover
        pass
    with open("/proc/cpuinfo") as cpuinfo:
        names = [line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")]
    info["cpu"] = names[0] if names else None
    return info


def ratios(results: List[Dict[str, object]]) -> Dict[str, Dict[str, float]]:
    """Per input: speed of every contender over every other, taken within each
    round (contenders measured minutes apart) and then the median over rounds."""
    per_round: Dict[Tuple[str, int], Dict[str, float]] = {}
    for r in results:
        per_round.setdefault((str(r["input"]), int(r.get("round", 1))), {})[str(r["contender"])] = float(r["chars_per_second"])
    pooled: Dict[str, Dict[str, List[float]]] = {}
    for (inp, _), speeds in per_round.items():
        for a, speed_a in speeds.items():
            for b, speed_b in speeds.items():
                if a != b:
                    pooled.setdefault(inp, {}).setdefault(f"{a}/{b}", []).append(speed_a / speed_b)
    return {inp: {pair: round(statistics.median(values), 3) for pair, values in table.items()}
            for inp, table in pooled.items()}


def medians(results: List[Dict[str, object]]) -> Dict[str, Dict[str, int]]:
    """Per input: each contender's median chars/s over the rounds."""
    pooled: Dict[str, Dict[str, List[float]]] = {}
    for r in results:
        pooled.setdefault(str(r["input"]), {}).setdefault(str(r["contender"]), []).append(float(r["chars_per_second"]))
    return {inp: {name: round(statistics.median(v)) for name, v in table.items()} for inp, table in pooled.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="trained pipeline (path or package) with a gdcws_segmenter")
    parser.add_argument("--baseline-model", help="another trained pipeline, for the gdcws_pipe_baseline contender")
    parser.add_argument("--baseline-code", type=Path,
                        help="a checkout of an earlier commit: gdcws_pipe_baseline imports its spacy_gdcws (PYTHONPATH; "
                             "where registered functions moved between the two, use --baseline-python: the installed "
                             "entry points name the current modules)")
    parser.add_argument("--baseline-python", type=Path,
                        help="the Python of a venv where an earlier commit is installed: gdcws_pipe_baseline runs there")
    parser.add_argument("--fast-model", help="a trained fast pipeline (configs/fast.cfg), for gdcws_fast / gdcws_fast_bf16")
    parser.add_argument("--pkuseg-model", type=Path, help="pkuseg model folder (e.g. from research/scripts/baselines.py)")
    parser.add_argument("--sxu-test", type=Path, default=ROOT.parent / "shared" / "corpora" / "sxu" / "test.txt")
    parser.add_argument("--contenders", nargs="+", default=CONTENDERS)
    parser.add_argument("--inputs", nargs="+", default=INPUTS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warmup", choices=["full", "slice"], default="full",
                        help="untimed pass before the timed ones: the whole input (steady state: spaCy "
                             "has made a Lexeme for every word type) or its first 50 texts (before 2026-11-25)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure every contender this many times, taking turns (a noisy machine drifts "
                             "between contenders); ratios are per round, then the median")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--threads", type=int, default=0, help="torch threads in each worker (0: torch's default)")
    parser.add_argument("--gpu-id", type=int, default=-1, help="run our pipelines on this GPU (-1: CPU)")
    parser.add_argument("--linear-char", action="store_true",
                        help="our pipelines load with spacy_gdcws.ChineseCharTokenizer.v1 instead of spaCy's char tokenizer")
    parser.add_argument("--quantization-dev", type=Path, help="dev .spacy file: token F of float32 vs bf16 vs int8")
    parser.add_argument("--output", type=Path)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--input", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    contenders = [c for c in args.contenders if (c not in NEEDS_MODEL or args.model)
                  and (c not in NEEDS_PKUSEG or args.pkuseg_model) and (c not in NEEDS_BASELINE or args.baseline_model)
                  and (c not in NEEDS_FAST or args.fast_model)]
    skipped = sorted(set(args.contenders) - set(contenders))
    if skipped:
        print(f"skipped (no --model / --pkuseg-model / --baseline-model / --fast-model): {skipped}", file=sys.stderr)
    results = []
    for round_no, inp, name in ((k, i, c) for k in range(1, args.rounds + 1) for i in args.inputs for c in contenders):
        python = str(args.baseline_python) if args.baseline_python and name in NEEDS_BASELINE else sys.executable
        cmd = [python, __file__, "--worker", name, "--input", inp, "--runs", str(args.runs), "--warmup", args.warmup,
               "--batch-size", str(args.batch_size), "--sxu-test", str(args.sxu_test),
               "--threads", str(args.threads), "--gpu-id", str(args.gpu_id)] + (["--linear-char"] if args.linear_char else [])
        if args.model:
            cmd += ["--model", args.model]
        if args.pkuseg_model:
            cmd += ["--pkuseg-model", str(args.pkuseg_model)]
        if args.baseline_model:
            cmd += ["--baseline-model", args.baseline_model]
        if args.fast_model:
            cmd += ["--fast-model", args.fast_model]
        env = None
        if args.baseline_code and name in NEEDS_BASELINE:
            env = {**os.environ, "PYTHONPATH": str(args.baseline_code.resolve())}
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
        result = json.loads(out.strip().splitlines()[-1])
        result["round"] = round_no
        results.append(result)
        print(f"{round_no:2} {inp:9} {name:14} {result['chars_per_second']:>10,} chars/s  "
              f"peak {result['peak_rss_mb']:>7.1f} MB", file=sys.stderr)
        write_report(args, results)  # after every measurement: a stopped run keeps what it measured
    report = write_report(args, results)
    if args.quantization_dev and args.model:
        report = write_report(args, results, quantization_cost(args.model, args.quantization_dev))
        print(f"bf16 / int8 accuracy cost: {report['quantization']}", file=sys.stderr)
    if not args.output:
        print(json.dumps(report, indent=2, ensure_ascii=False))


def write_report(args: argparse.Namespace, results: List[Dict[str, object]],
                 quantization: Optional[Dict[str, float]] = None) -> Dict[str, object]:
    """The report so far; written to `--output` if given."""
    report: Dict[str, object] = {
        "command": " ".join([Path(sys.executable).name] + sys.argv), "machine": machine(), "runs": args.runs, "warmup": args.warmup,
        "model": args.model, "baseline_model": args.baseline_model,
        "baseline_code": str(args.baseline_code) if args.baseline_code else None,
        "baseline_python": str(args.baseline_python) if args.baseline_python else None, "fast_model": args.fast_model, "pkuseg_model": str(args.pkuseg_model), "rounds": args.rounds, "results": results, "medians": medians(results), "ratios": ratios(results),
    }
    if quantization is not None:
        report["quantization"] = quantization
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf8")
    return report


if __name__ == "__main__":
    main()
