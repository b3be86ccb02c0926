"""What a corpus run did (`Summary`), and which of its files may be committed: those whose every
chunk was written exactly once (`finished_files`) and whose input did not change while it ran
(`unchanged`); the others fail alone, each with its coded error."""
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from spacy_gdcws.app.corpus.files import CorpusFile
from spacy_gdcws.errors import Errors


@dataclass
class Summary:
    """What a run did: files segmented, skipped (done before) and failed (with their coded
    error), lines, characters, seconds."""

    files: int = 0
    skipped: List[str] = field(default_factory=list)
    failed: List[Tuple[str, str]] = field(default_factory=list)
    lines: int = 0
    chars: int = 0
    seconds: float = 0.0
    retries: int = 0
    # where the time went: seconds of reading, segmenting and writing chunks, summed over the workers
    # (each chunk once), and the commit's wall seconds
    stages: Dict[str, float] = field(default_factory=lambda: {"read": 0.0, "segment": 0.0, "write": 0.0,
                                                                "commit": 0.0})

    @property
    def chars_per_second(self) -> float:
        return self.chars / self.seconds if self.seconds else 0.0



def finished_files(todo: Sequence[CorpusFile], records: Sequence[Dict[str, Any]], summary: Summary) -> List[Tuple[int, int]]:
    """The files whose every chunk was written exactly once: (index, number of chunks); the
    others go to `summary.failed` with their coded error (E015 bad line, E069 a chunk missing)."""
    chunks: Dict[int, List[int]] = defaultdict(list)
    ends: Dict[int, Tuple[int, Optional[str]]] = {}
    seen = set()
    for r in records:
        if (r["file"], r["chunk"]) in seen:  # a chunk written twice (a retried task): one part, counted once
            continue
        seen.add((r["file"], r["chunk"]))
        if r["chunk"] >= 0:
            chunks[r["file"]].append(r["chunk"])
            summary.lines += r["lines"]
            summary.chars += r["chars"]
            summary.retries += r["retries"]
            for stage in ("read", "segment", "write"):
                summary.stages[stage] += r[f"{stage}_s"]
        else:
            ends[r["file"]] = (r["n_chunks"], r["error"])
    ready = []
    for index, file in enumerate(todo):
        n, error = ends.get(index, (-1, None))
        got = sorted(chunks.get(index, []))
        if error:
            summary.failed.append((file.relative, error))
        elif n < 0 or got != list(range(n)):
            if n < 0 and not got:  # not one row: the file could not be read at all
                message = "it could not be read (gone since it was listed?)"
                summary.failed.append((file.relative, Errors.E016.format(path=file.source, message=message)))
            else:
                summary.failed.append((file.relative, Errors.E069.format(path=file.source, chunk=len(got),
                                                                         what="missing")))
        else:
            ready.append((index, n))
    return ready


def unchanged(todo: Sequence[CorpusFile], ready: List[Tuple[int, int]], before: Sequence[Dict[str, Any]], in_fs: Any,
               summary: Summary) -> List[Tuple[int, int]]:
    """The ready files whose input is as it was before the run read it; one that changed or went
    meanwhile fails alone (E130): its output would not be the segmentation of what is there."""
    kept = []
    for index, n in ready:
        if todo[index].identity_now(in_fs) == before[index]:
            kept.append((index, n))
        else:
            summary.failed.append((todo[index].relative, Errors.E130.format(path=todo[index].source)))
    return kept
