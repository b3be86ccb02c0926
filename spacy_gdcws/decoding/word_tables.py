"""The user dictionary's lookup tables, edited in time proportional to the words touched.

Words are found in a text by the 64-bit keys of their (normalized) code points
(`features.code_keys`), one table per mode group and word length. A table is two sorted
parts: a large `base`, built rarely, whose words an edit can only mark dead, and a small
`delta` of the words added since, rebuilt at each edit. When the delta outgrows a share of
the base, both are built again into one base: an edit costs O(delta + base / 8 bytes), a
rebuild O(n log n) once per many edits.

Tables are immutable. An edit makes new ones for the lengths it touches and a new
`Snapshot` (sharing everything else); a decode reads one snapshot from start to end, so
it sees the dictionary before an edit or after it, never half of it, and never waits.
"""
import math
import re
from typing import Dict, Iterable, List, Mapping, Optional, Tuple

import numpy

from spacy_gdcws.data.features import code_keys, window_matches
from spacy_gdcws.data.key_index import KeyIndex

# the mode groups: words fixed by forward maximum matching before decoding (force, split),
# words favoured by a bonus, words merged after decoding
GROUPS = ("hard", "prefer", "combine")
# a delta of at most this many words, or of base / DELTA_SHARE, is kept apart from the base
MIN_DELTA = 1024
DELTA_SHARE = 16


def word_keys(words: List[str], size: int, normalizer) -> numpy.ndarray:
    """uint64 keys of words of `size` characters, as the text's windows are keyed (normalized)."""
    codes = numpy.frombuffer("".join(words).encode("utf-32-le"), dtype="<u4").astype(numpy.int64)
    return code_keys(normalizer.points(codes).reshape(len(words), size))


class Part:
    """Words of one length under their keys, sorted: found in a text by `find`."""

    __slots__ = ("index", "words", "positions")

    def __init__(self, keys: numpy.ndarray, words: List[str]) -> None:
        order = numpy.argsort(keys, kind="stable")
        self.index = KeyIndex(keys[order])
        self.words = numpy.asarray(words, dtype=object)[order] if words else numpy.zeros(0, dtype=object)
        self.positions: Optional[Dict[int, int]] = None

    def __len__(self) -> int:
        return len(self.words)

    def position(self, key: int) -> Optional[int]:
        """Where the word of `key` sits (None: not here); the map is made once, when first asked."""
        if self.positions is None:
            self.positions = {k: i for i, k in enumerate(self.index.table.tolist())}
        return self.positions.get(key)


