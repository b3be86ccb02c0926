"""Segment lines of text with a pipeline, keeping every line."""
import sys
from pathlib import Path
from typing import IO, Iterable, Iterator, List, Optional, Union

from spacy.language import Language
from spacy.tokens import Doc

from .readers.base import read_lines, split_lines


def doc_words(doc: Doc) -> List[str]:
    """The words of a doc, whitespace tokens left out."""
    return [t.text for t in doc if not t.is_space]


def read_text_lines(path: Optional[Union[str, Path]]) -> List[str]:
    """All lines of a UTF-8 file (or stdin for None / "-"), BOM and line ends
    (LF or CRLF) removed; empty lines kept. A line that is not UTF-8 raises
    with its file and line number."""
    if path is None or str(path) == "-":
        return [text for _, text in split_lines(sys.stdin.buffer.read(), "<stdin>")]
    return [text for _, text in read_lines(path)]


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
