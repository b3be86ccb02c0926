"""The user dictionary of a segmenter, at the scale of jieba's (349k words loads in seconds).

Modes (what a word of the dictionary does where it occurs in a text):
- "force": the word is one token, never split and never merged with its
  neighbours. Occurrences are found by forward maximum matching (at each
  position the longest force word; matches never overlap), before the model's
  scores are read: force words are hard constraints, so overlaps are settled by
  reading order, not by the model. That is the classic pitfall of a forced
  lexicon: with 和服 forced, 商品和服务 becomes 商品/和服/务. Use "combine" for
  words that may be read across (see below).
- "split": a word mapped to its parts (`add_splits({"和服务": ["和", "服务"]})`):
  matched as force words are, and cut into exactly those parts.
- "prefer": the gaps inside the word get `-bonus` and its two edges `+bonus` on
  their boundary logits; the model may still override it.
- "combine": after decoding, the model's words that together make up a
  dictionary word are merged into it, but only where both of the word's edges
  are already model boundaries (HanLP's `dict_combine`): with 和服 in the
  dictionary, 商品/和/服务 stays as it is, while 和/服 between boundaries becomes 和服.

A word cannot contain whitespace: whitespace is always a word boundary (so that
`doc.text` never changes). Frequencies (jieba's files) are kept with the words
(`freqs`); no mode uses them yet.
"""
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy

from spacy_gdcws.data.features import code_keys, window_matches
from spacy_gdcws.data.key_index import KeyIndex
from spacy_gdcws.data.normalize import CharNormalizer, get_normalizer
from spacy_gdcws.data.tokenizer import check_unicode
from spacy_gdcws.errors import Errors

MODES = ("force", "prefer", "combine", "split")
# the largest frequency a saved dictionary can hold (msgpack / JSON integers of 64 bits)
MAX_FREQ = 2**63 - 1
# the modes a word or a file line may name (a split comes with its parts: `add_splits`)
WORD_MODES = ("force", "prefer", "combine")
# modes whose occurrences are fixed by forward maximum matching before decoding
_HARD = ("force", "split")


def check_mode(mode: str) -> str:
    """E045 unless `mode` is one of `WORD_MODES`."""
    if mode not in WORD_MODES:
        raise ValueError(Errors.E045.format(mode=mode, options=WORD_MODES))
    return mode


def check_word(word: object) -> str:
    """E046 unless `word` is a non-empty string without whitespace (E066: not Unicode spaCy can store)."""
    if not isinstance(word, str) or not word or any(c.isspace() for c in word):
        raise ValueError(Errors.E046.format(word=word))
    check_unicode(word)
    return word


