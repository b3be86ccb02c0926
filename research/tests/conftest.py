"""The research tests (scripts and benchmarks) use the product tests' helpers (`tests.util`)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.conftest import sxu_sentences, trained_nlp  # noqa: E402,F401  (the shared fixtures)
