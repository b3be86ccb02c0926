"""Evaluate a pipeline on a gold test file the way the CWS literature does."""
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from spacy_gdcws.errors import Errors
from spacy_gdcws.eval.scorer import score_segmentation
from spacy_gdcws.eval.sighan import parse_perl_summary, score_files
from spacy_gdcws.io import atomic_write_text
from spacy_gdcws.pipeline.words import doc_words
from spacy_gdcws.readers.base import read_text_lines

# the official SIGHAN bakeoff `score` script, shipped with the package
OFFICIAL_SCORE_SCRIPT = Path(__file__).parent / "sighan_score" / "score"


def perl_scorer_missing(script: Union[str, Path]) -> Optional[str]:
    """Why the official perl `score` script cannot run here (None: it can)."""
    if not Path(script).is_file():
        return f"the script {script} does not exist"
    for tool in ("perl", "diff"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not on the PATH (the official script needs perl and diff)"
    return None


def run_perl_scorer(script: Union[str, Path], dictionary: Path, gold: Path, pred: Path) -> Optional[Dict[str, Any]]:
    """Run the official perl `score` script; None where it cannot run (`perl_scorer_missing`)."""
    if perl_scorer_missing(script) is not None:
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
    """Segment the test text line by line with a pipeline, write the
    predictions, score them (see `evaluate_words`)."""
    raw_lines = raw_test_lines(gold, raw)
    start = time.perf_counter()
    docs: List[Doc] = list(nlp.pipe(raw_lines, batch_size=batch_size))
    seconds = time.perf_counter() - start
    return evaluate_words([doc_words(doc) for doc in docs], gold, dictionary, pred_output, perl_script, seconds)


def read_vocabulary(path: Path) -> Set[str]:
    """The training vocabulary: one word per line, surrounding whitespace ignored."""
    return {w.strip() for w in read_text_lines(path)} - {""}


def raw_test_lines(gold: Path, raw: Optional[Path] = None) -> List[str]:
    """The raw test lines: the raw file, or the gold lines without whitespace;
    line-aligned with the gold file (empty lines kept)."""
    gold_lines = read_text_lines(gold)
    raw_lines = read_text_lines(raw) if raw is not None else ["".join(line.split()) for line in gold_lines]
    if len(raw_lines) != len(gold_lines):
        raise ValueError(Errors.E020.format(test=raw, n_pred=len(raw_lines), gold=gold, n_gold=len(gold_lines),
                                            shorter=raw if len(raw_lines) < len(gold_lines) else gold,
                                            line=min(len(raw_lines), len(gold_lines)) + 1))
    return raw_lines


def evaluate_words(
    predicted: Sequence[Sequence[str]],
    gold: Path,
    dictionary: Path,
    pred_output: Path,
    perl_script: Optional[Path] = None,
    seconds: Optional[float] = None,
) -> Dict[str, Any]:
    """Write a predicted segmentation (one line per gold line) and score it.

    predicted (Sequence[Sequence[str]]): The words of each test line.
    gold (Path): Gold segmentation (SIGHAN format; empty lines allowed).
    dictionary (Path): Training vocabulary (one word per line).
    pred_output (Path): Where to write the predictions (words two spaces apart).
    perl_script (Optional[Path]): The official `score` script (default: the
        copy shipped in `spacy_gdcws/eval/sighan_score/`).
    seconds (Optional[float]): Time the segmentation took, for characters/s.
    RETURNS (Dict[str, Any]): The official figures, the Python scorer's, spaCy's
        scores, and the speed.
    """
    gold_lines = read_text_lines(gold)
    if len(predicted) != len(gold_lines):
        raise ValueError(Errors.E020.format(test="the segmentation", n_pred=len(predicted), gold=gold, n_gold=len(gold_lines),
                                            shorter="the segmentation" if len(predicted) < len(gold_lines) else gold,
                                            line=min(len(predicted), len(gold_lines)) + 1))
    n_chars = sum(len(w) for words in predicted for w in words)
    atomic_write_text(pred_output, "".join("  ".join(words) + "\n" for words in predicted))
    vocabulary = read_vocabulary(dictionary)
    vocab = Vocab()
    examples = []
    for words, line in zip(predicted, gold_lines):
        gold_words = line.split()
        if gold_words:
            pred_doc = Doc(vocab, words=list(words), spaces=[False] * len(words))
            examples.append(Example(pred_doc, Doc(vocab, words=gold_words, spaces=[False] * len(gold_words))))
    python_scores = score_files(dictionary, gold, pred_output).to_dict()
    script = perl_script or OFFICIAL_SCORE_SCRIPT
    official = run_perl_scorer(script, dictionary, gold, pred_output)
    return {
        "official": official,
        "scorer": {"official_script": str(script), "ran": "official perl script and Python port" if official else "Python port only",
                   "why_not_official": None if official else perl_scorer_missing(script)},
        "python": python_scores,
        "scorers_agree": None if official is None else _agree(official, python_scores),
        "spacy": score_segmentation(examples, vocabulary=vocabulary),
        "chars": n_chars,
        "seconds": None if seconds is None else round(seconds, 3),
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
