"""SIGHAN bakeoff files: one sentence per line, words separated by whitespace.

Handles ASCII spaces (one or two), U+3000 (AS), CRLF line ends, a UTF-8 BOM
(CITYU) and empty lines (which hold no sentence and are skipped, line numbers
kept).
"""
from pathlib import Path
from typing import Iterator, Union

from spacy_gdcws.readers.base import Sentence, read_lines


def read_sighan(path: Union[str, Path]) -> Iterator[Sentence]:
    """Yield one Sentence per non-empty line; `str.split()` splits on every
    Unicode whitespace, U+3000 included."""
    for number, text in read_lines(path):
        words = text.split()
        if words:
            yield Sentence(words=words, line=number)
