"""From docs to model inputs: hashed character ids, units and windows.

Everything here is numpy and independent of the model's device, so the same
plan (and so the same segmentation) is produced on CPU and GPU.

A doc is cut into *units* at line breaks (whitespace tokens that contain a
newline): lines never share attention context, so a document segments exactly
as its lines do. A unit longer than `window` characters is scored in
overlapping windows (stride `window // 2`); each gap keeps the score from the
window in which it is most central, so memory is bounded and no gap is ever
scored at a window edge (except at the ends of the unit, where there is no
context anyway).
"""
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Container, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy
from spacy.strings import get_string_id

from .ragged import ragged_positions
from .key_index import KeyIndex, mix64

MASK64 = numpy.uint64(0xFFFFFFFFFFFFFFFF)
_SEED_STEP = numpy.uint64(0x9E3779B97F4A7C15)
_BIGRAM_MUL = numpy.uint64(0xC2B2AE3D27D4EB4F)
BOS = numpy.uint64(0x5F3759DF5F3759DF)
EOS = numpy.uint64(0x1B873593CC9E2D51)
# keys that stand in for characters / bigrams outside the n-gram vocabulary
# (plus the character class, or the pair of classes: see `char_classes`)
UNK_CHAR = numpy.uint64(0x2545F4914F6CDD1D)
UNK_BIGRAM = numpy.uint64(0x4F1BBCDCBFA54A6B)
N_CLASSES = 9  # char_classes' 8 classes and the unit edge (BOS / EOS)
EDGE_CLASS = 8
_HAN_NUMERALS = frozenset("〇○零一二三四五六七八九十百千万亿两廿卅")
HAN_CLASS = 2  # `char_class` of a Han character that is not a numeral


@lru_cache(maxsize=65536)
def char_class(text: str) -> int:
    """Coarse class of a token (by its first character): 0 whitespace,
    1 Chinese numeral, 2 other Han character, 3 digit (any script or width),
    4 other letter (Latin, kana, ...), 5 punctuation, 6 symbol, 7 other."""
    if not text or text.isspace():
        return 0
    c = text[0]
    if c in _HAN_NUMERALS:
        return 1
    cp = ord(c)
    if 0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x3134F or 0xF900 <= cp <= 0xFAFF:
        return HAN_CLASS
    category = unicodedata.category(c)
    return {"N": 3, "L": 4, "P": 5, "S": 6}.get(category[0], 7)


def char_classes(tokens: Sequence[str]) -> numpy.ndarray:
    """`char_class` of every token, as uint64 (n,)."""
    return numpy.fromiter((char_class(t) for t in tokens), dtype=numpy.uint64, count=len(tokens))


def hash_rows(keys: numpy.ndarray, n_rows: int, n_seeds: int) -> numpy.ndarray:
    """Map uint64 keys to `n_seeds` table rows each: shape keys.shape + (n_seeds,)."""
    salts = _SEED_STEP * numpy.arange(1, n_seeds + 1, dtype=numpy.uint64)
    with numpy.errstate(over="ignore"):
        salted = numpy.asarray(keys, dtype=numpy.uint64)[..., None] + salts  # every seed at once
        return (mix64(salted) % numpy.uint64(n_rows)).astype(numpy.int64)


def bigram_key(left: numpy.ndarray, right: numpy.ndarray) -> numpy.ndarray:
    """uint64 key of the bigrams (left[i], right[i])."""
    with numpy.errstate(over="ignore"):
        return mix64(left.astype(numpy.uint64) * _BIGRAM_MUL) ^ right.astype(numpy.uint64)


@dataclass
class DocFeatures:
    """Hashed rows of every token of one doc.

    chars (n, seeds): character rows.
    left (n, seeds): rows of the bigram (c[i-1], c[i]), BOS at a unit start.
    right (n, seeds): rows of the bigram (c[i], c[i+1]), EOS at a unit end.
    """

    chars: numpy.ndarray
    left: numpy.ndarray
    right: numpy.ndarray
    lexicon: Optional[numpy.ndarray] = None
    # rows of the pretrained vectors table (n,), -1 = none (`architectures.vector_rows`)
    vectors: Optional[numpy.ndarray] = None


