"""Segment lines of text with a pipeline, keeping every line."""
import sys
from pathlib import Path
from typing import IO, Iterable, Iterator, List, Optional, Union

from spacy.language import Language
from spacy.tokens import Doc


def doc_words(doc: Doc) -> List[str]:
    """The words of a doc, whitespace tokens left out."""
    return [t.text for t in doc if not t.is_space]


def clean_line(line: str) -> str:
    """A line without its line end (LF or CRLF)."""
    return line.rstrip("\n").rstrip("\r")


def read_text_lines(path: Optional[Union[str, Path]]) -> List[str]:
    """All lines of a UTF-8 file (or stdin), BOM and line ends removed; empty lines kept."""
    if path is None or str(path) == "-":
        text = sys.stdin.read()
    else:
        text = Path(path).read_text(encoding="utf8")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def segment_lines(nlp: Language, lines: Iterable[str], batch_size: int = 256, n_process: int = 1) -> Iterator[Doc]:
    """One doc per line, in order (empty lines give empty docs)."""
    return nlp.pipe(lines, batch_size=batch_size, n_process=n_process)


def write_segmented(docs: Iterable[Doc], out: IO[str], delimiter: str = "  ") -> int:
    """Write the words of each doc as one line; RETURNS the number of lines."""
    n = 0
    for doc in docs:
        out.write(delimiter.join(doc_words(doc)) + "\n")
        n += 1
    return n
