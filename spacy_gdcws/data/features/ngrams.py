"""Character and bigram keys of a batch, and the n-gram vocabulary: keys outside it (or held out in training) become the UNK of their character class."""
from dataclasses import dataclass
from typing import List, Optional, Sequence

import numpy

from spacy_gdcws.data.features.hashing import (
    BOS,
    EDGE_CLASS,
    EOS,
    N_CLASSES,
    UNK_BIGRAM,
    UNK_CHAR,
    bigram_key,
)
from spacy_gdcws.data.key_index import KeyIndex


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