class WordCounts:
    """Read-only word -> training frequency mapping for `lexicon_holdout`.

    Not a dict on purpose: thinc serializes every msgpack-able model attr into
    the model's bytes, and the counts are only needed in training (they are
    recomputed by `initialize`). Picklable, so `nlp.pipe(n_process=...)` works.

    local_folds (Optional[Mapping[str, int]]): With block leave-out
        (`HoldoutFolds`), the block of each word whose training occurrences
        all lie in one block.
    """

    __slots__ = ("_counts", "_local_folds")

    def __init__(self, counts: Mapping[str, int], local_folds: Optional[Mapping[str, int]] = None) -> None:
        self._counts = dict(counts)
        self._local_folds = dict(local_folds) if local_folds else {}

    def get(self, word: str, default: int = 0) -> int:
        return self._counts.get(word, default)

    def fold_of(self, word: str) -> int:
        """The block all of `word`'s training occurrences lie in, or -1."""
        return self._local_folds.get(word, -1)

    def values(self) -> Iterable[int]:
        return self._counts.values()

    def __len__(self) -> int:
        return len(self._counts)


class HoldoutFolds:
    """Contiguous blocks of the training docs, for block leave-out.

    Leave-one-out over single docs shows the model far fewer unknown words
    and in-word bigrams than new text brings: rare words cluster in the
    articles about their topic. With `k` blocks of the training docs in file
    order, training hides from a doc every word / n-gram whose training
    occurrences all lie in the doc's own block, as a held-out stretch of text
    would see them (SXU: 10.6% of in-word bigrams unknown, against 15.1% on
    dev and 4.0% with leave-one-doc-out).

    A doc is found by its text (a 64-bit hash); texts not seen by
    `from_texts` get block -1 (plain leave-one-out). Training-only, like
    `WordCounts`: not saved with the model.
    """

    __slots__ = ("k", "_blocks")

    def __init__(self, k: int, blocks: Mapping[int, int]) -> None:
        self.k = k
        self._blocks = dict(blocks)

    @classmethod
    def from_texts(cls, texts: Sequence[str], k: int) -> "HoldoutFolds":
        """Cut the texts, in order, into k blocks of (nearly) equal numbers of
        docs; a text that occurs more than once keeps its first block."""
        blocks: Dict[int, int] = {}
        for i, text in enumerate(texts):
            blocks.setdefault(text_key(text), cls.block_of_index(i, len(texts), k))
        return cls(k, blocks)

    @staticmethod
    def block_of_index(i: int, n: int, k: int) -> int:
        """The block of the i-th of n docs (the rule `from_texts` uses)."""
        return i * k // max(n, 1)

    def fold(self, text: str) -> int:
        """The block of a training doc's text, or -1 if it is not one."""
        return self._blocks.get(text_key(text), -1)

    def __len__(self) -> int:
        return len(self._blocks)


# Doc.user_data key: the training text a doc was made from (`augment.PseudoWords`)
SOURCE_TEXT_KEY = "gdcws_source_text"


def source_text(doc) -> str:
    """The training text a doc stands for: its own, or the one it was made
    from in training (`SOURCE_TEXT_KEY`), which `HoldoutFolds` knows."""
    return doc.user_data.get(SOURCE_TEXT_KEY, doc.text)


def text_key(text: str) -> int:
    """A stable 64-bit key of a text (spaCy's string hash)."""
    return get_string_id(text)


def lexicon_features(tokens: Sequence[str], lexicon: Container[str], max_len: int,
                     holdout_counts: Optional[Union[Mapping[str, int], WordCounts]] = None,
                     fold: int = -1) -> numpy.ndarray:
    """Which lexicon words start and end at each token (pkuseg-style
    dictionary features; the lexicon is the training vocabulary, so they are
    closed-test legal).

    tokens (Sequence[str]): The doc's token texts (characters).
    lexicon (AbstractSet[str]): The words.
    max_len (int): Longest word length looked up (lengths 2..max_len).
    holdout_counts (Optional[Mapping[str, int]]): Training frequencies; when
        given (training only), a word is hidden if all its training
        occurrences may lie in this very text (frequency <= occurrences of the
        string here): leave-one-out, so that the model sees such words as it
        will see unknown words at test time.
    RETURNS (numpy.ndarray): float32 (n, 2 * (max_len - 1)): column n - 2 is 1
        where a word of n characters starts at the token, column
        max_len - 1 + n - 2 where one ends there.
    """
    n_tokens = len(tokens)
    width = max_len - 1
    out = numpy.zeros((n_tokens, 2 * width), dtype=numpy.float32)
    text = "".join(tokens)
    single = len(text) == n_tokens  # every token one character: slice the string
    for size in range(2, max_len + 1):
        k = size - 2
        for i in range(n_tokens - size + 1):
            piece = text[i : i + size] if single else "".join(tokens[i : i + size])
            if piece in lexicon:
                if holdout_counts is not None and _held_out(holdout_counts, piece, text, fold):
                    continue
                out[i, k] = 1.0
                out[i + size - 1, width + k] = 1.0
    return out


