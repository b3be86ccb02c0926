"""The closed-test recipe's table (docs/closed-test.md): each member of `ensemble_recipe.sh` (best dev F,
its step, test F / OOV recall) and the ensemble (dev F, test F / OOV recall, cross-domain), per corpus,
beside pkuseg retrained on the same split; then the same recipe on the whole training files
(`CORPUS_full`, members taken at their last step), beside pkuseg retrained on the whole file.

    python research/scripts/closed_test_table.py --write    # evaluates each ensemble on dev once
        (research/metrics/closed_test/CORPUS.CONFIG_xN.dev.json), then writes the table

Test rows come from research/metrics/encoders/*.json (the official scorer, written by the recipe);
dev F is spaCy's token F on the dev .spacy file (the score models were selected with).
"""
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

from marked import write_table

ROOT = Path(__file__).resolve().parents[2]
METRICS = ROOT / "research" / "metrics"
RECIPES = [("sxu", "fast", 5), ("ud", "fast", 5), ("zx", "fast", 5)]
# the same recipe with its members trained on the whole training file (prepare --dev-fraction 0):
# the dev split is inside their training data, so each member is its last model after STEPS
WHOLE_FILE = {"sxu_full": 2500, "ud_full": 1250, "zx_full": 1000}
RECIPES += [(corpus, "fast", 5) for corpus in WHOLE_FILE]


def _load(path: Path) -> Optional[Dict]:
    return json.loads(path.read_text(encoding="utf8")) if path.exists() else None


def _fo(result: Optional[Dict]) -> str:
    if result is None:
        return "pending"
    return f"{100 * result['official']['f']:.1f} ({100 * result['python']['f']:.2f}) / {100 * result['python']['oov_recall']:.1f}"


def _curve(corpus: str, name: str) -> List[Dict]:
    path = METRICS / "encoders" / "curves" / f"{corpus}.{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf8").splitlines() if line.strip()] if path.exists() else []


def _best_dev(corpus: str, name: str) -> str:
    rows = _curve(corpus, name)
    if not rows:
        return "pending"
    best = max(rows, key=lambda r: r["score"])
    return f"{100 * best['score']:.2f} @ {best['step']}"


def _seconds(corpus: str, name: str) -> float:
    """Wall-clock seconds of the run (its last evaluation)."""
    rows = _curve(corpus, name)
    return rows[-1]["seconds"] if rows else 0.0


def ensemble_dev(corpus: str, config: str, n: int) -> Optional[float]:
    """The ensemble's dev token F, computed once and kept."""
    cached = METRICS / "closed_test" / f"{corpus}.{config}_x{n}.dev.json"
    if cached.exists():
        return json.loads(cached.read_text(encoding="utf8"))["token_f"]
    model = ROOT / "training" / "ens" / f"{corpus}.{config}_x{n}"
    if not model.exists():
        return None
    import spacy
    from spacy.tokens import DocBin
    from spacy.training import Example

    sys.path.insert(0, str(ROOT))
    from spacy_gdcws.io import atomic_write_text

    nlp = spacy.load(model)
    golds = list(DocBin().from_disk(ROOT / "corpus" / corpus / "dev.spacy").get_docs(nlp.vocab))
    token_f = nlp.evaluate([Example(nlp.make_doc(g.text), g) for g in golds])["token_f"]
    atomic_write_text(cached, json.dumps({"model": str(model.relative_to(ROOT)), "dev": f"corpus/{corpus}/dev.spacy",
                                          "token_f": token_f}, indent=2) + "\n")
    return token_f


def table() -> str:
    lines: List[str] = ["| corpus | system | dev F (best @ step) | test F official (Python) / OOV-R | SXU → ZX | SXU → UD | training s |",
                        "|---|---|---|---|---|---|---|"]
    for corpus, config, n in RECIPES:
        whole = corpus in WHOLE_FILE
        label = corpus.split("_")[0].upper() + (" (whole file)" if whole else "")
        for seed in range(n):
            name = f"{config}_s{seed}"
            cross = [_fo(_load(METRICS / "encoders" / f"sxu_to_{t}.{name}.json")) if corpus == "sxu" else "–"
                     for t in ("zx", "ud")]
            dev = f"– (last @ {WHOLE_FILE[corpus]:,})" if whole else _best_dev(corpus, name)
            lines.append(f"| {label} | `{config}.cfg`, seed {seed} | {dev} | "
                         f"{_fo(_load(METRICS / 'encoders' / f'{corpus}.{name}.json'))} | " + " | ".join(cross)
                         + f" | {_seconds(corpus, name):,.0f} |")
        total = sum(_seconds(corpus, f"{config}_s{seed}") for seed in range(n))
        name = f"{config}_x{n}"
        dev = None if whole else ensemble_dev(corpus, config, n)
        dev_cell = "–" if whole else "pending" if dev is None else f"{100 * dev:.2f}"
        cross = [_fo(_load(METRICS / "encoders" / f"{corpus}_to_{t}.{name}.json")) if corpus.startswith("sxu") else "–"
                 for t in ("zx", "ud")]
        lines.append(f"| {label} | **ensemble of the {n}** | {dev_cell} | "
                     f"**{_fo(_load(METRICS / 'encoders' / f'{corpus}.{name}.json'))}** | " + " | ".join(cross)
                     + f" | {total:,.0f} (sum) |")
        pkuseg = _load(METRICS / f"{corpus}.pkuseg.json")
        lines.append(f"| {label} | pkuseg, retrained on the {'whole file' if whole else 'same split'} | – | {_fo(pkuseg)} | – | – | – |")
    return "\n".join(lines)


if __name__ == "__main__":
    text = table()
    print(text)
    if "--write" in sys.argv:
        write_table(ROOT / "docs" / "closed-test.md", "closed-test", text)