class LengthTable:
    """The words of one mode group and length: `base` (its `alive` words) and `delta`."""

    __slots__ = ("size", "base", "alive", "delta")

    def __init__(self, size: int, base: Part, alive: Optional[numpy.ndarray], delta: Part) -> None:
        self.size, self.base, self.alive, self.delta = size, base, alive, delta

    @classmethod
    def build(cls, size: int, entries: Mapping[int, str]) -> "LengthTable":
        """One base of all the entries (key -> word), no delta."""
        keys = numpy.fromiter(entries.keys(), dtype=numpy.uint64, count=len(entries))
        return cls(size, Part(keys, list(entries.values())), None, Part(numpy.zeros(0, dtype=numpy.uint64), []))

    def edited(self, entries: Mapping[int, str], changed: Iterable[int]) -> "LengthTable":
        """The table after `changed` keys took their values in `entries` (absent: removed);
        the base kept (its changed words marked dead), or built again once the delta outgrows it."""
        changed = [k for k in changed]
        delta_keys = set(self.delta.index.table.tolist()) | set(changed)
        delta = {k: entries[k] for k in delta_keys if k in entries}
        if len(delta) > max(MIN_DELTA, len(self.base) // DELTA_SHARE):
            return LengthTable.build(self.size, entries)
        alive = self.alive
        for key in changed:
            pos = self.base.position(key)
            if pos is not None:
                if alive is None or alive is self.alive:
                    alive = numpy.ones(len(self.base), dtype=bool) if alive is None else alive.copy()
                alive[pos] = False
        keys = numpy.fromiter(delta.keys(), dtype=numpy.uint64, count=len(delta))
        return LengthTable(self.size, self.base, alive, Part(keys, list(delta.values())))

    def find(self, codes: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """Starts of the windows of `codes` that are a word here, and each one's word."""
        starts, idx = window_matches(codes, self.size, self.base.index)
        words = self.base.words[idx]
        if self.alive is not None:
            live = self.alive[idx]
            starts, words = starts[live], words[live]
        if len(self.delta):
            d_starts, d_idx = window_matches(codes, self.size, self.delta.index)
            if len(d_starts):
                order = numpy.argsort(numpy.concatenate([starts, d_starts]), kind="stable")
                starts = numpy.concatenate([starts, d_starts])[order]
                words = numpy.concatenate([words, self.delta.words[d_idx]])[order]
        return starts, words


def freq_weight(freq: Optional[int], scale: float) -> float:
    """How much of the prefer bonus a word of frequency `freq` gets: 1 + scale * log10(freq),
    never below 0; 1 for a word without a frequency (or of frequency 0 or 1). With scale 0.25,
    a jieba word of frequency 1,000 gets 1.75 bonuses, one of 100,000 2.25."""
    if not scale or not freq or freq <= 1:
        return 1.0
    return max(0.0, 1.0 + scale * math.log10(freq))


class Snapshot:
    """The dictionary as a decode reads it: tables by group and length, and the splits."""

    __slots__ = ("tables", "splits", "n_words", "freqs", "phrases", "_phrase_pattern")

    def __init__(self, tables: Dict[str, Dict[int, LengthTable]], splits: Mapping[str, Tuple[str, ...]],
                 n_words: int, freqs: Optional[Mapping[str, int]] = None,
                 phrases: Optional[Mapping[str, str]] = None) -> None:
        self.tables, self.splits, self.n_words = tables, splits, n_words
        # the words' frequencies, read live (an edit of a word's frequency alone is O(1))
        self.freqs: Mapping[str, int] = freqs if freqs is not None else {}
        # the words with single spaces (normalized -> as given), found in the text
        self.phrases: Mapping[str, str] = phrases if phrases is not None else {}
        self._phrase_pattern: Optional["re.Pattern[str]"] = None

    def phrase_spans(self, text: str) -> List[Tuple[int, int]]:
        """The character spans of the phrases' occurrences in `text` (normalized), left to right,
        the longest phrase where two start together, none overlapping."""
        if not self.phrases:
            return []
        if self._phrase_pattern is None:
            self._phrase_pattern = re.compile("|".join(re.escape(p) for p in sorted(self.phrases, key=len, reverse=True)))
        return [(m.start(), m.end()) for m in self._phrase_pattern.finditer(text)]

    def __len__(self) -> int:
        return self.n_words

    def longest(self, group: str, codes: numpy.ndarray) -> Tuple[numpy.ndarray, List[Optional[str]]]:
        """Per token: the length of the longest word of `group` starting there (0: none),
        and that word."""
        n = len(codes)
        best = numpy.zeros(n, dtype=numpy.int64)
        words = numpy.full(n, None, dtype=object)
        for size in sorted(self.tables.get(group, {})):
            starts, found = self.tables[group][size].find(codes)
            best[starts] = size  # longer sizes come later and win
            words[starts] = found
        return best, words

    def occurrences(self, codes: numpy.ndarray, groups: Iterable[str]) -> List[Tuple[int, int, str]]:
        """Every occurrence of the groups' words in `codes` (normalized code points, one per
        character), overlaps included, as (start, end, word); unlike `matches`, no word
        hides another."""
        out: List[Tuple[int, int, str]] = []
        for group in groups:
            for size, table in self.tables.get(group, {}).items():
                starts, found = table.find(codes)
                out.extend((start, start + size, word) for start, word in zip(starts.tolist(), found.tolist()))
        return out

    def matches(self, codes: numpy.ndarray, group: str = "hard") -> List[Tuple[int, int, str]]:
        """Token spans [start, end) of the group's words in a doc, by forward maximum
        matching, with each word. codes: each token's code point
        (`doc_arrays.TokenArrays.codes`; tokens of several characters match nothing)."""
        if not len(codes) or not self.tables.get(group):
            return []
        best, words = self.longest(group, codes)
        out: List[Tuple[int, int, str]] = []
        end = 0
        for start in numpy.flatnonzero(best).tolist():
            if start >= end:
                end = start + int(best[start])
                out.append((start, end, words[start]))
        return out

    def gap_rules(self, codes: numpy.ndarray, bonus: float, freq_scale: float = 0.0) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """Gap constraints (-1 free, 0 no boundary, 1 boundary: force and split words) and
        boundary-logit bonuses (prefer words) of n tokens, each (n - 1,). A prefer word's
        bonus is `bonus * freq_weight(its frequency, freq_scale)`."""
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
        for start, end, word in self.matches(codes, "prefer"):
            word_bonus = bonus * freq_weight(self.freqs.get(word), freq_scale) if freq_scale else bonus
            bias[start : end - 1] -= word_bonus
            if start > 0:
                bias[start - 1] += word_bonus
            if end - 1 < n - 1:
                bias[end - 1] += word_bonus
        return constraints, bias

    def combine(self, codes: numpy.ndarray, bounds: numpy.ndarray, edges: numpy.ndarray,
                constraints: numpy.ndarray) -> numpy.ndarray:
        """Merge "combine" words into one token where the decoded `bounds` (n - 1,) have a
        boundary at both of a word's edges (`edges`: gaps that count as boundaries anyway,
        and the ends of the tokens) and no gap inside it is a forced boundary
        (`constraints` == 1). At each position the longest word that fits there (a longer word
        that does not fit hides no shorter one: 一个十 ending inside 十字 leaves 一个), left to
        right; merges never overlap."""
        if not self.tables.get("combine") or not len(bounds):
            return bounds
        n = len(codes)
        cut = bounds | edges
        # a word [start, stop) fits where gap start - 1 and gap stop - 1 are boundaries (or text
        # ends) and no gap inside is forced: forced[i] counts the forced gaps before gap i
        left = numpy.concatenate([[True], cut])  # left[start]: a boundary before token start
        right = numpy.concatenate([cut, [True]])  # right[stop - 1]: a boundary after token stop - 1
        forced = numpy.concatenate([[0], numpy.cumsum(constraints[: n - 1] == 1)])
        best = numpy.zeros(n, dtype=numpy.int64)
        for size in sorted(self.tables["combine"]):
            starts, _ = self.tables["combine"][size].find(codes)
            stops = starts + size
            fits = left[starts] & right[stops - 1] & (forced[stops - 1] == forced[starts])
            best[starts[fits]] = size  # longer sizes come later and win
        out = bounds.copy()
        end = 0
        for start in numpy.flatnonzero(best).tolist():
            if start >= end:
                end = start + int(best[start])
                out[start : end - 1] = False  # inner gaps start .. end - 2
        return out
