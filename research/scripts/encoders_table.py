"""The encoder comparison table of docs/encoders.md, from the committed metrics.

    python research/scripts/encoders_table.py            # print it
    python research/scripts/encoders_table.py --write    # and replace it in docs/encoders.md

Rows: research/metrics/encoders/CORPUS.CONFIG.json (research/scripts/compare_encoders.sh: official scorer,
greedy decoding, the same embedding and budget), the cross-domain runs (SXU models on ZX
and UD test), and from each learning curve (research/metrics/encoders/curves/) the best dev F, the
step and wall-clock seconds at which it was reached, and the training characters per second
of that run (the runs shared the 2 cores with other jobs: research/benchmarks/train_speed.py measures
training speed side by side). Baselines: research/metrics/CORPUS.pkuseg.json and .jieba.json.
"""
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

from marked import write_table

ROOT = Path(__file__).resolve().parents[2]
METRICS = ROOT / "research" / "metrics"
CONFIGS = [("default", "GD-Transformer (biaffine gaps)"), ("san", "L-SAN-CRF"), ("idcnn", "ID-CNN-CRF"),
           ("bilstm", "BiLSTM-CRF"), ("fast4", "ID-CNN-CRF, half width, four passes (`fast.cfg` of 2026-11-25)"),
           # 2,500 steps on every corpus (ensemble_recipe.sh's seed-0 member; compare_encoders.sh for fastest)
           ("fast_s0", "ID-CNN-CRF, half width, one pass (`fast`), 2,500 steps"),
           ("fastest", "ID-CNN-CRF, width 48, one pass (`fastest`), 2,500 steps")]
CORPORA = ["sxu", "ud", "zx"]
# variants trained on SXU (some also on UD and ZX; same budget; compare_encoders.sh with SUFFIX and EXTRA: docs/encoders.md)
SXU_VARIANTS = [("default_nopos", "GD-Transformer, no sinusoidal positions (`positions = false`)"),
                ("san_rel", "L-SAN-CRF, offset bias only, sinusoidal positions (`san.cfg` of a33cc52)"),
                ("san_nopos", "L-SAN-CRF, offset bias only, no sinusoidal positions"),
                ("san_abs", "L-SAN-CRF, sinusoidal positions only, no offset bias"),
                ("san_rel_w128", "L-SAN-CRF, offset bias, sinusoidal positions, width 128 (2 heads of 64)"),
                ("san_drop01", "L-SAN-CRF, offset bias, sinusoidal positions, encoder dropout 0.1"),
                ("san_ff400", "L-SAN-CRF, offset bias, sinusoidal positions, feed-forward 400"),
                ("san_lr004", "L-SAN-CRF, offset bias, sinusoidal positions, learning rate 0.004"),
                ("idcnn_vectors", "ID-CNN-CRF + character vectors (floret on SXU train)"),
                ("fast_8000", "ID-CNN-CRF, half width, four passes, 8,000-step horizon (stopped at 3,750)"),
                ("fast_it1_4000", "ID-CNN-CRF, half width, one pass, 4,000-step horizon"),
                ("fast_it1_w32", "ID-CNN-CRF, width 32, one pass, 2,500 steps")]


def _load(path: Path) -> Optional[Dict]:
    return json.loads(path.read_text(encoding="utf8")) if path.exists() else None


def _fo(result: Optional[Dict]) -> str:
    if result is None:
        return "pending"
    p = result["python"]
    return f"{100 * p['f']:.2f} / {100 * p['oov_recall']:.1f}"


def _curve(corpus: str, config: str) -> str:
    path = METRICS / "encoders" / "curves" / f"{corpus}.{config}.jsonl"
    if not path.exists():
        return "– | – | –"
    rows = [json.loads(line) for line in path.read_text(encoding="utf8").splitlines() if line.strip()]
    best = max(rows, key=lambda r: r["score"])
    last = rows[-1]
    speed = last["words"] / last["seconds"] if last["seconds"] else 0
    return f"{100 * best['score']:.2f} @ {best['step']} | {best['seconds']:.0f} s | {speed:,.0f}"


def table() -> str:
    lines: List[str] = [
        "| system | SXU F / OOV-R | UD F / OOV-R | ZX F / OOV-R | SXU → ZX | SXU → UD | SXU best dev F @ step | time to it | gold words/s, shared CPU |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for config, label in CONFIGS:
        cells = [_fo(_load(METRICS / "encoders" / f"{c}.{config}.json")) for c in CORPORA]
        cross = [_fo(_load(METRICS / "encoders" / f"sxu_to_{t}.{config}.json")) for t in ("zx", "ud")]
        lines.append(f"| {label} | " + " | ".join(cells + cross) + f" | {_curve('sxu', config)} |")
    for config, label in SXU_VARIANTS:
        # a variant's UD and ZX cells where it was also run there
        cells = [_fo(_load(METRICS / "encoders" / f"sxu.{config}.json"))] + [
            _fo(_load(path)) if path.exists() else "–"
            for path in (METRICS / "encoders" / f"{c}.{config}.json" for c in ("ud", "zx"))]
        cross = [_fo(_load(METRICS / "encoders" / f"sxu_to_{t}.{config}.json")) for t in ("zx", "ud")]
        lines.append(f"| {label} | " + " | ".join(cells + cross) + f" | {_curve('sxu', config)} |")
    for method, label in (("pkuseg", "pkuseg, retrained on the same split"), ("jieba", "jieba, default dictionary")):
        cells = [_fo(_load(METRICS / f"{c}.{method}.json")) for c in CORPORA]
        lines.append(f"| {label} | " + " | ".join(cells) + " | – | – | – | – | – |")
    return "\n".join(lines)


def main() -> None:
    text = table()
    print(text)
    if "--write" in sys.argv:
        write_table(ROOT / "docs" / "encoders.md", "encoders", text)


if __name__ == "__main__":
    main()
