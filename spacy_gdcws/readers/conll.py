"""CoNLL-U and CoNLL-X: ten tab-separated columns, sentences separated by blank lines.

Both put FORM, UPOS (CoNLL-X: CPOSTAG), XPOS (POSTAG), HEAD and DEPREL in
columns 2, 4, 5, 7 and 8. Comment lines (`#`), multi-word token ranges
(`1-2`) and empty nodes (`1.1`) are not words and are skipped, but for a sentence's
`# text`, and `# newpar`, kept in its `meta` (and every comment line, in order: `meta["comments"]`).
"""
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Union

from spacy_gdcws.readers.base import Sentence, fail, read_lines

N_COLUMNS = 10


def read_conll(path: Union[str, Path]) -> Iterator[Sentence]:
    """Yield one Sentence per block, with UPOS, XPOS, heads (0-based, a root
    points to itself) and relation labels. Wrong column counts, non-integer
    ids or heads, and heads outside the sentence are errors naming the line."""
    rows: List[List[str]] = []
    start: Optional[int] = None
    comments: Dict[str, object] = {}
    for number, text in read_lines(path):
        if not text.strip():
            if rows:
                yield _sentence(path, rows, start or number, comments)
            rows, start, comments = [], None, {}
            continue
        if text.startswith("#"):
            comments.setdefault("comments", []).append(text)  # every comment line, in order
            if text.startswith("# text = "):
                comments["text_comment"] = text[len("# text = "):]
            elif text.strip() == "# newpar" or text.startswith("# newpar "):
                comments["newpar"] = True
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
        yield _sentence(path, rows, start or 0, comments)


def _sentence(path: Union[str, Path], rows: List[List[str]], line: int, comments: Dict[str, object]) -> Sentence:
    n = len(rows)
    heads: Optional[List[int]] = []
    # words whose HEAD is their own ID (a cycle of one word: not a root, which a head of itself means here)
    self_heads: List[int] = []
    for i, cols in enumerate(rows):
        if cols[6] == "_":
            heads = None
            break
        head = int(cols[6])
        if head > n:
            raise fail(path, int(cols[-1]), f"HEAD {head} is outside the sentence of {n} words")
        if head == i + 1:
            self_heads.append(i)
        heads.append(i if head == 0 else head - 1)  # type: ignore[union-attr]
    meta = dict(comments)
    if self_heads:
        meta["self_heads"] = self_heads
    # CoNLL-U marks the words that no space follows (MISC SpaceAfter=No) or other whitespace
    # (SpacesAfter): the others are followed by one, which gives back the sentence's original text
    # (CoNLL-X has no MISC); `# text` is the sentence's own
    if "text_comment" in meta:
        meta["text"] = meta["text_comment"]
    elif any(("SpaceAfter=No" in c[9].split("|") or "SpacesAfter=" in c[9]) for c in rows):
        meta["text"] = conllu_text(rows).strip()
    return Sentence(
        words=[c[1] for c in rows],
        pos=[c[3] for c in rows],
        tags=[c[4] for c in rows],
        heads=heads,
        deps=[c[7] for c in rows] if heads is not None else None,
        line=line,
        meta=meta,
    )


_UNESCAPES = {"s": " ", "t": "\t", "r": "\r", "n": "\n", "p": "|", "\\": "\\"}


def unescape_spaces(value: str) -> str:
    """The whitespace a MISC value (`SpacesAfter`, `SpacesBefore`) stands for: `\\s` a space, `\\t` a
    tab, `\\r`, `\\n`, `\\p` for `|`, `\\\\` for a backslash (UDPipe's), `\\uXXXX` a code point, any
    other character as itself."""
    out: List[str] = []
    i = 0
    while i < len(value):
        if value.startswith("\\u", i) and len(value) >= i + 6 and all(c in "0123456789ABCDEFabcdef" for c in value[i + 2: i + 6]):
            out.append(chr(int(value[i + 2: i + 6], 16)))
            i += 6
        elif value[i] == "\\" and i + 1 < len(value) and value[i + 1] in _UNESCAPES:
            out.append(_UNESCAPES[value[i + 1]])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def conllu_text(rows: Sequence[Sequence[str]], last_of_line: bool = True) -> str:
    """The text word rows spell, whitespace included (`SpacesBefore`, `SpacesAfter`, `SpaceAfter=No`;
    a word without them is followed by one space, but the last of a line, where `last_of_line`)."""
    out: List[str] = []
    for j, cols in enumerate(rows):
        misc = dict(item.split("=", 1) for item in cols[9].split("|") if "=" in item)
        if "SpacesBefore" in misc:
            out.append(unescape_spaces(misc["SpacesBefore"]))
        out.append(cols[1])
        if "SpacesAfter" in misc:
            out.append(unescape_spaces(misc["SpacesAfter"]))
        elif misc.get("SpaceAfter") != "No" and not (last_of_line and j == len(rows) - 1):
            out.append(" ")
    return "".join(out)
