"""CoNLL-U and CoNLL-X: ten tab-separated columns, sentences separated by blank lines.

Both put FORM, UPOS (CoNLL-X: CPOSTAG), XPOS (POSTAG), HEAD and DEPREL in
columns 2, 4, 5, 7 and 8. Comment lines (`#`), multi-word token ranges
(`1-2`) and empty nodes (`1.1`) are not words and are skipped.
"""
from pathlib import Path
from typing import Iterator, List, Optional, Union

from spacy_gdcws.readers.base import Sentence, fail, read_lines

N_COLUMNS = 10


def read_conll(path: Union[str, Path]) -> Iterator[Sentence]:
    """Yield one Sentence per block, with UPOS, XPOS, heads (0-based, a root
    points to itself) and relation labels. Wrong column counts, non-integer
    ids or heads, and heads outside the sentence are errors naming the line."""
    rows: List[List[str]] = []
    start: Optional[int] = None
    for number, text in read_lines(path):
        if not text.strip():
            if rows:
                yield _sentence(path, rows, start or number)
            rows, start = [], None
            continue
        if text.startswith("#"):
            continue
        cols = text.split("\t")
        if len(cols) != N_COLUMNS:
            raise fail(path, number, f"expected {N_COLUMNS} tab-separated columns, found {len(cols)}")
        if "-" in cols[0] or "." in cols[0]:
            continue
        if not cols[0].isdigit() or (cols[6] != "_" and not cols[6].isdigit()):
            raise fail(path, number, f"ID and HEAD must be integers, got {cols[0]!r} and {cols[6]!r}")
        if int(cols[0]) != len(rows) + 1:
            raise fail(path, number, f"word ID {cols[0]} out of sequence (expected {len(rows) + 1})")
        if start is None:
            start = number
        rows.append(cols + [str(number)])
    if rows:
        yield _sentence(path, rows, start or 0)


def _sentence(path: Union[str, Path], rows: List[List[str]], line: int) -> Sentence:
    n = len(rows)
    heads: Optional[List[int]] = []
    for i, cols in enumerate(rows):
        if cols[6] == "_":
            heads = None
            break
        head = int(cols[6])
        if head > n:
            raise fail(path, int(cols[-1]), f"HEAD {head} is outside the sentence of {n} words")
        heads.append(i if head == 0 else head - 1)  # type: ignore[union-attr]
    meta = {}
    # CoNLL-U marks the words that no space follows (MISC SpaceAfter=No): the others are
    # followed by one, which gives back the sentence's original text (CoNLL-X has no MISC)
    if any("SpaceAfter=No" in c[9].split("|") for c in rows):
        meta["text"] = "".join(c[1] + ("" if "SpaceAfter=No" in c[9].split("|") else " ") for c in rows).rstrip(" ")
    return Sentence(
        words=[c[1] for c in rows],
        pos=[c[3] for c in rows],
        tags=[c[4] for c in rows],
        heads=heads,
        deps=[c[7] for c in rows] if heads is not None else None,
        line=line,
        meta=meta,
    )
