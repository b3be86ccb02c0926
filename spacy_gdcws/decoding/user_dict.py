"""The user dictionary of a segmenter: words kept whole ("force") or favoured ("prefer")."""
from pathlib import Path
from typing import Dict, Iterable, List, Tuple, Union

import numpy

from spacy_gdcws.data.features import code_keys, window_matches
from spacy_gdcws.data.key_index import KeyIndex
from spacy_gdcws.data.tokenizer import check_unicode
from spacy_gdcws.errors import Errors

MODES = ("force", "prefer")


class UserDictionary:
    """Words with a mode, matched on a doc's characters by forward maximum matching
    (at each position the longest dictionary word; matches never overlap).

    force: the word is one token, never split and never merged with its neighbours.
    prefer: the gaps inside the word get `-bonus` and its two edges `+bonus` added
        to their boundary logits, so the model may still override it.
    A word cannot contain whitespace (the character tokenizer splits there).
    """

    def __init__(self, words: Union[Dict[str, str], None] = None) -> None:
        self.words: Dict[str, str] = {}
        self._tables: Dict[int, Tuple[KeyIndex, numpy.ndarray]] = {}
        if words:
            for mode in MODES:
                self.add([w for w, m in words.items() if m == mode], mode)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.words

    def add(self, words: Iterable[str], mode: str = "force") -> int:
        """Add words (a later mode replaces an earlier one). RETURNS how many were given."""
        if mode not in MODES:
            raise ValueError(Errors.E045.format(mode=mode, options=MODES))
        n = 0
        for word in words:
            if not isinstance(word, str) or not word or any(c.isspace() for c in word):
                raise ValueError(Errors.E046.format(word=word))
            check_unicode(word)
            self.words[word] = mode
            n += 1
        self._build()
        return n

    def remove(self, words: Iterable[str]) -> None:
        for word in words:
            self.words.pop(word, None)
        self._build()

    def _build(self) -> None:
        by_length: Dict[int, List[Tuple[List[int], int]]] = {}
        for word, mode in self.words.items():
            by_length.setdefault(len(word), []).append(([ord(c) for c in word], MODES.index(mode)))
        self._tables = {}
        for size, rows in by_length.items():
            keys = code_keys(numpy.asarray([r for r, _ in rows], dtype=numpy.int64))
            modes = numpy.asarray([m for _, m in rows], dtype=numpy.int64)
            order = numpy.argsort(keys, kind="stable")
            self._tables[size] = (KeyIndex(keys[order]), modes[order])

    def matches(self, codes: numpy.ndarray) -> List[Tuple[int, int, str]]:
        """Token spans [start, end) of the dictionary words in a doc, with their mode.

        codes: each token's code point (`doc_arrays.TokenArrays.codes`; tokens of
            several characters match nothing).
        """
        n = len(codes)
        if not self._tables or not n:
            return []
        best = numpy.zeros(n, dtype=numpy.int64)
        mode_at = numpy.zeros(n, dtype=numpy.int64)
        for size in sorted(self._tables):
            table, modes = self._tables[size]
            hit, idx = window_matches(codes, size, table)
            best[hit] = size  # longer sizes come later and win
            mode_at[hit] = modes[idx]
        out: List[Tuple[int, int, str]] = []
        end = 0
        for start in numpy.flatnonzero(best).tolist():
            if start >= end:
                end = start + int(best[start])
                out.append((start, end, MODES[int(mode_at[start])]))
        return out

    def gap_rules(self, codes: numpy.ndarray, bonus: float) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """Gap constraints (-1 free, 0 no boundary, 1 boundary; force) and
        boundary-logit bonuses (prefer) of a doc of n tokens, each (n - 1,)."""
        n = len(codes)
        constraints = numpy.full(max(n - 1, 0), -1, dtype=numpy.int64)
        bias = numpy.zeros(max(n - 1, 0), dtype=numpy.float64)
        for start, end, mode in self.matches(codes):
            if mode == "force":
                constraints[start : end - 1] = 0
                if start > 0:
                    constraints[start - 1] = 1
                if end - 1 < n - 1:
                    constraints[end - 1] = 1
            else:
                bias[start : end - 1] -= bonus
                if start > 0:
                    bias[start - 1] += bonus
                if end - 1 < n - 1:
                    bias[end - 1] += bonus
        return constraints, bias

    def to_list(self) -> List[List[str]]:
        return [[word, mode] for word, mode in sorted(self.words.items())]

    @classmethod
    def from_list(cls, rows: Iterable[Iterable[str]]) -> "UserDictionary":
        return cls({word: mode for word, mode in rows})


def read_user_dict(path: Union[str, Path], default_mode: str = "force") -> List[Tuple[str, str]]:
    """Words of a user dictionary file: one word per line, optionally followed by
    whitespace and its mode (`force` / `prefer`); empty lines and lines starting
    with `#` are skipped. Errors name the file and line (E015)."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(Errors.E016.format(path=path, message=e)) from None
    out = []
    for i, line in enumerate(lines, 1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) > 2 or (len(parts) == 2 and parts[1] not in MODES):
            raise ValueError(Errors.E015.format(path=path, line=i, message=f"expected 'WORD' or 'WORD force|prefer', got {line!r}"))
        out.append((parts[0], parts[1] if len(parts) == 2 else default_mode))
    return out
