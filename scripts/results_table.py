"""Fill the README's results table from metrics/*.json.

    python scripts/results_table.py            # print the table
    python scripts/results_table.py --write    # also replace it in README.md
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- results:start -->", "<!-- results:end -->"


def pct(value):
    return "–" if value is None else f"{100 * value:.1f}"


def table() -> str:
    rows = [
        "| run (corpus.config) | P | R | F | OOV rate | OOV-R | IV-R | chars/s (CPU, 2 cores) | scorer |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for path in sorted((ROOT / "metrics").glob("*.json")):
        data = json.loads(path.read_text())
        fig = data.get("official") or data["python"]
        scorer = "official perl" if data.get("official") else "Python port"
        rows.append(
            f"| {data.get('name') or path.stem} | {pct(fig['precision'])} | {pct(fig['recall'])} | "
            f"**{pct(fig['f'])}** | {pct(fig['oov_rate'])} | {pct(fig['oov_recall'])} | "
            f"{pct(fig['iv_recall'])} | {data.get('chars_per_second') or '–'} | {scorer} |"
        )
    return "\n".join(rows)


def main() -> None:
    text = table()
    print(text)
    if "--write" in sys.argv:
        readme = ROOT / "README.md"
        content = readme.read_text(encoding="utf8")
        head, rest = content.split(START, 1)
        _, tail = rest.split(END, 1)
        readme.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf8")


if __name__ == "__main__":
    main()
