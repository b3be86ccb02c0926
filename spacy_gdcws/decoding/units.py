"""Atomic units: spans that are never split inside (URLs, e-mail addresses, numbers, Latin words,
and grapheme clusters, UAX #29's, `data.clusters`). The segmenter decides only whether a unit joins
its neighbours."""
from typing import List, Tuple

import numpy
import regex

from spacy_gdcws.data.clusters import continues

# order matters: earlier patterns win where matches overlap (a URL contains words and numbers)
_URL = r"(?:(?:https?|ftp)://|www\.)[A-Za-z0-9\-._~:/?#\[\]@!$&'*+,;=%]+(?<![.,;:!?'])"
_EMAIL = r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"
# digits of any script and width, thousands separators, a decimal part, a percent sign
_NUMBER = r"\d+(?:[,，]\d{3})*(?:[.．]\d+)?[%％‰]?"
# letters of the Latin script of any width and accent (café, Zürich, ＡＢＣ), marks included
_LATIN = r"\p{Latin}[\p{Latin}\p{M}]*(?:['’]\p{Latin}[\p{Latin}\p{M}]*)*"
# a file path of ASCII names, at least two of them past its root: /usr/bin/python, ~/data/a.txt,
# C:\Users\me (not after a letter or digit: 1/2 is a number, a slash and a number; and/or two words)
_PATH = r"(?<![A-Za-z0-9])(?:[A-Za-z]:\\|~/|/)[A-Za-z0-9._\-]+(?:[/\\][A-Za-z0-9._\-]+)+[/\\]?"
# the lookahead (every unit begins with one of these characters) lets the scan skip the
# rest, Han text, without trying each alternative: the same matches, 2.6x faster on SXU
UNIT_PATTERN = regex.compile(r"(?=[\d\p{Latin}._%+\-/~])(?:"
                             + "|".join(f"(?:{p})" for p in (_URL, _EMAIL, _PATH, _NUMBER, _LATIN)) + ")")
UNIT_KINDS = ("url", "email", "path", "number", "latin")
# an address, a word that is a URL, an e-mail address or a file path whole (GSD's X / ADD)
ADDRESS = regex.compile("|".join(f"(?:{p})" for p in (_URL, _EMAIL, _PATH)))
# what every address holds: a word without any is none (checked first, at once)
_ADDRESS_MARK = regex.compile(r"[:@/\\]|www\.")

def addresses(words: List[str]) -> List[int]:
    """The indices of the words that are an address whole (`ADDRESS`: a URL, an e-mail address, a
    file path)."""
    return [i for i, w in enumerate(words) if _ADDRESS_MARK.search(w) and ADDRESS.fullmatch(w)]


def unit_spans(text: str) -> List[Tuple[int, int]]:
    """Character spans [start, end) of the URLs, e-mail addresses, numbers and
    Latin words of `text` (2 characters or more; grapheme clusters: `data.clusters`)."""
    return [(m.start(), m.end()) for m in UNIT_PATTERN.finditer(text) if m.end() - m.start() > 1]


def inner_gaps(text: str, idx: numpy.ndarray, is_space: numpy.ndarray) -> numpy.ndarray:
    """Token gaps that lie inside an atomic unit (bool, len(idx) - 1).

    text: the doc's text; idx, is_space: each token's character offset and whether it is
    whitespace (`doc_arrays.TokenArrays`). Gap j (between tokens j and j + 1) is inside a unit
    when both tokens start in it, or token j + 1 continues token j's grapheme cluster.
    """
    n = len(idx)
    if n < 2:
        return numpy.zeros(0, dtype=bool)
    joined = continues(text, idx, is_space)
    inside = numpy.zeros(n - 1, dtype=bool) if joined is None else joined[1:].copy()
    spans = numpy.asarray(unit_spans(text), dtype=numpy.int64).reshape(-1, 2)
    a = numpy.searchsorted(idx, spans[:, 0])
    b = numpy.searchsorted(idx, spans[:, 1]) - 1  # the last token starting inside each unit
    a, b = a[b > a], b[b > a]
    if len(a):  # gaps [a, b) of each unit: +1 where one begins, -1 where it ends
        edges = numpy.zeros(n, dtype=numpy.int64)
        numpy.add.at(edges, a, 1)
        numpy.add.at(edges, b, -1)
        inside |= numpy.cumsum(edges)[: n - 1] > 0
    return inside