def _held_out(counts: Union[Mapping[str, int], WordCounts], word: str, text: str, fold: int) -> bool:
    """Whether training hides a dictionary word from `text` (see `lexicon_features`)."""
    if fold >= 0 and isinstance(counts, WordCounts) and counts.fold_of(word) == fold:
        return True
    return counts.get(word, 0) <= text.count(word)


@dataclass
class NgramKeys:
    """uint64 keys of a batch of docs, concatenated, before hashing.

    chars (n,): the characters' ORTH ids. left / right (n,): the bigrams
    (c[i-1], c[i]) and (c[i], c[i+1]), with BOS / EOS at unit edges (all zero
    without bigrams). unk_chars, unk_left, unk_right (n,): the keys that
    replace them when they are unknown (UNK by character class / class pair).
    offsets, lengths: each doc's slice. real (bool (n,) or None): the
    positions that are a doc's token, where the docs are laid end to end with
    a separator between them (`doc_arrays.BatchArrays`; None: all are).
    """

    chars: numpy.ndarray
    left: numpy.ndarray
    right: numpy.ndarray
    unk_chars: numpy.ndarray
    unk_left: numpy.ndarray
    unk_right: numpy.ndarray
    offsets: numpy.ndarray
    lengths: numpy.ndarray
    real: Optional[numpy.ndarray] = None

    def stacked(self) -> numpy.ndarray:
        """All keys as one (3n,) array: chars, then left, then right bigrams."""
        return numpy.concatenate([self.chars, self.left, self.right])

    def replaced(self, hide: numpy.ndarray) -> "NgramKeys":
        """A copy with the keys where `hide` (3n,, ordered as `stacked`) is
        True replaced by their UNK keys (without bigrams, both are all zero)."""
        n = len(self.chars)
        chars = numpy.where(hide[:n], self.unk_chars, self.chars)
        left = numpy.where(hide[n : 2 * n], self.unk_left, self.left)
        right = numpy.where(hide[2 * n :], self.unk_right, self.right)
        return NgramKeys(chars, left, right, self.unk_chars, self.unk_left, self.unk_right, self.offsets,
                         self.lengths, self.real)

    def doc_slices(self) -> List[slice]:
        return [slice(int(o), int(o + n)) for o, n in zip(self.offsets, self.lengths)]


def ngram_keys(doc_orths: Sequence[numpy.ndarray], doc_breaks: Sequence[numpy.ndarray], use_bigrams: bool,
               doc_classes: Optional[Sequence[numpy.ndarray]] = None) -> NgramKeys:
    """Character and bigram keys of a batch of docs in one vectorised pass
    (`flat_ngram_keys` of the docs concatenated).

    doc_classes (Optional[Sequence[numpy.ndarray]]): `char_classes` of each
        doc, for class-specific UNK keys (None: one UNK for all).
    """
    lengths = numpy.asarray([len(o) for o in doc_orths], dtype=numpy.int64)
    orths = numpy.concatenate([numpy.asarray(o, dtype=numpy.uint64) for o in doc_orths])
    offsets = numpy.cumsum(numpy.concatenate([[0], lengths]))[:-1]
    classes = None
    if doc_classes is not None:
        classes = numpy.concatenate([numpy.asarray(c, dtype=numpy.uint64) for c in doc_classes])
    breaks = numpy.concatenate([numpy.asarray(b, dtype=bool) for b in doc_breaks]) if len(orths) else None
    return flat_ngram_keys(orths, breaks, use_bigrams, classes, offsets, lengths)


