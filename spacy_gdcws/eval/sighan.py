"""A pure-Python port of the SIGHAN bakeoff `score` script.

It reproduces the perl script's figures, quirks included, so the two print the
same digits:

- lines are compared as bytes: leading/trailing ASCII whitespace stripped,
  U+3000 (and the Big5 ideographic space) turned into a space, CR removed,
  split on runs of ASCII whitespace (a leading empty field is kept, as perl's
  `split` keeps it);
- empty gold lines are skipped; files are read in parallel up to the shorter;
- words are matched by a longest common subsequence per line, as `diff` does;
- a matched word that is exactly `|`, `<` or `>` still counts as missed for
  recall (the script's regex sees the marker in diff's right column), and an
  empty word never counts as missed.
"""
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Union

import numpy

from spacy_gdcws.errors import Errors

_SPLIT = re.compile(rb"[ \t\n\r\f\v]+")
_STRIP = b" \t\n\r\f\v"
_MARKERS = {b"|", b"<", b">"}


@dataclass
class SighanScore:
    """The figures the official script prints (rates as fractions)."""

    true_words: int
    test_words: int
    recall: float
    precision: float
    f: float
    oov_rate: float
    oov_recall: Optional[float]
    iv_recall: Optional[float]

    def to_dict(self) -> Dict[str, Union[int, float, None]]:
        return asdict(self)

    def summary(self, digits: int = 3) -> str:
        """The script's summary lines (same rounding: "%2.3f"; `digits` for more)."""

        def fmt(value: Optional[float]) -> str:
            return "--" if value is None else f"{value:2.{digits}f}"

        return "\n".join(
            [
                f"=== TOTAL TRUE WORD COUNT:\t{self.true_words}",
                f"=== TOTAL TEST WORD COUNT:\t{self.test_words}",
                f"=== TOTAL TRUE WORDS RECALL:\t{fmt(self.recall)}",
                f"=== TOTAL TEST WORDS PRECISION:\t{fmt(self.precision)}",
                f"=== F MEASURE:\t{fmt(self.f)}",
                f"=== OOV Rate:\t{fmt(self.oov_rate)}",
                f"=== OOV Recall Rate:\t{fmt(self.oov_recall)}",
                f"=== IV Recall Rate:\t{fmt(self.iv_recall)}",
            ]
        )


def split_line(line: bytes) -> List[bytes]:
    """Words of one line exactly as the perl script splits them."""
    line = line.strip(_STRIP)
    line = line.replace(b"\xe3\x80\x80", b" ").replace(b"\xa1\x40", b" ").replace(b"\r", b"")
    if not line:
        return []
    words = _SPLIT.split(line)
    while words and words[-1] == b"":
        words.pop()
    return words


# above this many cells (words of gold x words of test, after the common ends) one
# line's LCS is found in linear space (Hirschberg) instead of with a full table
TABLE_CELLS = 1_000_000


def lcs_matches(a: Sequence[bytes], b: Sequence[bytes]) -> Set[int]:
    """Indices of `a` in one longest common subsequence with `b` (what the perl
    script's `diff` aligns). Linear space whatever the length of the line."""
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    matched = set(range(start)) | set(range(end_a, len(a)))
    _lcs(list(a[start:end_a]), list(b[start:end_b]), start, matched)
    return matched


def _lcs(a: List[bytes], b: List[bytes], offset: int, out: Set[int], limit: int = TABLE_CELLS) -> None:
    """Add to `out` the indices (+ offset) of `a` in one LCS with `b`: a table for
    a line's problem of at most `limit` cells (as always), else Hirschberg's split
    on the rows of a bit-parallel LCS, down to small tables."""
    n, m = len(a), len(b)
    if not n or not m:
        return
    if n * m <= limit or n == 1:
        out.update(offset + i for i in _table_lcs(a, b))
        return
    mid = n // 2
    forward = _prefix_lcs(a[:mid], b)  # LCS(a[:mid], b[:j]) for j = 0..m
    backward = _prefix_lcs(a[mid:][::-1], b[::-1])  # LCS(a[mid:], b[m - k:]) for k = 0..m
    split = int(numpy.argmax(forward + backward[::-1]))
    _lcs(a[:mid], b[:split], offset, out, _LEAF_CELLS)
    _lcs(a[mid:], b[split:], offset + mid, out, _LEAF_CELLS)


_LEAF_CELLS = 4096


