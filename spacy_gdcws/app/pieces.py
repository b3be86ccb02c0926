"""Long lines cut into pieces before segmenting, as jieba and pkuseg cut theirs at punctuation:
what `segment` and `segment-corpus` hold in memory is bounded by the piece, not by the line.

A line longer than `PIECE_CHARS` is cut after the last sentence-final mark (`data.sentences`'
table: 。！？!?… and the closing quotes and brackets after it) before the limit, else after its last whitespace, else at
the limit; the pieces spell the line. A cut after a sentence-final mark falls where the model puts
a word boundary anyway; what it changes is the context the model reads within a window
(`PIECE_CHARS` is 100 windows of the main job's model) of the cut.
`research/benchmarks/long_lines.py` counts the words that differ from the whole line's.
"""
import re
from typing import Iterator

from spacy_gdcws.data.sentences import SENTENCE_END
from spacy_gdcws.errors import Errors

# the longest piece: 50,000 characters (~1.5 s of the main job's model on one CPU thread)
PIECE_CHARS = 50_000
_WHITESPACE = re.compile(r"\s+")


def line_pieces(line: str, limit: int = PIECE_CHARS) -> Iterator[str]:
    """The pieces of `line`, each at most `limit` characters, in order; a line within the limit
    is its own one piece (the empty line too)."""
    if not 1 <= limit <= 2**31 - 1:
        raise ValueError(Errors.E047.format(name="the piece limit", value=limit))
    start = 0
    while len(line) - start > limit:
        window = line[start : start + limit]
        cut = _last_end(SENTENCE_END, window) or _last_end(_WHITESPACE, window) or limit
        yield line[start : start + cut]
        start += cut
    yield line[start:]


def _last_end(pattern: "re.Pattern[str]", text: str) -> int:
    """Where the last match of `pattern` in `text` ends (0: none)."""
    end = 0
    for match in pattern.finditer(text):
        end = match.end()
    return end
