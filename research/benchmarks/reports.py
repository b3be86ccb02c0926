"""The benchmarks' one way to hand over a report: printed as JSON, and written whole (a temporary
file, then renamed) to `--output` when given."""
import json
import platform
from pathlib import Path
from typing import Any, Dict, Optional

from spacy_gdcws.io import atomic_write_text

#: the benchmarks' input where none is given: SXU test (gold words), from the corpora beside the repository
SXU_TEST = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "sxu" / "test.txt"


def emit(report: Dict[str, Any], output: Optional[Path]) -> None:
    """Print `report` as indented JSON and write the same text to `output` (if any)."""
    text = json.dumps(report, indent=2)
    print(text)
    if output:
        atomic_write_text(output, text + "\n")


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo), else what `platform` says: named beside every rate."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()

