"""The entity tables of docs/ner.md, from the metrics committed under research/metrics/:

- `ner-dev`: #78's held-out dev runs (`ner_dev_run.sh`, `ner_dev_table.py --json`), one row per variant;
- `ner-test`: `zh_gdcws` (the mean and sample standard deviation over the seeds of README command 1,
  `main_job_seeds.py`'s copies: each seed's `ud_gsd_more_entities*.json`), the spaCy baselines
  (`uner_baselines.sh`'s `metrics/`), and Universal NER's published XLM-R Large.

    python research/scripts/uner_table.py --seeds research/metrics/main_job/round8_seeds \\
        --baselines research/metrics/ner_uner/baselines --dev research/metrics/main_job/pipeline_design/entities/dev.json \\
        --write
"""
import argparse
import json
import re
import statistics
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "ner.md"
# Mayhew et al. (NAACL 2024), Table 3: XLM-R Large fine-tuned on each dataset, gold words
PUBLISHED = {"gsdsimp": 89.4, "gsd": 89.5}
DEV_NAMES = {"C128": "CRF tagger, hidden width 128 (**chosen**)", "C256": "CRF tagger, hidden width 256",
             "E128": "softmax tagger, IOB2-constrained Viterbi, width 128", "N0": "no entity tagger (the parse alone)"}


def f(report: dict, mode: str) -> float:
    return 100 * report[mode]["overall"]["f"]


def per_type(report: dict, mode: str, label: str) -> float:
    return 100 * report[mode]["per_type"].get(label, {"f": 0.0})["f"]


def mean_sd(values: List[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.mean(values):.2f} ± {statistics.stdev(values):.2f}"


def seed_rows(folders: List[Path]) -> List[str]:
    reports = [(json.loads((d / "ud_gsd_more_entities.json").read_text()),
                json.loads((d / "ud_gsd_more_entities_gsd.json").read_text())) for d in folders]
    cells = [mean_sd([f(r, "raw_text") for r, _ in reports]), mean_sd([f(r, "gold_words") for r, _ in reports]),
             *(f"{statistics.mean(per_type(r, 'raw_text', t) for r, _ in reports):.1f}" for t in ("PER", "LOC", "ORG")),
             mean_sd([f(g, "raw_text") for _, g in reports]), mean_sd([f(g, "gold_words") for _, g in reports])]
    return [f"| `zh_gdcws` (the main job, {len(folders)} seeds) | " + " | ".join(cells) + " |"]


BASELINES = (("words", "spaCy `ner` (CPU config) on the segmenter's words"),
             ("chars", "spaCy `ner` (CPU config) on characters"))


def baseline_reports(folder: Path, split: str) -> Iterator[Tuple[str, dict, dict, bool]]:
    """Each baseline's name, its reports on UNER GSDSimp's and GSD's `split` file, and whether it reads
    characters (no gold-word score then)."""
    for run, name in BASELINES:
        simp = json.loads((folder / f"{run}_zh_gsdsimp-ud-{split}.json").read_text())
        trad = json.loads((folder / f"{run}_zh_gsd-ud-{split}.json").read_text())
        yield name, simp, trad, run == "chars"


def baseline_rows(folder: Path) -> List[str]:
    rows = []
    for name, simp, trad, chars in baseline_reports(folder, "test"):
        gold = (lambda r: "–") if chars else (lambda r: f"{f(r, 'gold_words'):.2f}")
        rows.append(f"| {name} | {f(simp, 'raw_text'):.2f} | {gold(simp)} | "
                    + " | ".join(f"{per_type(simp, 'raw_text', t):.1f}" for t in ("PER", "LOC", "ORG"))
                    + f" | {f(trad, 'raw_text'):.2f} | {gold(trad)} |")
    return rows


def test_table(seeds: List[Path], baselines: Path) -> str:
    head = ["| system | GSDSimp F, raw text | GSDSimp F, gold words | PER | LOC | ORG | GSD (trad.) F, raw text | GSD F, gold words |",
            "|---|---|---|---|---|---|---|---|"]
    published = (f"| XLM-R Large (Universal NER's paper, gold words) | | {PUBLISHED['gsdsimp']} | | | | | "
                 f"{PUBLISHED['gsd']} |")
    return "\n".join(head + seed_rows(seeds) + baseline_rows(baselines) + [published])


def dev_baseline_rows(folder: Path) -> List[str]:
    rows = []
    for name, simp, trad, chars in baseline_reports(folder, "dev"):
        gold = "–" if chars else f"{f(simp, 'gold_words'):.2f}"
        rows.append(f"| {name} | {f(simp, 'raw_text'):.2f} | {gold} | {f(trad, 'raw_text'):.2f} | – | – | – |")
    return rows


def dev_table(dev: dict, baselines: Optional[Path] = None) -> str:
    head = ["| variant (UNER GSDSimp dev, held out) | entity F, raw text | entity F, gold words | GSD dev (trad.) F | UPOS | LAS | LAS, gold words |",
            "|---|---|---|---|---|---|---|"]
    rows = []
    for key, row in dev.items():
        name = DEV_NAMES.get(key.split(" ")[0], key)
        ents = (" – | – | – |" if not row["ents_raw"] else
                f" {row['ents_raw']:.2f} | {row['ents_gold_words']:.2f} | {row['gsd_ents_raw']:.2f} |")
        rows.append(f"| {name} |{ents} "
                    f"{row['upos']:.2f} | {row['las']:.2f} | {row['las_gold_words']:.2f} |")
    return "\n".join(head + rows + (dev_baseline_rows(baselines) if baselines else []))


def write(marker: str, table: str) -> None:
    text = PAGE.read_text(encoding="utf8")
    pattern = re.compile(rf"(<!-- {marker}:start -->\n).*?(<!-- {marker}:end -->)", re.S)
    PAGE.write_text(pattern.sub(lambda m: m.group(1) + table + "\n" + m.group(2), text), encoding="utf8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=Path, help="main_job_seeds.py's output folder (s0, s1, ... inside)")
    parser.add_argument("--baselines", type=Path)
    parser.add_argument("--dev", type=Path, help="ner_dev_table.py --group --json's file")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    tables: Dict[str, Optional[str]] = {"ner-dev": None, "ner-test": None}
    if args.dev:
        tables["ner-dev"] = dev_table(json.loads(args.dev.read_text()), args.baselines)
    if args.seeds and args.baselines:
        folders = sorted(p for p in args.seeds.iterdir() if (p / "ud_gsd_more_entities.json").exists())
        tables["ner-test"] = test_table(folders, args.baselines)
    for marker, table in tables.items():
        if table:
            print(table)
            if args.write:
                write(marker, table)


if __name__ == "__main__":
    main()