def flat_ngram_keys(orths: numpy.ndarray, breaks: Optional[numpy.ndarray], use_bigrams: bool,
                    classes: Optional[numpy.ndarray], offsets: numpy.ndarray, lengths: numpy.ndarray,
                    real: Optional[numpy.ndarray] = None) -> NgramKeys:
    """Character and bigram keys of a batch's flat tokens: docs at
    `offsets` / `lengths`, units cut at line breaks (`breaks`); with `real`,
    the other positions are separators between docs (line breaks themselves).
    `classes`: `char_classes` of each token, for class-specific UNK keys (None: one UNK for all).
    """
    orths = numpy.asarray(orths, dtype=numpy.uint64)
    if classes is None:
        classes = numpy.zeros(len(orths), dtype=numpy.uint64)
    n_classes = numpy.uint64(N_CLASSES)
    unk_chars = UNK_CHAR + classes
    if use_bigrams and len(orths):
        starts = numpy.zeros(len(orths), dtype=bool)
        starts[offsets[lengths > 0]] = True
        unit_start = starts.copy()
        unit_start[1:] |= breaks[:-1]
        unit_end = numpy.roll(starts, -1)
        unit_end[-1] = True
        unit_end[:-1] |= breaks[1:]
        prev = numpy.roll(orths, 1)
        prev[unit_start] = BOS
        nxt = numpy.roll(orths, -1)
        nxt[unit_end] = EOS
        left = bigram_key(prev, orths)
        right = bigram_key(orths, nxt)
        prev_class = numpy.roll(classes, 1)
        prev_class[unit_start] = EDGE_CLASS
        next_class = numpy.roll(classes, -1)
        next_class[unit_end] = EDGE_CLASS
        unk_left = UNK_BIGRAM + prev_class * n_classes + classes
        unk_right = UNK_BIGRAM + classes * n_classes + next_class
    else:
        left = right = unk_left = unk_right = numpy.zeros(len(orths), dtype=numpy.uint64)
    return NgramKeys(orths, left, right, unk_chars, unk_left, unk_right, offsets, lengths, real)


def _counts_in(keys: numpy.ndarray) -> numpy.ndarray:
    """For each position, how often its key occurs in `keys`."""
    if not len(keys):
        return numpy.zeros(0, dtype=numpy.int64)
    _, inverse, counts = numpy.unique(keys, return_inverse=True, return_counts=True)
    return counts[inverse.reshape(-1)]


def _doc_counts(keys: NgramKeys) -> numpy.ndarray:
    """How often each key of `keys.stacked()` occurs in its own doc (bigrams
    counted over left and right keys together), as a (3n,) array."""
    n = len(keys.chars)
    counts = numpy.zeros(3 * n, dtype=numpy.int64)
    for sl in keys.doc_slices():
        counts[sl] = _counts_in(keys.chars[sl])
        both = _counts_in(numpy.concatenate([keys.left[sl], keys.right[sl]]))
        size = sl.stop - sl.start
        counts[n + sl.start : n + sl.stop] = both[:size]
        counts[2 * n + sl.start : 2 * n + sl.stop] = both[size:]
    return counts


def _position_folds(keys: NgramKeys, doc_folds: numpy.ndarray) -> numpy.ndarray:
    """Each doc's block repeated over its keys, in `keys.stacked()` order."""
    per_char = numpy.repeat(numpy.asarray(doc_folds, dtype=numpy.int64), keys.lengths)
    if keys.real is not None:  # separators between docs belong to no block
        laid = numpy.full(len(keys.real), -1, dtype=numpy.int64)
        laid[keys.real] = per_char
        per_char = laid
    return numpy.tile(per_char, 3)


