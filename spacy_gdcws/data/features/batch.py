"""A batch's hashed features, cut into units and windows.

A doc is cut into *units* at line breaks (whitespace tokens that contain a
newline): lines never share attention context, so a document segments exactly
as its lines do. A unit longer than `window` characters is scored in
overlapping windows (stride `window // 2`); each gap keeps the score from the
window in which it is most central, so memory is bounded and no gap is ever
scored at a window edge (except at the ends of the unit, where there is no
context anyway).
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy

from spacy_gdcws.data.features.hashing import hash_rows
from spacy_gdcws.data.features.ngrams import NgramKeys, NgramVocab
from spacy_gdcws.data.ragged import ragged_positions


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

    chars, left, right (N, seeds): character rows, rows of the bigrams (c[i-1], c[i])
    (BOS at a unit start) and (c[i], c[i+1]) (EOS at a unit end). lexicon (N, F) float32
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

    Units are the maximal runs of tokens of one doc between unit breaks (line
    breaks and the whitespace at a line's edges: `doc_arrays.unit_breaks`); a
    unit of 2 tokens or more is one window, or overlapping windows when it is
    longer than `window` (`windows_for_unit`).
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


@dataclass
class Placement:
    """Where each window of a batch lies in the padded arrays: row and first column.

    One window per row (`Placement.single`), or several windows per row with at
    least `gap` padding positions between neighbours (`pack_windows`).
    """

    row: numpy.ndarray
    offset: numpy.ndarray
    n_rows: int
    length: int

    @classmethod
    def single(cls, windows: Windows) -> "Placement":
        n = len(windows.start)
        return cls(numpy.arange(n), numpy.zeros(n, dtype=numpy.int64), n, int(windows.length.max()))


def pack_windows(windows: Windows, gap: int) -> Placement:
    """Lay the windows into rows as long as the longest one, several to a row with
    `gap` padding positions between neighbours (first fit, longest first).

    For an encoder whose layers each read at most `gap` positions to either side
    and that zeroes padding after every layer (`nn.idcnn`), a window's outputs are
    the same packed as alone in a row: no position reads across a gap. A batch of
    short docs then costs its characters, not its longest doc times its docs.
    """
    lengths = windows.length
    length = int(lengths.max())
    order = numpy.argsort(-lengths, kind="stable")
    row = numpy.zeros(len(lengths), dtype=numpy.int64)
    offset = numpy.zeros(len(lengths), dtype=numpy.int64)
    fill = numpy.zeros(len(lengths), dtype=numpy.int64)  # next free column of each row opened so far
    n_rows = 0
    for w, size in zip(order.tolist(), lengths[order].tolist()):
        start = fill[:n_rows] + gap
        fits = numpy.flatnonzero(start + size <= length)
        if len(fits):
            r = int(fits[0])
            offset[w] = start[r]
        else:
            r = n_rows
            n_rows += 1
            offset[w] = 0
        row[w] = r
        fill[r] = offset[w] + size
    return Placement(row, offset, n_rows, length)


def featurize(windows: Windows, feats: BatchFeatures, use_bigrams: bool, placement: Optional[Placement] = None
              ) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Padded arrays for one batch of windows, gathered from the batch's flat features.

    placement (Optional[Placement]): where each window goes (default: a row each).
    RETURNS: chars (B, T, seeds) int64, bigrams (B, T + 1, seeds) int64 (empty
        without bigrams), mask (B, T) bool, lexicon (B, T, F) float32 (empty
        without lexicon features), vectors (B, T) int64 rows of the pretrained
        vectors, -1 = none (empty without vectors). Padding is 0 (-1 for vectors).
    """
    lengths = windows.length
    if placement is None:
        placement = Placement.single(windows)
    length = placement.length
    # padding positions read the extra row of `BatchFeatures.padded` (zeros; -1 for vectors)
    pos = numpy.full((placement.n_rows, length), len(feats.chars), dtype=numpy.int64)
    window, within = ragged_positions(lengths)
    pos[placement.row[window], placement.offset[window] + within] = windows.start[window] + within
    mask = pos < len(feats.chars)
    chars = numpy.take(feats.padded("chars"), pos, axis=0)
    if use_bigrams:
        bigrams = numpy.zeros((placement.n_rows, length + 1, feats.chars.shape[1]), dtype=numpy.int64)
        bigrams[:, :length] = numpy.take(feats.padded("left"), pos, axis=0)
        # a window's last bigram (c[-1], EOS) lies on the padding after it
        bigrams[placement.row, placement.offset + lengths] = feats.right[windows.end - 1]
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