class UserDictionary:
    """Words with a mode (see the module docstring). `add`, `add_splits`,
    `remove` and `reset` rebuild the lookup tables once per call, whatever the
    number of words."""

    def __init__(self, words: Optional[Mapping[str, str]] = None, normalizer: Optional[CharNormalizer] = None) -> None:
        self.words: Dict[str, str] = {}
        self.freqs: Dict[str, int] = {}
        self.splits: Dict[str, Tuple[str, ...]] = {}
        # per mode group ("hard", "prefer", "combine") and word length: keys and row of each word
        self._tables: Dict[str, Dict[int, Tuple[KeyIndex, numpy.ndarray]]] = {}
        self._rows: Dict[str, List[str]] = {}
        self._normalizer = normalizer or get_normalizer("")
        if words:
            self._set({w: m for w, m in words.items()})
            self._build()

    def __len__(self) -> int:
        return len(self.words)

    @property
    def normalizer(self) -> CharNormalizer:
        """How the words' characters are normalized for matching (the model's
        `data.normalize.CharNormalizer`, given by the decoder when the
        dictionary is made or assigned, never while decoding): the words are
        kept as given, and matched against the text's normalized characters."""
        return self._normalizer

    @normalizer.setter
    def normalizer(self, value: CharNormalizer) -> None:
        if value.spec != self._normalizer.spec:
            self._normalizer = value
            self._build()

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def add(self, words: Iterable[str], mode: str = "force", freqs: Optional[Mapping[str, int]] = None) -> int:
        """Add words (a later mode replaces an earlier one), checked all before
        any is added. A bare string is refused (E083: it would add each of its
        characters). RETURNS how many were given."""
        if isinstance(words, str):
            raise TypeError(Errors.E083.format(words=words))
        check_mode(mode)
        checked = [check_word(w) for w in words]
        freqs = {w: check_freq(w, f) for w, f in (freqs or {}).items()}
        self._set({w: mode for w in checked})
        if freqs:
            self.freqs.update({w: int(f) for w, f in freqs.items() if w in self.words})
        self._build()
        return len(checked)

    def add_splits(self, splits: Mapping[str, Sequence[str]]) -> int:
        """Forced splits: each word, wherever it is matched, becomes exactly its
        parts (E084 unless the parts spell the word). RETURNS how many were given."""
        checked = {}
        for word, parts in splits.items():
            check_word(word)
            parts = tuple(check_word(p) for p in parts)
            if "".join(parts) != word or len(parts) < 2:
                raise ValueError(Errors.E084.format(word=word, parts=list(parts)))
            checked[word] = parts
        self._set({w: "split" for w in checked})
        self.splits.update(checked)
        self._build()
        return len(checked)

    def remove(self, words: Iterable[str]) -> None:
        """Remove words (absent ones are ignored); a bare string is refused (E083)."""
        if isinstance(words, str):
            raise TypeError(Errors.E083.format(words=words))
        for word in words:
            self.words.pop(word, None)
            self.freqs.pop(word, None)
            self.splits.pop(word, None)
        self._build()

    def reset(self) -> None:
        """Remove every word."""
        self.words, self.freqs, self.splits = {}, {}, {}
        self._build()

    def _set(self, modes: Mapping[str, str]) -> None:
        for word, mode in modes.items():
            if mode != "split":
                self.splits.pop(word, None)
            self.words[word] = mode

    def _build(self) -> None:
        """One table per mode group and word length (keys of the words' code points)."""
        groups: Dict[str, List[str]] = {"hard": [], "prefer": [], "combine": []}
        for word, mode in self.words.items():
            groups["hard" if mode in _HARD else mode].append(word)
        self._tables, self._rows = {}, {}
        for group, words in groups.items():
            by_length: Dict[int, List[str]] = {}
            for word in words:
                by_length.setdefault(len(word), []).append(word)
            tables = {}
            for size, ws in by_length.items():
                codes = numpy.frombuffer("".join(ws).encode("utf-32-le"), dtype="<u4").astype(numpy.int64)
                codes = self._normalizer.points(codes)
                keys = code_keys(codes.reshape(len(ws), size))
                order = numpy.argsort(keys, kind="stable")
                tables[size] = (KeyIndex(keys[order]), order)
            self._tables[group] = tables
            self._rows[group] = by_length  # type: ignore[assignment]

    def _longest(self, group: str, codes: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """Per token: the length of the longest word of `group` starting there (0:
        none), and that word's row in its length's list."""
        n = len(codes)
        best = numpy.zeros(n, dtype=numpy.int64)
        row = numpy.zeros(n, dtype=numpy.int64)
        for size in sorted(self._tables.get(group, {})):
            table, order = self._tables[group][size]
            hit, idx = window_matches(codes, size, table)
            best[hit] = size  # longer sizes come later and win
            row[hit] = order[idx]
        return best, row

    def matches(self, codes: numpy.ndarray, group: str = "hard") -> List[Tuple[int, int, str]]:
        """Token spans [start, end) of the group's words in a doc, by forward
        maximum matching, with each word.

        codes: each token's code point (`doc_arrays.TokenArrays.codes`; tokens of
            several characters match nothing).
        """
        if not len(codes) or not self._tables.get(group):
            return []
        best, row = self._longest(group, codes)
        out: List[Tuple[int, int, str]] = []
        end = 0
        for start in numpy.flatnonzero(best).tolist():
            if start >= end:
                size = int(best[start])
                end = start + size
                out.append((start, end, self._rows[group][size][int(row[start])]))
        return out

    def gap_rules(self, codes: numpy.ndarray, bonus: float) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """Gap constraints (-1 free, 0 no boundary, 1 boundary: force and split
        words) and boundary-logit bonuses (prefer words) of n tokens, each (n - 1,)."""
        n = len(codes)
        constraints = numpy.full(max(n - 1, 0), -1, dtype=numpy.int64)
        bias = numpy.zeros(max(n - 1, 0), dtype=numpy.float64)
        for start, end, word in self.matches(codes, "hard"):
            constraints[start : end - 1] = 0
            if word in self.splits:
                cuts = numpy.cumsum([len(p) for p in self.splits[word][:-1]])
                constraints[start + cuts - 1] = 1
            if start > 0:
                constraints[start - 1] = 1
            if end - 1 < n - 1:
                constraints[end - 1] = 1
        for start, end, _ in self.matches(codes, "prefer"):
            bias[start : end - 1] -= bonus
            if start > 0:
                bias[start - 1] += bonus
            if end - 1 < n - 1:
                bias[end - 1] += bonus
        return constraints, bias

    def combine(self, codes: numpy.ndarray, bounds: numpy.ndarray, edges: numpy.ndarray,
                constraints: numpy.ndarray) -> numpy.ndarray:
        """Merge "combine" words into one token where the decoded `bounds` (n - 1,)
        have a boundary at both of a word's edges (`edges`: gaps that count as
        boundaries anyway, and the ends of the tokens) and no gap inside it is
        a forced boundary (`constraints` == 1). Longest words first at each
        position, left to right, matches never overlap."""
        if not self._tables.get("combine") or not len(bounds):
            return bounds
        best, _ = self._longest("combine", codes)
        cut = bounds | edges
        out = bounds.copy()
        end = 0
        for start in numpy.flatnonzero(best).tolist():
            if start < end:
                continue
            stop = start + int(best[start])  # tokens [start, stop): inner gaps start .. stop - 2
            left = start == 0 or cut[start - 1]
            right = stop - 1 >= len(bounds) or cut[stop - 1]
            if left and right and not (constraints[start : stop - 1] == 1).any():
                out[start : stop - 1] = False
                end = stop
        return out

    def to_list(self) -> List[list]:
        """Rows [word, mode] (+ [freq] where known; a split word's parts last), sorted."""
        rows = []
        for word, mode in sorted(self.words.items()):
            row: list = [word, mode]
            if word in self.freqs:
                row.append(self.freqs[word])
            if mode == "split":
                row.append(list(self.splits[word]))
            rows.append(row)
        return rows

    @classmethod
    def from_list(cls, rows: Iterable[Sequence], normalizer: Optional[CharNormalizer] = None,
                  source: str = "user_dict") -> "UserDictionary":
        """The dictionary of `to_list`'s rows (also the [word, mode] rows of older
        pipelines), matched under `normalizer` (the model's); every row checked
        (E095 names `source` and the row)."""
        out = cls(normalizer=normalizer)
        modes: Dict[str, str] = {}
        for i, row in enumerate(rows):
            try:
                word, mode, freq, parts = _read_row(row)
            except (ValueError, TypeError) as err:
                raise ValueError(Errors.E095.format(source=source, row=i, message=err)) from None
            if parts is not None:
                out.splits[word] = parts
            if freq is not None:
                out.freqs[word] = freq
            modes[word] = mode
        out._set(modes)
        out._build()
        return out


def _read_row(row: Sequence) -> Tuple[str, str, Optional[int], Optional[Tuple[str, ...]]]:
    """(word, mode, freq, parts) of a row of `UserDictionary.to_list`; ValueError if it is not one."""
    if not isinstance(row, (list, tuple)) or len(row) < 2:
        raise ValueError(Errors.E098.format(row=row))
    word, mode, rest = check_word(row[0]), row[1], list(row[2:])
    if mode not in MODES:
        raise ValueError(Errors.E045.format(mode=mode, options=MODES))
    parts = None
    if mode == "split":
        if not rest or not isinstance(rest[-1], list):
            raise ValueError(Errors.E098.format(row=row))
        parts = tuple(check_word(p) for p in rest.pop())
        if "".join(parts) != word or len(parts) < 2:
            raise ValueError(Errors.E084.format(word=word, parts=list(parts)))
    freq = check_freq(word, rest.pop()) if rest else None
    if rest:
        raise ValueError(Errors.E098.format(row=row))
    return word, mode, freq, parts


def check_freq(word: str, freq: object) -> int:
    """E096 unless `freq` is a whole number from 0 to `MAX_FREQ` (bools are not)."""
    if isinstance(freq, bool) or not isinstance(freq, int) or not 0 <= freq <= MAX_FREQ:
        raise ValueError(Errors.E096.format(max=MAX_FREQ, freq=freq, word=word))
    return freq
