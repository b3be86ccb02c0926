"""Atomic units: spans that are never split inside (URLs, e-mail addresses, numbers, Latin words,
grapheme clusters). The segmenter decides only whether a unit joins its neighbours."""
import unicodedata
from typing import List, Tuple

import numpy
import regex

# order matters: earlier patterns win where matches overlap (a URL contains words and numbers)
_URL = r"(?:(?:https?|ftp)://|www\.)[A-Za-z0-9\-._~:/?#\[\]@!$&'*+,;=%]+(?<![.,;:!?'])"
_EMAIL = r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"
# digits of any script and width, thousands separators, a decimal part, a percent sign
_NUMBER = r"\d+(?:[,，]\d{3})*(?:[.．]\d+)?[%％‰]?"
# letters of the Latin script of any width and accent (café, Zürich, ＡＢＣ), marks included
_LATIN = r"\p{Latin}[\p{Latin}\p{M}]*(?:['’]\p{Latin}[\p{Latin}\p{M}]*)*"
# the lookahead (every unit begins with one of these characters) lets the scan skip the
# rest, Han text, without trying each alternative: the same matches, 2.6x faster on SXU
UNIT_PATTERN = regex.compile(r"(?=[\d\p{Latin}._%+\-])(?:" + "|".join(f"(?:{p})" for p in (_URL, _EMAIL, _NUMBER, _LATIN)) + ")")
UNIT_KINDS = ("url", "email", "number", "latin")

_ZWJ = 0x200D
_MARKS = ("Mn", "Me", "Mc")


# per code point (and the multi-character stand-in 0x110000): 1 continues a
# grapheme cluster, 0 does not, -1 not looked up yet; filled as code points are met
_CONTINUES = numpy.full(0x110001, -1, dtype=numpy.int8)


def _continues(points: numpy.ndarray) -> numpy.ndarray:
    """Per code point: whether it continues the grapheme cluster before it by its
    own kind (combining mark, zero-width joiner, variation selector, emoji
    modifier, tag character). One table lookup per doc; a code point is
    classified once per process."""
    if not len(points):
        return numpy.zeros(0, dtype=bool)
    points = numpy.clip(points, 0, 0x110000)
    flags = _CONTINUES[points]
    if (flags < 0).any():
        new = numpy.unique(points[flags < 0])
        _CONTINUES[new] = numpy.fromiter((_is_continuation(int(cp)) for cp in new), dtype=bool, count=len(new))
        flags = _CONTINUES[points]
    return flags.astype(bool)


def _is_continuation(cp: int) -> bool:
    if cp == _ZWJ or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF or 0x1F3FB <= cp <= 0x1F3FF:
        return True
    if 0xE0020 <= cp <= 0xE007F:
        return True
    return cp < 0x110000 and unicodedata.category(chr(cp)) in _MARKS


# per code point: 1 an Extended_Pictographic one (emoji), 0 not, -1 not looked up yet
_PICTOGRAPHIC = numpy.full(0x110001, -1, dtype=numpy.int8)
_IS_PICTOGRAPHIC = regex.compile(r"\p{Extended_Pictographic}")


def _pictographic(points: numpy.ndarray) -> numpy.ndarray:
    """Per code point: whether it is Extended_Pictographic (UAX #29: what a zero-width joiner joins)."""
    points = numpy.clip(points, 0, 0x110000)
    flags = _PICTOGRAPHIC[points]
    if (flags < 0).any():
        new = numpy.unique(points[flags < 0])
        _PICTOGRAPHIC[new] = numpy.fromiter((cp < 0x110000 and _IS_PICTOGRAPHIC.match(chr(int(cp))) is not None
                                             for cp in new), dtype=bool, count=len(new))
        flags = _PICTOGRAPHIC[points]
    return flags.astype(bool)


def grapheme_gaps(points: numpy.ndarray) -> numpy.ndarray:
    """Gaps (len - 1,) between code points of one extended grapheme cluster:
    before a continuation (`_continues`: a zero-width joiner among them), after a
    zero-width joiner before an emoji (UAX #29 GB11: 👩 U+200D 💻; a joiner between Han
    characters, 中国 U+200D 人民, joins nothing), and inside a pair of regional
    indicators (a flag)."""
    points = numpy.asarray(points, dtype=numpy.int64)
    if len(points) < 2:
        return numpy.zeros(0, dtype=bool)
    inside = _continues(points[1:])
    after_zwj = points[:-1] == _ZWJ
    if after_zwj.any():
        inside |= after_zwj & _pictographic(points[1:])
    regional = (points >= 0x1F1E6) & (points <= 0x1F1FF)
    if regional[:-1].any():
        for run_start in numpy.flatnonzero(regional & ~numpy.concatenate([[False], regional[:-1]])).tolist():
            j = run_start
            while j + 1 < len(points) and regional[j] and regional[j + 1]:
                inside[j] = True  # pair j, j + 1; the next pair starts at j + 2
                j += 2
    return inside


def unit_spans(text: str) -> List[Tuple[int, int]]:
    """Character spans [start, end) of the URLs, e-mail addresses, numbers and
    Latin words of `text` (2 characters or more; grapheme clusters: `grapheme_gaps`)."""
    return [(m.start(), m.end()) for m in UNIT_PATTERN.finditer(text) if m.end() - m.start() > 1]


def inner_gaps(text: str, idx: numpy.ndarray, first: numpy.ndarray) -> numpy.ndarray:
    """Token gaps that lie inside an atomic unit (bool, len(idx) - 1).

    text: the doc's text; idx, first: each token's character offset and first
    code point (`doc_arrays.TokenArrays`). Gap j (between tokens j and j + 1)
    is inside a unit when both tokens start in it.
    """
    n = len(idx)
    if n < 2:
        return numpy.zeros(0, dtype=bool)
    inside = grapheme_gaps(first)
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
