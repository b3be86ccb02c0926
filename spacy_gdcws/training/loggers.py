"""Training logger that records the learning curve (dev scores against steps, wall-clock time and
the training process's memory)."""
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, Optional, Tuple

from spacy import Language
from spacy.util import registry


def rss_mb() -> Optional[float]:
    """This process's resident set size in MB (Linux `/proc/self/statm`; None elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fileh:
            pages = int(fileh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


class LearningCurveWriter:
    """Append one JSON line per evaluation to `path`, then call the wrapped logger."""

    def __init__(self, path: Path, log_step: Callable[[Optional[Dict[str, Any]]], None], finalize: Callable[[], None],
                 nlp: Optional[Language] = None) -> None:
        self.path = path
        self.nlp = nlp
        self.log_step_inner = log_step
        self.finalize_inner = finalize
        self.start = time.perf_counter()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = self.path.open("w", encoding="utf8")

    def log_step(self, info: Optional[Dict[str, Any]]) -> None:
        if info is not None:
            record = {
                "step": info["step"],
                "epoch": info["epoch"],
                "seconds": round(time.perf_counter() - self.start, 2),
                "words": info.get("words"),
                "score": info["score"],
                "scores": {k: v for k, v in info["other_scores"].items() if isinstance(v, (int, float))},
                "losses": info["losses"],
                # the process's resident memory now and at its peak (MB), to see whether training grows
                "rss_mb": rss_mb(),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                # the shared vocab's lexemes and strings (what training docs add to it)
                "lexemes": len(self.nlp.vocab) if self.nlp is not None else None,
                "strings": len(self.nlp.vocab.strings) if self.nlp is not None else None,
            }
            self.file.write(json.dumps(record) + "\n")
            self.file.flush()
        self.log_step_inner(info)

    def finalize(self) -> None:
        self.file.close()
        self.finalize_inner()


@registry.loggers("spacy_gdcws.LearningCurveLogger.v2")
def learning_curve_logger_v2(path: str, console: bool = True, progress_bar: Optional[str] = "eval") -> Callable:
    """Log every evaluation to a JSONL file (with wall-clock seconds since the
    start of training) and, if `console`, to spaCy's console logger, with its
    progress bar (`progress_bar`: "eval" = steps to the next evaluation,
    "train" = steps to max_steps, None = none; `spacy.ConsoleLogger.v3`)."""
    console_logger = registry.loggers.get("spacy.ConsoleLogger.v3")(progress_bar=progress_bar)

    def setup(nlp: Language, stdout: IO = sys.stdout, stderr: IO = sys.stderr) -> Tuple[Callable, Callable]:
        if console:
            log_step, finalize = console_logger(nlp, stdout, stderr)
        else:
            log_step, finalize = (lambda info: None), (lambda: None)
        writer = LearningCurveWriter(Path(path), log_step, finalize, nlp)
        return writer.log_step, writer.finalize

    return setup


@registry.loggers("spacy_gdcws.LearningCurveLogger.v1")
def learning_curve_logger(path: str, console: bool = True) -> Callable:
    """v1: `LearningCurveLogger.v2` without a progress bar (configs written before v2)."""
    return learning_curve_logger_v2(path, console, progress_bar=None)