def _prefix_lcs(a: List[bytes], b: List[bytes]) -> numpy.ndarray:
    """LCS(a, b[:j]) for every j (m + 1 values), from one bit-parallel pass over `a`
    (Hyyrö 2004): bit j of V is 0 where the LCS grows at b[j]."""
    m = len(b)
    masks: Dict[bytes, int] = {}
    for j, word in enumerate(b):
        masks[word] = masks.get(word, 0) | (1 << j)
    full = (1 << m) - 1
    v = full
    for word in a:
        u = v & masks.get(word, 0)
        v = ((v + u) | (v - u)) & full
    bits = numpy.unpackbits(numpy.frombuffer(v.to_bytes((m + 7) // 8, "little"), dtype=numpy.uint8), bitorder="little")[:m]
    return numpy.concatenate([[0], numpy.cumsum(1 - bits.astype(numpy.int64))])


def _table_lcs(a: List[bytes], b: List[bytes]) -> List[int]:
    """Indices of `a` in one LCS with `b`, by the full table (n * m cells)."""
    n, m = len(a), len(b)
    # table[i][j]: LCS length of a[i:] and b[j:]
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        ai = a[i]
        for j in range(m - 1, -1, -1):
            if ai == b[j]:
                row[j] = below[j + 1] + 1
            else:
                row[j] = below[j] if below[j] >= row[j + 1] else row[j + 1]
    out = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            out.append(i)
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def read_dictionary(path: Union[str, Path]) -> Set[bytes]:
    """The training vocabulary, one word per line (bytes, stripped)."""
    return {line.strip(_STRIP) for line in Path(path).read_bytes().split(b"\n")}


def score_lines(dictionary: Set[bytes], gold: Iterable[bytes], test: Iterable[bytes]) -> SighanScore:
    """Score line-aligned gold and test segmentations (lines as bytes)."""
    true_count = test_count = recall_missed = precision_err = 0
    oov = iv = oov_missed = iv_missed = 0
    for gold_line, test_line in zip(gold, test):
        gold_words = split_line(gold_line)
        if not gold_words:
            continue
        test_words = split_line(test_line)
        true_count += len(gold_words)
        test_count += len(test_words)
        hits = lcs_matches(gold_words, test_words)
        precision_err += sum(1 for w in test_words if w) - sum(1 for i in hits if gold_words[i])
        for i, word in enumerate(gold_words):
            if not word:
                continue
            in_dict = word in dictionary
            oov += not in_dict
            iv += in_dict
            if i not in hits or word in _MARKERS:
                recall_missed += 1
                oov_missed += not in_dict
                iv_missed += in_dict
    if true_count == 0 or test_count == 0:
        raise ValueError(Errors.E049.format(n_pred=test_count, n_gold=true_count))
    recall = (true_count - recall_missed) / true_count
    precision = (test_count - precision_err) / test_count
    f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return SighanScore(
        true_words=true_count,
        test_words=test_count,
        recall=recall,
        precision=precision,
        f=f,
        oov_rate=oov / true_count,
        oov_recall=1 - oov_missed / oov if oov else None,
        iv_recall=1 - iv_missed / iv if iv else None,
    )


def score_files(dictionary: Union[str, Path], gold: Union[str, Path], test: Union[str, Path]) -> SighanScore:
    """`perl score DICT GOLD TEST`, in Python, after checking that the two files
    are line-aligned (E020) and segment the same characters on every line (E048):
    the perl script silently scores misaligned files."""
    gold_lines, test_lines = _lines(gold), _lines(test)
    check_aligned(gold_lines, test_lines, gold, test)
    return score_lines(read_dictionary(dictionary), gold_lines, test_lines)


def check_aligned(gold: List[bytes], test: List[bytes], gold_name: Union[str, Path], test_name: Union[str, Path]) -> None:
    """Raise E020 if the files' line counts differ (naming the first line one
    lacks) and E048 at the first line whose characters differ beyond
    whitespace (the word separators)."""
    if len(gold) != len(test):
        shorter = test_name if len(test) < len(gold) else gold_name
        raise ValueError(Errors.E020.format(test=test_name, n_pred=len(test), gold=gold_name, n_gold=len(gold),
                                            shorter=shorter, line=min(len(gold), len(test)) + 1))
    for i, (g, t) in enumerate(zip(gold, test), 1):
        if b"".join(split_line(g)) != b"".join(split_line(t)):
            raise ValueError(Errors.E048.format(test=test_name, gold=gold_name, line=i))


def _lines(path: Union[str, Path]) -> List[bytes]:
    """Lines as perl's `<FH>` reads them: a last line without a newline still counts."""
    data = Path(path).read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark (the official CITYU gold has one) is no character
        data = data[3:]
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return [line + b"\n" for line in lines]


def parse_perl_summary(output: str) -> Dict[str, Optional[float]]:
    """Read the figures from the perl script's summary lines."""
    keys = {
        "TOTAL TRUE WORD COUNT": "true_words",
        "TOTAL TEST WORD COUNT": "test_words",
        "TOTAL TRUE WORDS RECALL": "recall",
        "TOTAL TEST WORDS PRECISION": "precision",
        "F MEASURE": "f",
        "OOV Rate": "oov_rate",
        "OOV Recall Rate": "oov_recall",
        "IV Recall Rate": "iv_recall",
    }
    out: Dict[str, Optional[float]] = {}
    for line in output.splitlines():
        if line.startswith("=== ") and ":\t" in line:
            key, value = line[4:].split(":\t", 1)
            if key in keys:
                out[keys[key]] = None if value.strip() == "--" else float(value)
    return out