class NgramVocab:
    """Which characters and bigrams the model has an embedding for.

    Built from the training docs (`from_keys`). A character or bigram outside
    it is replaced by UNK_CHAR / UNK_BIGRAM (plus its character class or pair
    of classes, see `ngram_keys`) before hashing, so an unseen
    n-gram gets the learned "unknown" embedding instead of the hashed rows of
    unrelated training n-grams. With `holdout` (leave-one-out), training also
    hides every n-gram whose training occurrences may all lie in the current
    doc (frequency <= its occurrences there): the model then meets unknown
    n-grams in training about as often as in new text, and an n-gram counts as
    known only if it was visible in at least one training doc.

    With block leave-out (`HoldoutFolds`), training also hides from a doc
    every n-gram whose training occurrences all lie in the doc's block, and
    an n-gram counts as known only if it occurs in two blocks or more.

    `known` (sorted uint64 keys) is saved with the model; the training
    frequencies (and blocks) are only needed to train and are recomputed by
    `initialize`.
    """

    __slots__ = ("known", "_keys", "_counts", "_folds", "_known_index", "_keys_index")

    def __init__(self, known: numpy.ndarray, keys: Optional[numpy.ndarray] = None,
                 counts: Optional[numpy.ndarray] = None, folds: Optional[numpy.ndarray] = None) -> None:
        self.known = numpy.asarray(known, dtype=numpy.uint64)
        self._keys = keys
        # hash indexes over the two sorted tables (`key_index.KeyIndex`)
        self._known_index = KeyIndex(self.known)
        self._keys_index = None if keys is None else KeyIndex(keys)
        self._counts = counts
        # per key of `_keys`: the block all its occurrences lie in, or -1
        self._folds = folds

    @classmethod
    def from_keys(cls, docs: Sequence[NgramKeys], holdout: bool,
                  doc_folds: Optional[Sequence[numpy.ndarray]] = None) -> "NgramVocab":
        """Count the n-grams of training docs (one NgramKeys per batch).

        doc_folds (Optional[Sequence[numpy.ndarray]]): With `holdout`, the
            training block of each doc of each batch (`HoldoutFolds`; -1 for
            none), for block leave-out.
        """
        pooled, visible, pos_folds = [], [], []
        for i, k in enumerate(docs):
            pooled.append(k.stacked())
            if holdout:
                visible.append(_doc_counts(k))
            if holdout and doc_folds is not None:
                pos_folds.append(_position_folds(k, doc_folds[i]))
        all_keys = numpy.concatenate(pooled) if pooled else numpy.zeros(0, dtype=numpy.uint64)
        keys, inverse, counts = numpy.unique(all_keys, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(-1)
        folds = None
        if holdout and len(all_keys):
            seen = counts[inverse] > numpy.concatenate(visible)
            if pos_folds:
                where = numpy.concatenate(pos_folds)
                low = numpy.full(len(keys), numpy.iinfo(numpy.int64).max, dtype=numpy.int64)
                high = numpy.full(len(keys), -1, dtype=numpy.int64)
                numpy.minimum.at(low, inverse, where)
                numpy.maximum.at(high, inverse, where)
                # a key seen in a doc outside every block (-1) is never block-local
                folds = numpy.where((low == high) & (low >= 0), low, -1).astype(numpy.int32)
                seen &= ~((folds[inverse] == where) & (where >= 0))
            known = numpy.unique(all_keys[seen])
        else:
            known = keys
        return cls(known, keys, counts, folds)

    @classmethod
    def empty(cls) -> "NgramVocab":
        """The placeholder of a model that has not been initialized."""
        return cls(numpy.zeros(0, dtype=numpy.uint64))

    @property
    def can_hold_out(self) -> bool:
        return self._keys is not None

    def __len__(self) -> int:
        return len(self.known)

    def apply(self, keys: NgramKeys, holdout: bool, dropout: float = 0.0,
              doc_folds: Optional[numpy.ndarray] = None) -> NgramKeys:
        """Replace unknown (and, with `holdout` in training, held-out) keys by
        their class's UNK key; in training, `dropout` also hides that share of
        the remaining ones at random (numpy's global RNG, seeded by spaCy).
        `doc_folds` (the training block of each doc, -1 for none) adds block
        leave-out to `holdout`, where the vocabulary has blocks."""
        stacked = keys.stacked()
        if holdout and self.can_hold_out:
            found, idx = self._keys_index.find(stacked)
            train_counts = numpy.where(found, self._counts[idx], 0)
            hide = train_counts <= _doc_counts(keys)
            if doc_folds is not None and self._folds is not None:
                where = _position_folds(keys, doc_folds)
                hide |= found & (where >= 0) & (self._folds[idx] == where)
        else:
            hide = ~self._known_index.find(stacked)[0]
        if dropout > 0:
            # one draw per doc token (not per separator), in the docs' order
            drawn = hide if keys.real is None else numpy.zeros(int(keys.real.sum()) * 3, dtype=bool)
            drawn |= numpy.random.random_sample(len(drawn)) < dropout
            if keys.real is not None:
                hide[numpy.tile(keys.real, 3)] |= drawn
        return keys.replaced(hide)

    def to_bytes(self) -> bytes:
        return self.known.astype("<u8").tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> "NgramVocab":
        return cls(numpy.frombuffer(data, dtype="<u8").astype(numpy.uint64))

    def __reduce__(self):
        return (NgramVocab, (self.known, self._keys, self._counts, self._folds))


def doc_features(
    keys: NgramKeys,
    char_rows: int,
    char_seeds: int,
    bigram_rows: int,
    use_bigrams: bool,
    ngram_vocab: Optional[NgramVocab] = None,
    holdout: bool = False,
    ngram_dropout: float = 0.0,
    doc_folds: Optional[numpy.ndarray] = None,
) -> "BatchFeatures":
    """Hash a whole batch of docs at once (one vectorised pass over `ngram_keys`).

    ngram_vocab (Optional[NgramVocab]): Characters and bigrams outside it
        become UNK (of their character class, where the keys have classes);
        `holdout` and `ngram_dropout` (training only) also hide the rare
        ones and a random share of the others; `doc_folds` (each doc's
        training block, -1 for none) adds block leave-out to `holdout`.
    """
    if ngram_vocab is not None:
        keys = ngram_vocab.apply(keys, holdout, ngram_dropout, doc_folds if holdout else None)
    chars = hash_rows(keys.chars, char_rows, char_seeds)
    if use_bigrams and len(keys.chars):
        left = hash_rows(keys.left, bigram_rows, char_seeds)
        right = hash_rows(keys.right, bigram_rows, char_seeds)
    else:
        left = right = numpy.zeros((len(keys.chars), char_seeds), dtype=numpy.int64)
    return BatchFeatures(chars, left, right, keys.offsets, keys.lengths)


@dataclass
class BatchFeatures:
    """Hashed rows of every token of a batch of docs, concatenated (N tokens).

    chars, left, right (N, seeds): as in `DocFeatures`. lexicon (N, F) float32
    and vectors (N,) int64 (-1 = none), where the model has them. offsets,
    lengths (n_docs,): each doc's slice.
    """

    chars: numpy.ndarray
    left: numpy.ndarray
    right: numpy.ndarray
    offsets: numpy.ndarray
    lengths: numpy.ndarray
    lexicon: Optional[numpy.ndarray] = None
    vectors: Optional[numpy.ndarray] = None
    _padded: Dict[str, numpy.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def padded(self, name: str, fill: float = 0) -> numpy.ndarray:
        """The array `name` with one more row of `fill` at the end (made once):
        padding positions gather it, so padded batches need no masking pass."""
        if name not in self._padded:
            values = getattr(self, name)
            extra = numpy.full((1,) + values.shape[1:], fill, dtype=values.dtype)
            self._padded[name] = numpy.concatenate([values, extra])
        return self._padded[name]

    def docs(self) -> List[DocFeatures]:
        """One `DocFeatures` per doc (views)."""
        return [DocFeatures(self.chars[sl], self.left[sl], self.right[sl],
                            None if self.lexicon is None else self.lexicon[sl],
                            None if self.vectors is None else self.vectors[sl])
                for sl in (slice(int(o), int(o + n)) for o, n in zip(self.offsets, self.lengths))]


@dataclass(frozen=True)
class Window:
    """A span of one doc that the model scores in one row of a batch.

    doc (int): Index of the doc in the batch.
    start, end (int): Token span [start, end) of the doc.
    keep_start, keep_end (int): Doc gaps [keep_start, keep_end) whose score
        is taken from this window (gap g lies between tokens g and g + 1).
    """

    doc: int
    start: int
    end: int
    keep_start: int
    keep_end: int

    @property
    def length(self) -> int:
        return self.end - self.start


def windows_for_unit(doc: int, start: int, end: int, window: int) -> List[Window]:
    """Cut the unit [start, end) into overlapping windows of at most `window` tokens."""
    length = end - start
    if length <= window:
        return [Window(doc, start, end, start, end - 1)]
    stride = max(window // 2, 1)
    starts = list(range(start, end - window, stride)) + [end - window]
    out = []
    keep_from = start
    for k, a in enumerate(starts):
        if k + 1 < len(starts):
            # boundary halfway between this window's centre and the next one's
            keep_to = (a + starts[k + 1] + window - 1) // 2
        else:
            keep_to = end - 1
        out.append(Window(doc, a, a + window, keep_from, keep_to))
        keep_from = keep_to
    return out


@dataclass
class Windows:
    """The windows of a batch, in the batch's flat token positions (see `plan_windows`).

    start, end (int64): token span [start, end) of each window.
    keep_start, keep_end (int64): the gaps [keep_start, keep_end) whose score
        the window gives (gap g lies between tokens g and g + 1).
    """

    start: numpy.ndarray
    end: numpy.ndarray
    keep_start: numpy.ndarray
    keep_end: numpy.ndarray

    @property
    def length(self) -> numpy.ndarray:
        return self.end - self.start

    def take(self, rows: numpy.ndarray) -> "Windows":
        return Windows(self.start[rows], self.end[rows], self.keep_start[rows], self.keep_end[rows])

    def kept(self, tags: bool) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """Rows of the output each window fills, flat: (row in the batch,
        column in the row, flat position). Gaps: its kept gaps; per-character
        output (`tags`): the characters before them, and the unit's last
        character in the unit's last window."""
        count = self.keep_end - self.keep_start
        if tags:
            count = count + (self.keep_end == self.end - 1)
        rows, within = ragged_positions(count)
        position = self.keep_start[rows] + within
        return rows, position - self.start[rows], position


def plan_windows(breaks: numpy.ndarray, offsets: numpy.ndarray, lengths: numpy.ndarray, window: int) -> Windows:
    """All windows of a batch of docs from their concatenated line-break flags.

    Units are the maximal runs of tokens of one doc between line breaks; a unit
    of 2 tokens or more is one window, or overlapping windows when it is longer
    than `window` (`windows_for_unit`).
    """
    n = len(breaks)
    empty = numpy.zeros(0, dtype=numpy.int64)
    if not n:
        return Windows(empty, empty, empty, empty)
    real = ~numpy.asarray(breaks, dtype=bool)
    first = numpy.zeros(n, dtype=bool)
    first[offsets[lengths > 0]] = True
    last = numpy.zeros(n, dtype=bool)
    last[(offsets + lengths - 1)[lengths > 0]] = True
    prev_break = numpy.concatenate([[True], ~real[:-1]])
    next_break = numpy.concatenate([~real[1:], [True]])
    starts = numpy.flatnonzero(real & (first | prev_break))
    ends = numpy.flatnonzero(real & (last | next_break)) + 1
    keep = ends - starts >= 2
    starts, ends = starts[keep], ends[keep]
    long = ends - starts > window
    if not long.any():
        return Windows(starts, ends, starts.copy(), ends - 1)
    parts = [(starts[~long], ends[~long], starts[~long], ends[~long] - 1)]
    for a, b in zip(starts[long].tolist(), ends[long].tolist()):
        ws = windows_for_unit(0, a, b, window)
        parts.append(tuple(numpy.asarray([getattr(w, f) for w in ws], dtype=numpy.int64)
                           for f in ("start", "end", "keep_start", "keep_end")))
    return Windows(*(numpy.concatenate([p[i] for p in parts]) for i in range(4)))


def batch_windows(windows: Windows, max_padded: int) -> List[numpy.ndarray]:
    """Sort windows by length and group them so that rows * longest <= max_padded
    (a window longer than that gets a batch of its own). RETURNS the window
    indices of each batch."""
    order = numpy.argsort(windows.length, kind="stable")
    batches: List[numpy.ndarray] = []
    begin = 0
    for i, size in enumerate(windows.length[order].tolist()):
        if i > begin and (i - begin + 1) * size > max_padded:
            batches.append(order[begin:i])
            begin = i
    if begin < len(order):
        batches.append(order[begin:])
    return batches


def featurize(windows: Windows, feats: BatchFeatures, use_bigrams: bool
              ) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Padded arrays for one batch of windows, gathered from the batch's flat features.

    RETURNS: chars (B, T, seeds) int64, bigrams (B, T + 1, seeds) int64 (empty
        without bigrams), mask (B, T) bool, lexicon (B, T, F) float32 (empty
        without lexicon features), vectors (B, T) int64 rows of the pretrained
        vectors, -1 = none (empty without vectors). Padding is 0 (-1 for vectors).
    """
    lengths = windows.length
    length = int(lengths.max())
    mask = numpy.arange(length)[None, :] < lengths[:, None]
    # padding positions read the extra row of `BatchFeatures.padded` (zeros; -1 for vectors)
    pos = numpy.where(mask, windows.start[:, None] + numpy.arange(length)[None, :], len(feats.chars))
    chars = numpy.take(feats.padded("chars"), pos, axis=0)
    if use_bigrams:
        bigrams = numpy.zeros((len(lengths), length + 1, feats.chars.shape[1]), dtype=numpy.int64)
        bigrams[:, :length] = numpy.take(feats.padded("left"), pos, axis=0)
        bigrams[numpy.arange(len(lengths)), lengths] = feats.right[windows.end - 1]
    else:
        bigrams = numpy.zeros((0,), dtype=numpy.int64)
    if feats.lexicon is not None:
        lexicon = numpy.take(feats.padded("lexicon"), pos, axis=0)
    else:
        lexicon = numpy.zeros((0,), dtype=numpy.float32)
    if feats.vectors is not None:
        vectors = numpy.take(feats.padded("vectors", -1), pos, axis=0)
    else:
        vectors = numpy.zeros((0,), dtype=numpy.int64)
    return chars, bigrams, mask, lexicon, vectors


# `char_class` per code point, -1 not looked up yet; filled as characters are met
_CLASS_OF = numpy.full(0x110000, -1, dtype=numpy.int8)


def char_classes_from_codes(first: numpy.ndarray, is_space: numpy.ndarray) -> numpy.ndarray:
    """`char_classes` from each token's first code point and whitespace flag
    (`doc_arrays.TokenArrays`): one table lookup; a character's class is
    computed once per process."""
    if not len(first):
        return numpy.zeros(0, dtype=numpy.uint64)
    # whitespace (and the separators between docs, beyond Unicode) is class 0 anyway
    first = numpy.where(is_space, 32, numpy.asarray(first, dtype=numpy.int64))
    classes = _CLASS_OF[first]
    if (classes < 0).any():
        new = numpy.unique(first[classes < 0])
        _CLASS_OF[new] = numpy.fromiter((char_class(chr(int(c))) for c in new), dtype=numpy.int8, count=len(new))
        classes = _CLASS_OF[first]
    classes = classes.astype(numpy.uint64)
    classes[is_space] = 0
    return classes


_NGRAM_MUL = numpy.uint64(0x100000001B3)


def code_keys(windows: numpy.ndarray) -> numpy.ndarray:
    """uint64 keys of rows of code points (m, L)."""
    key = numpy.zeros(windows.shape[0], dtype=numpy.uint64)
    with numpy.errstate(over="ignore"):
        for j in range(windows.shape[1]):
            key = mix64(key * _NGRAM_MUL + windows[:, j].astype(numpy.uint64))
    return key


def window_matches(codes: numpy.ndarray, size: int, table: KeyIndex) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """The start of every window of `size` code points whose key (`code_keys`) is in the
    sorted `table`, and each one's index in it (a doc shorter than `size` has none)."""
    if len(codes) < size:
        empty = numpy.zeros(0, dtype=numpy.int64)
        return empty, empty
    found, idx = table.find(code_keys(numpy.lib.stride_tricks.sliding_window_view(codes, size)))
    starts = numpy.flatnonzero(found)
    return starts, idx[starts]


class LexiconIndex:
    """The dictionary as sorted 64-bit keys of each word's code points, one
    table per length, for `lexicon_features` by array lookups.

    It gives `lexicon_features(tokens, words, max_len)` exactly (barring a
    64-bit key collision) for docs of one-character tokens; a token of several
    characters (a whitespace run, `doc_arrays.MULTI_CHAR_CODE`) matches no word.
    Prediction uses it; training with `lexicon_holdout` needs each word's
    counts and keeps `lexicon_features`.
    """

    __slots__ = ("max_len", "_tables")

    def __init__(self, words: Iterable[str], max_len: int) -> None:
        self.max_len = max_len
        by_length: Dict[int, List[List[int]]] = {}
        for word in words:
            if 2 <= len(word) <= max_len:
                by_length.setdefault(len(word), []).append([ord(c) for c in word])
        rows = {size: numpy.asarray(r, dtype=numpy.int64) for size, r in by_length.items()}
        empty = numpy.zeros(0, dtype=numpy.uint64)
        # per window size: one table of the keys of the words of that size and of every
        # proper prefix (of that size) of a longer word, and which of the two each key is:
        # a window that begins no longer word is not extended (`features`)
        self._tables: Dict[int, Tuple[KeyIndex, numpy.ndarray, numpy.ndarray]] = {}
        for size in range(2, max_len + 1):
            whole = numpy.unique(code_keys(rows[size])) if size in rows else empty
            longer = [code_keys(r[:, :size]) for n, r in rows.items() if n > size]
            prefixes = numpy.unique(numpy.concatenate(longer)) if longer else empty
            keys = numpy.union1d(whole, prefixes)
            if len(keys):
                self._tables[size] = (KeyIndex(keys), numpy.isin(keys, whole), numpy.isin(keys, prefixes))

    def features(self, codes: numpy.ndarray) -> numpy.ndarray:
        """float32 (n, 2 * (max_len - 1)) as `lexicon_features` gives them.

        Windows grow one character at a time from every position, their keys
        extended as `code_keys` builds them; a window goes on growing only while
        it is the prefix of a longer dictionary word, so most positions stop
        after two characters."""
        n_tokens = len(codes)
        width = self.max_len - 1
        out = numpy.zeros((n_tokens, 2 * width), dtype=numpy.float32)
        starts = numpy.arange(n_tokens, dtype=numpy.int64)
        values = numpy.asarray(codes).astype(numpy.uint64)
        key = mix64(values)  # `code_keys` of each 1-character window
        for size in range(2, self.max_len + 1):
            room = starts + size <= n_tokens
            starts, key = starts[room], key[room]
            with numpy.errstate(over="ignore"):
                key = mix64(key * _NGRAM_MUL + values[starts + size - 1])
            table = self._tables.get(size)
            if table is None:  # no word of this size or longer
                break
            index, is_word, is_prefix = table
            found, idx = index.find(key)
            hit = starts[found & is_word[idx]]
            out[hit, size - 2] = 1.0
            out[hit + size - 1, width + size - 2] = 1.0
            more = found & is_prefix[idx]
            starts, key = starts[more], key[more]
            if not len(starts):
                break
        return out
