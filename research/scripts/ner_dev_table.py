"""The table of #78's held-out dev runs (`ner_dev_run.sh`): per run, entity F on UNER GSDSimp dev from
raw text and on gold words, on UNER GSD dev (traditional) from raw text, and the parse on GSDSimp dev
(UPOS and LAS from raw text, LAS on gold words); with `--group`, the mean of the runs whose names
share a prefix up to `_s` (the seeds of one variant).

    python research/scripts/ner_dev_table.py RUNS_DIR [--group] [--json OUT]
"""
import argparse
import json
import statistics
from pathlib import Path
from typing import Dict


def run_scores(folder: Path) -> Dict[str, float]:
    def ner(name: str, mode: str) -> float:
        return round(100 * json.loads((folder / f"ner_{name}.json").read_text())[mode]["overall"]["f"], 2)

    ud = json.loads((folder / "ud_dev.json").read_text())
    return {
        "ents_raw": ner("zh_gsdsimp-ud-dev", "raw_text"), "ents_gold_words": ner("zh_gsdsimp-ud-dev", "gold_words"),
        "gsd_ents_raw": ner("zh_gsd-ud-dev", "raw_text"),
        "upos": round(100 * ud["predicted_segmentation"]["upos"]["f"], 2),
        "las": round(100 * ud["predicted_segmentation"]["las"]["f"], 2),
        "las_gold_words": round(100 * ud["gold_segmentation"]["las"]["f"], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path)
    parser.add_argument("--group", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = {f.name: run_scores(f) for f in sorted(args.runs.iterdir()) if (f / "ner_zh_gsd-ud-dev.json").exists()}
    if args.group:
        groups: Dict[str, list] = {}
        for name, row in rows.items():
            groups.setdefault(name.rsplit("_s", 1)[0], []).append(row)
        rows = {f"{name} (n={len(rs)})": {k: round(statistics.mean(r[k] for r in rs), 2) for k in rs[0]}
                for name, rs in groups.items()}
    keys = ["ents_raw", "ents_gold_words", "gsd_ents_raw", "upos", "las", "las_gold_words"]
    print("| run | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(f"{row[k]:.2f}" for k in keys) + " |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf8")


if __name__ == "__main__":
    main()
