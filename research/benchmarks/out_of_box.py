"""Out of the box: word-span F of a pipeline, pkuseg's default model and jieba on the gold test
files of six corpora (and UD GSDSimp test), each system as a user gets it, no retraining.

    python research/benchmarks/out_of_box.py --model zh_gdcws \\
        --corpora ../shared/corpora --output research/metrics/out_of_box.json

Raw text of a line = its gold words joined (no spaces between Chinese words); every system
segments those texts, and a word counts as correct where its character span is a gold word's
span (the SIGHAN scorer's word F on these lines). Empty lines are skipped.

- `--model NAME=PATH` (repeatable; `PATH` alone names it by its folder): `spacy.load` and
  `nlp.pipe` (batch 256), the words being the non-space tokens; with `--granularity fine,coarse`
  each model once per granularity ("NAME (coarse)"; the segmenter's setting, #47).
- pkuseg: the default model of the original pkuseg 0.0.25 (`pkuseg.pkuseg()`: its `default`
  model with its default dictionary), run by spacy-pkuseg; the model is fetched once from the
  package registry (`pip download pkuseg==0.0.25`, the sdist holds it) into `--cache`.
- jieba: `jieba.lcut` with its default dictionary (HMM on).
Results for pkuseg and jieba are recomputed each run (they take about a minute).
"""
import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from spacy_gdcws.readers import read_sentences  # noqa: E402
from spacy_gdcws.io import atomic_write_text  # noqa: E402

# name: (path under the corpora folder, reader format)
TEST_SETS: Dict[str, Tuple[str, str]] = {
    "PKU": ("sighan2005/gold/pku_test_gold.utf8", "sighan"),
    "MSR": ("sighan2005/gold/msr_test_gold.utf8", "sighan"),
    "AS": ("sighan2005/gold/as_testing_gold.utf8", "sighan"),
    "CITYU": ("sighan2005/gold/cityu_test_gold.utf8", "sighan"),
    "SXU": ("sxu/test.txt", "sighan"),
    "ZX": ("zhuxian/test.zhuxian.wordpos", "wordpos"),
}
# reported beside the six (the main job's own test set), not in their mean
EXTRA_SETS: Dict[str, Tuple[str, str]] = {"UD GSDSimp": ("ud_zh/zh_gsdsimp-ud-test.conllu", "conll")}
PKUSEG_SDIST = "pkuseg==0.0.25"


def gold_lines(path: Path, fmt: str) -> List[List[str]]:
    return [s.words for s in read_sentences(path, fmt) if s.words]


def spans(words: Sequence[str]) -> set:
    out, start = set(), 0
    for word in words:
        out.add((start, start + len(word)))
        start += len(word)
    return out


def word_f(golds: Sequence[Sequence[str]], preds: Sequence[Sequence[str]]) -> Dict[str, float]:
    n_gold = n_pred = correct = 0
    for gold, pred in zip(golds, preds):
        pred = [w for w in pred if w.strip()]
        if "".join(pred) != "".join(gold):
            raise ValueError(f"segmenter changed the text: {''.join(gold)!r} -> {''.join(pred)!r}")
        g, p = spans(gold), spans(pred)
        n_gold, n_pred, correct = n_gold + len(g), n_pred + len(p), correct + len(g & p)
    precision, recall = correct / n_pred, correct / n_gold
    return {"p": round(100 * precision, 2), "r": round(100 * recall, 2),
            "f": round(100 * 2 * precision * recall / (precision + recall), 2)}


def pkuseg_default(cache: Path) -> Path:
    """The folder of pkuseg 0.0.25's default model (features.pkl, weights.npz), fetched once."""
    folder = cache / "pkuseg-0.0.25-default"
    if (folder / "weights.npz").exists():
        return folder
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        "--no-build-isolation", "-d", tmp, PKUSEG_SDIST], check=True)
        sdist = next(Path(tmp).glob("pkuseg-*.tar.gz"))
        part = Path(tmp) / "x"
        with tarfile.open(sdist) as tar:
            members = [m for m in tar.getmembers() if "/pkuseg/models/default/" in m.name and m.isfile()]
            tar.extractall(part, members=members)
        part_folder = next(part.glob("*/pkuseg/models/default"))
        folder.parent.mkdir(parents=True, exist_ok=True)
        part_folder.rename(folder)
    return folder


