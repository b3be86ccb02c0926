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

Whitespace is a word boundary (`doc.text` never changes), but for a word with single spaces
between its parts (jieba's `Edu Trust认证`, `Louis Vuitton`: a phrase): it is kept as one token
(holding its spaces) wherever the text has exactly that run, whatever its mode (`phrase_spans`). Frequencies (jieba's files) are kept with the words
(`freqs`); a "prefer" word's bonus scales with its frequency where the decoder's
`user_dict_freq_scale` is set (`word_tables.freq_weight`). Files in the formats users have:
`decoding.dictionary_files`; the lookup tables: `decoding.word_tables`.
"""
import re
import threading
from types import MappingProxyType
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy

from spacy_gdcws.data.normalize import CharNormalizer, get_normalizer
from spacy_gdcws.data.tokenizer import check_unicode
from spacy_gdcws.decoding.word_tables import MIN_DELTA, LengthTable, Snapshot, word_keys
from spacy_gdcws.errors import Errors

MODES = ("force", "prefer", "combine", "split")
# the largest frequency a saved dictionary can hold (msgpack / JSON integers of 64 bits)
MAX_FREQ = 2**63 - 1
# the modes a word or a file line may name (a split comes with its parts: `add_splits`)
WORD_MODES = ("force", "prefer", "combine")
# modes whose occurrences are fixed by forward maximum matching before decoding
_HARD = ("force", "split")
# the group of the words with spaces (phrases), found in the text after decoding
PHRASE = "phrase"


def check_mode(mode: str) -> str:
    """E045 unless `mode` is one of `WORD_MODES`."""
    if mode not in WORD_MODES:
        raise ValueError(Errors.E045.format(mode=mode, options=WORD_MODES))
    return mode


# whitespace (only single spaces inside a phrase) and lone surrogates (not text spaCy can store), in one search
_NOT_IN_A_WORD = re.compile(r"[\s\ud800-\udfff]")
# a phrase: parts without whitespace joined by single spaces
_PHRASE = re.compile(r"\S+(?: \S+)+")


def check_word(word: object) -> str:
    """E046 unless `word` is a non-empty string without whitespace, or a phrase (parts joined by
    single spaces); E066: not Unicode spaCy can store."""
    if not isinstance(word, str) or not word:
        raise ValueError(Errors.E046.format(word=word))
    if _NOT_IN_A_WORD.search(word):
        if any(c.isspace() for c in word) and not _PHRASE.fullmatch(word):
            raise ValueError(Errors.E046.format(word=word))
        check_unicode(word)
    return word


class UserDictionary:
    """Words with a mode (see the module docstring).

    Edits (`add`, `add_splits`, `remove`, `reset`) change the words at once and cost what
    they touch, also with jieba's 349k words loaded: the lookup tables of the words touched
    are brought up to date by the next `snapshot()` (the next decode), incrementally
    (`word_tables`: a table's small delta is rebuilt, its base only once it is outgrown),
    or at once by an edit of many words (a file). Edits and that update are serialized by
    a lock; decoding reads one immutable snapshot from start to end, so a decode running
    while another thread edits sees the dictionary before or after the edit, never half
    of it.
    """

    def __init__(self, words: Optional[Mapping[str, str]] = None, normalizer: Optional[CharNormalizer] = None) -> None:
        self.words: Dict[str, str] = {}
        self.freqs: Dict[str, int] = {}
        self.splits: Dict[str, Tuple[str, ...]] = {}
        self._normalizer = normalizer if normalizer is not None else get_normalizer("")
        self._lock = threading.Lock()
        self._clear_tables()
        if words:
            with self._lock:
                self._apply({w: m for w, m in words.items()})

    def _clear_tables(self) -> None:
        # per group and length, key -> word (what the tables hold, as of the last snapshot);
        # the words touched since (their tables to bring up to date), and whether splits changed
        self._entries: Dict[Tuple[str, int], Dict[int, str]] = {}
        # per group and length, key -> every word of the dictionary with that key (two words may read
        # alike once normalized, 台湾 and 臺灣): the table holds the latest, and another when it goes
        self._holders: Dict[Tuple[str, int], Dict[int, Dict[str, None]]] = {}
        self._pending: Dict[Tuple[str, int], Dict[str, None]] = {}
        self._splits_changed = False
        self._snapshot = Snapshot({}, MappingProxyType({}), 0)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __reduce__(self):
        return (_restore, (self.to_list(), self._normalizer))

    def snapshot(self) -> Snapshot:
        """The dictionary as it is now, for one decode (`word_tables.Snapshot`): the tables
        of the words edited since the last one are brought up to date first."""
        if self._pending or self._splits_changed:
            with self._lock:
                self._compile()
        return self._snapshot

    @property
    def normalizer(self) -> CharNormalizer:
        """How the words' characters are normalized for matching (the model's
        `data.normalize.CharNormalizer`, given by the decoder when the
        dictionary is made or assigned, never while decoding): the words are
        kept as given, and matched against the text's normalized characters."""
        return self._normalizer

    @normalizer.setter
    def normalizer(self, value: CharNormalizer) -> None:
        if value is not self._normalizer:  # identity: comparing maps would build a lazy one
            with self._lock:
                self._normalizer = value
                modes = dict(self.words)
                self._clear_tables()
                self._splits_changed = bool(self.splits)  # the next snapshot keeps them (they are not re-added)
                self._apply(modes)

    def add(self, words: Iterable[str], mode: str = "force", freqs: Optional[Mapping[str, int]] = None) -> int:
        """Add words (a later mode replaces an earlier one), checked all before
        any is added. A bare string is refused (E083: it would add each of its
        characters). RETURNS how many were given."""
        if words.__class__ is list and len(words) == 1 and not freqs and mode in WORD_MODES:
            word = words[0]  # one valid word: the call a service makes in a loop, at its cheapest
            if word.__class__ is str and word and not _NOT_IN_A_WORD.search(word):
                with self._lock:
                    self._apply({word: mode})
                return 1
        if isinstance(words, str):
            raise TypeError(Errors.E083.format(words=words))
        if mode not in WORD_MODES:
            check_mode(mode)
        search = _NOT_IN_A_WORD.search  # check_word's test, inline: edits come a word at a time in loops
        checked = dict.fromkeys([w if w.__class__ is str and w and not search(w) else check_word(w) for w in words],
                                mode)
        freqs = {w: check_freq(w, f) for w, f in freqs.items()} if freqs else None
        with self._lock:
            self._apply(checked)
            if freqs:
                self.freqs.update({w: f for w, f in freqs.items() if w in self.words})
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
        with self._lock:
            self._apply(dict.fromkeys(checked, "split"), splits=checked)
        return len(checked)

    def remove(self, words: Iterable[str]) -> None:
        """Remove words (absent ones are ignored); a bare string is refused (E083)."""
        if isinstance(words, str):
            raise TypeError(Errors.E083.format(words=words))
        with self._lock:
            self._apply({}, remove=list(words))

    def reset(self) -> None:
        """Remove every word."""
        with self._lock:
            self.words, self.freqs, self.splits = {}, {}, {}
            self._clear_tables()

    def _apply(self, modes: Mapping[str, str], remove: Sequence[str] = (),
               splits: Optional[Mapping[str, Tuple[str, ...]]] = None) -> None:
        """Set words' modes and remove words (under the lock): the words at once, their
        tables at the next snapshot (at once for an edit of many words)."""
        pending, words = self._pending, self.words
        for word in remove:
            mode = words.pop(word, None)
            if mode is not None:
                self.freqs.pop(word, None)
                self._splits_changed |= self.splits.pop(word, None) is not None
                pending.setdefault(_place(word, mode), {})[word] = None
        for word, mode in modes.items():  # a path a word at a time costs little: edits in a loop
            old = words.get(word)
            if old is not None:
                if old == "split" and mode != "split":
                    self._splits_changed |= self.splits.pop(word, None) is not None
                pending.setdefault(_place(word, old), {})[word] = None
            words[word] = mode
            place = _place(word, mode)
            touched = pending.get(place)
            if touched is None:
                touched = pending[place] = {}
            touched[word] = None
        if splits:
            self.splits.update(splits)
            self._splits_changed = True
        if len(modes) + len(remove) >= MIN_DELTA:
            self._compile()

    def _compile(self) -> None:
        """Bring the tables of the words touched since the last snapshot up to date, and
        make a new snapshot (under the lock)."""
        old = self._snapshot
        tables = {group: dict(by_size) for group, by_size in old.tables.items()}
        phrases_changed = any(group == PHRASE for group, _ in self._pending)
        for (group, size), touched in self._pending.items():
            if group == PHRASE:  # matched in the text, not through the tables
                continue
            words = list(touched)
            entries = self._entries.setdefault((group, size), {})
            holders = self._holders.setdefault((group, size), {})
            keys = word_keys(words, size, self._normalizer).tolist()
            for word, key in zip(words, keys):
                mode = self.words.get(word)
                alike = holders.setdefault(key, {})
                alike.pop(word, None)
                if mode is not None and _place(word, mode) == (group, size):
                    alike[word] = None  # the latest word of the key
                    entries[key] = word
                elif entries.get(key) == word:
                    if alike:  # another word reads the same: it keeps the entry
                        entries[key] = next(reversed(alike))
                    else:
                        del entries[key]
                if not alike:
                    del holders[key]
            table = old.tables.get(group, {}).get(size)
            if not entries:
                tables.get(group, {}).pop(size, None)
            else:
                tables.setdefault(group, {})[size] = (LengthTable.build(size, entries) if table is None
                                                      else table.edited(entries, keys))
        view = MappingProxyType(dict(self.splits)) if self._splits_changed else old.splits
        phrases = old.phrases
        if phrases_changed:
            phrases = MappingProxyType({self._normalizer.text(w): w for w in self.words if " " in w})
        self._pending, self._splits_changed = {}, False
        self._snapshot = Snapshot({g: t for g, t in tables.items() if t}, view, len(self.words), self.freqs, phrases)

    def matches(self, codes: numpy.ndarray, group: str = "hard") -> List[Tuple[int, int, str]]:
        """`Snapshot.matches` of the dictionary as it is now."""
        return self.snapshot().matches(codes, group)

    def gap_rules(self, codes: numpy.ndarray, bonus: float, freq_scale: float = 0.0) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """`Snapshot.gap_rules` of the dictionary as it is now."""
        return self.snapshot().gap_rules(codes, bonus, freq_scale)

    def combine(self, codes: numpy.ndarray, bounds: numpy.ndarray, edges: numpy.ndarray,
                constraints: numpy.ndarray) -> numpy.ndarray:
        """`Snapshot.combine` of the dictionary as it is now."""
        return self.snapshot().combine(codes, bounds, edges, constraints)

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
        splits: Dict[str, Tuple[str, ...]] = {}
        freqs: Dict[str, int] = {}
        for i, row in enumerate(rows):
            try:
                word, mode, freq, parts = _read_row(row)
            except (ValueError, TypeError) as err:
                raise ValueError(Errors.E095.format(source=source, row=i, message=err)) from None
            if parts is not None:
                splits[word] = parts
            if freq is not None:
                freqs[word] = freq
            modes[word] = mode
        with out._lock:
            out._apply(modes, splits=splits)
            out.freqs.update(freqs)
            out._compile()
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


def _restore(rows: List[list], normalizer: Union[CharNormalizer, str]) -> UserDictionary:
    """A pickled dictionary (`UserDictionary.__reduce__`): its rows under its normalization
    (a spec string in pickles of earlier versions)."""
    return UserDictionary.from_list(rows, get_normalizer(normalizer) if isinstance(normalizer, str) else normalizer)


def _place(word: str, mode: str) -> Tuple[str, int]:
    """The table a word of `mode` lives in: its mode group (a phrase's: "phrase", whatever its mode)
    and its length."""
    if " " in word:
        return PHRASE, len(word)
    return ("hard" if mode in _HARD else mode), len(word)
