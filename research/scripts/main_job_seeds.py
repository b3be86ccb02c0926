"""The main job's accuracy over seeds: each seed's `evaluate-ud` report (words, sentences, UPOS, XPOS,
UAS, LAS from raw text and on gold words), its entities (`evaluate-ner` on UNER GSDSimp and GSD test,
from raw text and on gold words, where it has them) and the segmenter's official SIGHAN scores, with their mean
and sample standard deviation, from the folders `main_job_seeds.sh` ran README command 1 in.

    python research/scripts/main_job_seeds.py WORK/s0 WORK/s1 WORK/s2 --output research/metrics/main_job/round2_seeds
    (--corpus ud_by_sa: the runs of `VARS="--vars.corpus ud_by_sa" main_job_seeds.sh`)
"""
import argparse
import json
import shutil
import statistics
import subprocess
from pathlib import Path



def reports(corpus: str) -> tuple:
    """The pipeline's and the segmenter's reports of a main job on `corpus` (its `--vars.corpus`)."""
    return f"metrics/{corpus}_pipeline.json", f"metrics/{corpus}.general.json"


def entity_reports(corpus: str) -> tuple:
    """Since #78: the entities on UNER GSDSimp test and GSD test (copied where a run has them)."""
    return f"metrics/{corpus}_entities.json", f"metrics/{corpus}_entities_gsd.json"


def scores(folder: Path, corpus: str = "ud_gsd_more") -> dict:
    """Percent F of each measure in one run's reports."""
    pipeline_report, segmenter_report = reports(corpus)
    pipeline = json.loads((folder / pipeline_report).read_text(encoding="utf8"))
    segmenter = json.loads((folder / segmenter_report).read_text(encoding="utf8"))["official"]
    out = {}
    for mode, short in (("predicted_segmentation", "raw"), ("gold_segmentation", "gold_words")):
        for measure, value in pipeline[mode].items():
            if isinstance(value, dict) and "f" in value and not (short == "gold_words" and measure == "words"):
                out[f"{short}.{measure}"] = round(100 * value["f"], 2)
    out["raw.sentences"] = round(100 * pipeline["sentences"]["sentences"]["f"], 2)
    out["segmenter.official_f"] = round(100 * segmenter["f"], 2)
    out["segmenter.oov_recall"] = round(100 * segmenter["oov_recall"], 2)
    for report, name in zip(entity_reports(corpus), ("gsdsimp", "gsd")):
        if (folder / report).exists():
            entities = json.loads((folder / report).read_text(encoding="utf8"))
            for mode, short in (("raw_text", "raw"), ("gold_words", "gold_words")):
                out[f"entities_{name}.{short}"] = round(100 * entities[mode]["overall"]["f"], 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--corpus", default="ud_gsd_more", help="the runs' --vars.corpus")
    args = parser.parse_args()
    runs = {}
    for folder in args.runs:
        commit = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        runs[folder.name] = {"commit": commit, "scores": scores(folder, args.corpus)}
        for report in reports(args.corpus) + tuple(r for r in entity_reports(args.corpus) if (folder / r).exists()):
            target = args.output / folder.name / Path(report).name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / report, target)
    measures = list(next(iter(runs.values()))["scores"])
    summary = {}
    for measure in measures:
        values = [run["scores"][measure] for run in runs.values()]
        summary[measure] = {"mean": round(statistics.mean(values), 2),
                            "sd": round(statistics.stdev(values), 2) if len(values) > 1 else 0.0,
                            "values": values}
    result = {"runs": runs, "summary": summary}
    (args.output / "summary.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf8")
    for measure, row in summary.items():
        print(f"{measure:28s} {row['mean']:6.2f} ± {row['sd']:.2f}  {row['values']}")


if __name__ == "__main__":
    main()
