"""Shared pieces of the corpus readers, and text files read line by line."""
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator, List, Optional, Tuple, Union

from spacy_gdcws.errors import Errors


class CorpusFormatError(ValueError):
    """A corpus file that cannot be read as its format; names file and line."""


@dataclass
class Sentence:
    """One sentence of a corpus file.

    words: the gold words; tags/pos: XPOS and UPOS (or None); heads: 0-based
    head index per word (a root points to itself); deps: relation labels.
    line: 1-based line number where the sentence starts.
    """

    words: List[str]
    line: int
    tags: Optional[List[str]] = None
    pos: Optional[List[str]] = None
    heads: Optional[List[int]] = None
    deps: Optional[List[str]] = None
    meta: dict = field(default_factory=dict)

    @property
    def n_chars(self) -> int:
        return sum(len(w) for w in self.words)


def fail(path: Union[str, Path], line: int, message: str) -> CorpusFormatError:
    """The error to raise for a bad line (file and line in the message)."""
    return CorpusFormatError(Errors.E015.format(path=path, line=line, message=message))


def read_lines(path: Union[str, Path]) -> Iterator[Tuple[int, str]]:
    """Yield (1-based line number, text) with line ends and a byte-order mark at a line's start removed.

    The file is read as a stream (memory does not grow with its length); it is
    opened at once, so a missing file raises here (E016). Decoding is strict and
    line by line, so a file with mixed encodings reports the first line that is
    not UTF-8.
    """
    path = Path(path)
    try:
        f = path.open("rb")
    except OSError as err:
        raise ValueError(Errors.E016.format(path=path, message=err)) from err
    return iter_lines(f, path, close=True)


def iter_text_lines(path: Optional[Union[str, Path]]) -> Iterator[str]:
    """The lines of a UTF-8 file (or stdin for None / "-"), read as a stream, a byte-order mark at a
    line's start and line ends (LF or CRLF) removed; empty lines kept. A line that is not
    UTF-8 raises with its file and line number."""
    if path is None or str(path) == "-":
        return (text for _, text in iter_lines(sys.stdin.buffer, "<stdin>"))
    return (text for _, text in read_lines(path))


def read_text_lines(path: Optional[Union[str, Path]]) -> List[str]:
    """All lines of a UTF-8 file (or stdin), as `iter_text_lines`."""
    return list(iter_text_lines(path))


def iter_lines(stream: IO[bytes], source: Union[str, Path], close: bool = False) -> Iterator[Tuple[int, str]]:
    """`read_lines` on an open binary stream (a file, stdin); `source` names it in
    errors; `close`: close the stream at the end."""
    try:
        for number, raw in enumerate(stream, start=1):
            # a byte-order mark starts the file, or a line of files concatenated: not text (a word of its
            # own otherwise)
            if raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if raw.endswith(b"\n"):
                raw = raw[:-1]
            yield number, _decode(raw, source, number)
    finally:
        if close:
            stream.close()


def _decode(raw: bytes, source: Union[str, Path], number: int) -> str:
    try:
        text = raw.decode("utf8")
    except UnicodeDecodeError as err:
        raise fail(source, number, f"not valid UTF-8 ({err.reason} at byte {err.start})") from err
    return text.rstrip("\r")


def split_lines(data: bytes, source: Union[str, Path]) -> Iterator[Tuple[int, str]]:
    """`read_lines` on bytes already read; `source` names them in errors."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, raw in enumerate(lines, start=1):
        yield number, _decode(raw, source, number)
