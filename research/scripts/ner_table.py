"""The NER table of docs/ner.md (and its README row), from research/metrics/ner/*.json.

    python research/scripts/ner_table.py            # print it
    python research/scripts/ner_table.py --write    # and replace it in docs/ner.md

Each JSON is written by `spacy-gdcws evaluate-ner` (project command `evaluate-ner`):
entities of Resume NER test scored on character offsets, and the share of gold
entities whose edges fall inside a token of that tokenization (test and train).
"""
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

from marked import write_table

ROOT = Path(__file__).resolve().parents[2]
METRICS = ROOT / "research" / "metrics" / "ner"
RUNS = [
    ("segmenter", "our segmenter (`configs/idcnn.cfg` on UD GSD train, frozen, annotating)"),
    ("pkuseg", "pkuseg, retrained on the same UD GSD sentences, full-width punctuation as user dictionary"),
    ("pkuseg_plain", "pkuseg, retrained on the same UD GSD sentences, as spaCy runs it"),
    ("jieba", "jieba, default dictionary"),
    ("char", "one token per character"),
]
TYPES = ["NAME", "CONT", "RACE", "TITLE", "EDU", "ORG", "PRO", "LOC"]
# Zhang & Yang (2018), Lattice LSTM, Resume NER test F (published; a character model with a word lattice)
LATTICE_F = 94.46


def _load(name: str) -> Optional[Dict]:
    path = METRICS / f"{name}.json"
    return json.loads(path.read_text(encoding="utf8")) if path.exists() else None


def table() -> str:
    lines: List[str] = [
        "| tokens | P | R | F | unreachable (test) | unreachable (train) | recall of reachable | "
        + " | ".join(f"{t} F" for t in TYPES) + " |",
        "|---|---|---|---|---|---|---|" + "---|" * len(TYPES),
    ]
    for name, label in RUNS:
        m = _load(name)
        if m is None:
            lines.append(f"| {label} | pending |" + " |" * (6 + len(TYPES)))
            continue
        o, lost = m["overall"], m["unreachable"]
        train = m.get("train_unreachable")
        train_cell = f"{100 * train['share']:.2f}%" if train else "–"
        types = [f"{100 * m['per_type'][t]['f']:.1f}" if t in m["per_type"] else "–" for t in TYPES]
        lines.append(
            f"| {label} | {100 * o['p']:.2f} | {100 * o['r']:.2f} | **{100 * o['f']:.2f}** | "
            f"{100 * lost['share']:.2f}% ({lost['unreachable']} of {lost['gold']}) | {train_cell} | "
            f"{100 * m['reachable_recall']:.2f} | " + " | ".join(types) + " |"
        )
    lines.append(f"| Lattice LSTM (Zhang & Yang 2018, published) | – | – | {LATTICE_F:.2f} | – | – | – |"
                 + " – |" * len(TYPES))
    return "\n".join(lines)


def main() -> None:
    global METRICS
    if "--metrics" in sys.argv:  # the project's own run: `--metrics metrics/ner`
        METRICS = Path(sys.argv[sys.argv.index("--metrics") + 1])
    text = table()
    print(text)
    if "--write" in sys.argv:
        write_table(ROOT / "docs" / "ner.md", "ner", text)


if __name__ == "__main__":
    main()
