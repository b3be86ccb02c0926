"""Evaluate a pipeline on a gold test file the way the CWS literature does."""
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example

from .errors import Errors
from .scorer import score_segmentation
from .segment import doc_words, read_text_lines
from .sighan import parse_perl_summary, score_files


def run_perl_scorer(script: Union[str, Path], dictionary: Path, gold: Path, pred: Path) -> Optional[Dict[str, Any]]:
    """Run the official perl `score` script; None where perl or diff is missing."""
    if not Path(script).exists() or shutil.which("perl") is None or shutil.which("diff") is None:
        return None
    out = subprocess.run(
        ["perl", str(script), str(dictionary), str(gold), str(pred)], capture_output=True, check=True
    ).stdout.decode("utf8", errors="replace")
    return parse_perl_summary(out)


def evaluate_segmenter(
    nlp: Language,
    gold: Path,
    dictionary: Path,
    pred_output: Path,
    raw: Optional[Path] = None,
    perl_script: Optional[Path] = None,
    batch_size: int = 256,
) -> Dict[str, Any]:
    """Segment the test text line by line, write the predictions, score them.

    gold (Path): Gold segmentation (SIGHAN format; empty lines allowed).
    dictionary (Path): Training vocabulary (one word per line).
    pred_output (Path): Where to write the predicted segmentation.
    raw (Optional[Path]): Raw test text; by default the gold lines without whitespace.
    perl_script (Optional[Path]): The official `score` script.
    RETURNS (Dict[str, Any]): The official figures, the Python scorer's, spaCy's
        scores, and the speed in characters per second.
    """
    gold_lines = read_text_lines(gold)
    raw_lines = read_text_lines(raw) if raw is not None else ["".join(line.split()) for line in gold_lines]
    if len(raw_lines) != len(gold_lines):
        raise ValueError(Errors.E020.format(n_pred=len(raw_lines), n_gold=len(gold_lines)))
    start = time.perf_counter()
    docs: List[Doc] = list(nlp.pipe(raw_lines, batch_size=batch_size))
    seconds = time.perf_counter() - start
    n_chars = sum(len(line) for line in raw_lines)
    pred_output.parent.mkdir(parents=True, exist_ok=True)
    pred_output.write_text("".join("  ".join(doc_words(doc)) + "\n" for doc in docs), encoding="utf8")
    vocabulary = set(read_text_lines(dictionary))
    vocabulary = {w.strip() for w in vocabulary} - {""}
    examples = []
    for doc, line in zip(docs, gold_lines):
        words = line.split()
        if words:
            examples.append(Example(doc, Doc(nlp.vocab, words=words, spaces=[False] * len(words))))
    python_scores = score_files(dictionary, gold, pred_output).to_dict()
    official = run_perl_scorer(perl_script, dictionary, gold, pred_output) if perl_script else None
    return {
        "official": official,
        "python": python_scores,
        "scorers_agree": None if official is None else _agree(official, python_scores),
        "spacy": score_segmentation(examples, vocabulary=vocabulary),
        "chars": n_chars,
        "seconds": round(seconds, 3),
        "chars_per_second": round(n_chars / seconds, 1) if seconds else None,
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
        },
    }


def _agree(perl: Dict[str, Any], python: Dict[str, Any]) -> bool:
    """Whether the Python scorer prints the perl script's digits."""
    for key, value in perl.items():
        mine = python.get(key)
        if value is None or mine is None:
            if value != mine:
                return False
        elif isinstance(value, float) and key not in ("true_words", "test_words"):
            if f"{mine:2.3f}" != f"{value:2.3f}":
                return False
        elif int(value) != int(mine):
            return False
    return True