def segmenters(args) -> Dict[str, Callable[[List[str]], List[List[str]]]]:
    out = {}
    granularities = [g for g in args.granularity.split(",") if g]
    for spec in args.model:
        name, _, path = spec.rpartition("=")
        name = name or Path(path).name
        for granularity in granularities:
            def run(texts, path=path, granularity=granularity):
                import spacy

                from spacy_gdcws.app.segment import keep_words_only, set_granularity

                nlp = spacy.load(path)
                keep_words_only(nlp)  # the words alone: a tagger and parser after the segmenter change none
                if granularity != "saved":
                    set_granularity(nlp, granularity)
                return [[t.text for t in doc if not t.is_space] for doc in nlp.pipe(texts, batch_size=256)]

            out[name if granularity == "saved" else f"{name} ({granularity})"] = run
    if "pkuseg" in args.systems:
        def run_pkuseg(texts):
            import spacy_pkuseg
            cutter = spacy_pkuseg.pkuseg(model_name=str(pkuseg_default(args.cache)), user_dict="default")
            return [cutter.cut(t) for t in texts]

        out["pkuseg (default model)"] = run_pkuseg
    if "jieba" in args.systems:
        def run_jieba(texts):
            import jieba
            jieba.setLogLevel(60)
            return [jieba.lcut(t) for t in texts]

        out["jieba"] = run_jieba
    return out


def markdown(results: Dict[str, Dict[str, Dict[str, float]]]) -> str:
    sets = list(TEST_SETS) + [s for s in EXTRA_SETS if any(s in r for r in results.values())]
    lines = ["| test set | " + " | ".join(results) + " |", "|---|" + "---|" * len(results)]
    for s in sets:
        lines.append(f"| {s} | " + " | ".join(f"{r[s]['f']:.2f}" if s in r else "" for r in results.values()) + " |")
    lines.append("| mean of the six | " + " | ".join(f"{r['mean']:.2f}" for r in results.values()) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", default=[], help="NAME=PATH or PATH of a pipeline (repeatable)")
    parser.add_argument("--granularity", default="saved",
                        help="comma list of saved (the pipeline's), fine, coarse: each model in each")
    parser.add_argument("--systems", default="pkuseg,jieba", help="baselines to run: pkuseg, jieba (comma list)")
    parser.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--cache", type=Path, default=ROOT / "training" / "baselines")
    parser.add_argument("--output", type=Path, help="JSON of the results (and a .md table beside it)")
    args = parser.parse_args()
    sets = {name: gold_lines(args.corpora / rel, fmt) for name, (rel, fmt) in {**TEST_SETS, **EXTRA_SETS}.items()
            if (args.corpora / rel).exists()}
    results, seconds = {}, {}
    for name, run in segmenters(args).items():
        start = time.perf_counter()
        results[name] = {s: word_f(gold, run(["".join(w) for w in gold])) for s, gold in sets.items()}
        seconds[name] = round(time.perf_counter() - start, 1)
        six = [results[name][s]["f"] for s in TEST_SETS if s in results[name]]
        results[name]["mean"] = round(sum(six) / len(six), 2)
        print(name, {s: r["f"] if isinstance(r, dict) else r for s, r in results[name].items()}, seconds[name], "s",
              file=sys.stderr)
    table = markdown(results)
    print(table)
    if args.output:
        command = "python research/benchmarks/out_of_box.py " + " ".join(sys.argv[1:])
        atomic_write_text(args.output, json.dumps({"command": command, "seconds": seconds, "results": results},
                                                  indent=2, ensure_ascii=False) + "\n")
        atomic_write_text(args.output.with_suffix(".md"), table + "\n")


if __name__ == "__main__":
    main()
