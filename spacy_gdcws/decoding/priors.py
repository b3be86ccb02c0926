"""Decoding gap scores into word boundaries: greedy, or Viterbi with priors from the training data.

The model scores every gap on its own. Viterbi decoding adds, each with a weight, two priors
counted on the gold segmentation of the training data (closed-test legal, like a CRF's
transition weights):

- transitions: the log probability of each gap's label given the previous gap's label; it
  favours the word lengths of the training data;
- character tags: for every character, how the labels of the two gaps around it go together in
  the training data, i.e. its word-position tag (B, M, E or S: begins, is inside, ends a word or
  is one): the pointwise mutual information log P(left, right | c) - log P(left | c) -
  log P(right | c), smoothed towards all characters' counts. It adds only what per-gap scores
  cannot express, the dependence between the two gaps: a character that is mostly B or E (rarely
  S or M) makes the decoder keep exactly one of its two gaps, so an unknown two-character word
  whose characters are mostly word-initial / word-final is kept whole.

A third prior is per gap and needs no Viterbi (`bigram_prior_weight`): the log-odds of a word
boundary between the gap's two characters in the training data, refined by the characters on
either side where the training data has those windows, smoothed towards and centred on the
overall boundary rate (0 for a pair of characters the training text does not have;
`PairCounts`). It gives back what the model is trained to do without: a pair of characters seen
only in one stretch of the training data is unknown to the model (block leave-out), and the
dictionary features tell it that a rare pair was a word, but nothing tells it that a rare pair
was two words.

Whether they help depends on the corpus, so the weights are chosen on dev
(`python -m spacy_gdcws tune-decoding`, `spacy_gdcws.app.tuning`; all 0 = greedy, the default).
"""
import math
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy
import srsly

from spacy_gdcws.data.bmes import PRIOR_TAGS
from spacy_gdcws.data.key_index import KeyIndex


def transition_counts(label_seqs: Iterable[Tuple[numpy.ndarray, numpy.ndarray]]) -> numpy.ndarray:
    """Counts of (label of gap j, label of gap j + 1) over gold gaps.

    label_seqs: (labels, mask) per doc, as `segmenter.gold_gaps` gives them;
        only pairs of gaps that are both masked in count.
    RETURNS (numpy.ndarray): float64 (2, 2) counts, [previous, next].
    """
    counts = numpy.zeros((2, 2), dtype=numpy.float64)
    for labels, mask in label_seqs:
        mask = numpy.asarray(mask, dtype=bool)
        if len(mask) < 2:
            continue
        both = mask[:-1] & mask[1:]
        prev = numpy.asarray(labels[:-1])[both].astype(numpy.int64)
        nxt = numpy.asarray(labels[1:])[both].astype(numpy.int64)
        numpy.add.at(counts, (prev, nxt), 1.0)
    return counts


def transition_log_probs(counts: numpy.ndarray) -> numpy.ndarray:
    """log P(next label | previous label) from `transition_counts`, add-one smoothed."""
    smoothed = numpy.asarray(counts, dtype=numpy.float64) + 1.0
    return numpy.log(smoothed / smoothed.sum(axis=1, keepdims=True))


# pseudo-counts that pull a character's tag distribution towards all characters' one
TAG_SMOOTHING = 2.0


def token_tags(tokens: Sequence[str], labels: numpy.ndarray, mask: numpy.ndarray, forced: numpy.ndarray) -> numpy.ndarray:
    """Each token's word-position tag, as an index into `PRIOR_TAGS`, over gold gaps.

    tokens: the doc's token texts; labels, mask: its gaps as `segmenter.gold_gaps`
        gives them; forced: the gaps that are boundaries anyway
        (`segmenter.forced_boundaries`, next to whitespace). The doc's start and
        end count as boundaries.
    RETURNS (numpy.ndarray): int64 (len(tokens),): -1 where one of the token's
        gaps is unknown, and for whitespace.
    """
    n = len(tokens)
    # labels of the n + 1 boundaries around the tokens: -1 = unknown
    known = numpy.full(n + 1, -1, dtype=numpy.int64)
    if n == 0:
        return known[:0]
    known[0] = known[n] = 1
    if n > 1:
        inner = numpy.where(numpy.asarray(mask, dtype=bool), numpy.asarray(labels) > 0.5, -1).astype(numpy.int64)
        inner[numpy.asarray(forced, dtype=bool)] = 1
        known[1:n] = inner
    tags = numpy.where((known[:-1] >= 0) & (known[1:] >= 0), 2 * known[:-1] + known[1:], -1)
    tags[numpy.fromiter((token.isspace() for token in tokens), dtype=bool, count=n)] = -1
    return tags


class TagTally:
    """Characters' tag counts over docs added one at a time (`token_tags`), for
    the whole data and without each block of docs.

    The held-out counts serve training with the CRF loss: a training doc's tag
    prior counted without its own block of the training data (as the
    dictionary and n-gram features hide what only the doc's block has), so the
    prior in training is as reliable as on new text. Keeps two small int
    arrays per doc.
    """

    def __init__(self) -> None:
        self._ids: Dict[str, int] = {}
        self._docs: List[Tuple[numpy.ndarray, numpy.ndarray]] = []

    def __len__(self) -> int:
        return len(self._docs)

    def add(self, tokens: Sequence[str], labels: numpy.ndarray, mask: numpy.ndarray, forced: numpy.ndarray) -> None:
        """Add one doc (arguments as for `token_tags`)."""
        tags = token_tags(tokens, labels, mask, forced)
        ids = numpy.fromiter((self._ids.setdefault(token, len(self._ids)) for token in tokens),
                             dtype=numpy.int64, count=len(tokens))
        keep = tags >= 0
        self._docs.append((ids[keep], tags[keep]))

    def _matrix(self, docs: Iterable[int]) -> numpy.ndarray:
        out = numpy.zeros((len(self._ids), len(PRIOR_TAGS)))
        for i in docs:
            ids, tags = self._docs[i]
            numpy.add.at(out, (ids, tags), 1.0)
        return out

    def _as_counts(self, matrix: numpy.ndarray) -> Dict[str, List[float]]:
        return {token: matrix[i].tolist() for token, i in self._ids.items() if matrix[i].any()}

    def counts(self) -> Dict[str, List[float]]:
        """Four counts per character, in `PRIOR_TAGS` order, characters in first-seen order."""
        return self._as_counts(self._matrix(range(len(self._docs))))

    def held_out(self, blocks: Sequence[int], k: int) -> List[Dict[str, List[float]]]:
        """`counts` without the docs of each block: `blocks[i]` is the i-th
        added doc's block, in range(k). RETURNS k count dicts."""
        per_block = [[] for _ in range(k)]
        for i, block in enumerate(blocks):
            per_block[block].append(i)
        parts = [self._matrix(docs) for docs in per_block]
        whole = sum(parts, numpy.zeros((len(self._ids), len(PRIOR_TAGS))))
        return [self._as_counts(whole - part) for part in parts]


def tag_counts(docs: Iterable[Tuple[Sequence[str], numpy.ndarray, numpy.ndarray, numpy.ndarray]]) -> Dict[str, List[float]]:
    """Counts of each character's word-position tag (`PRIOR_TAGS`) over gold gaps.

    docs: (token texts, labels, mask, forced) per doc, as for `token_tags`; a
        token is counted when both its gaps are known (gold, forced or an
        edge), whitespace never.
    RETURNS (Dict[str, List[float]]): Four counts per character, in `PRIOR_TAGS` order.
    """
    tally = TagTally()
    for doc in docs:
        tally.add(*doc)
    return tally.counts()


def tag_pmi(counts: Mapping[str, Sequence[float]], smoothing: float = TAG_SMOOTHING) -> Tuple[Dict[str, int], numpy.ndarray]:
    """Pointwise mutual information of the two gap labels around each character.

    counts: `tag_counts`. smoothing (> 0): a character's tag distribution is smoothed with
        `smoothing` pseudo-counts spread as all characters' distribution (itself
        add-one smoothed), which is what an unknown character gets.
    RETURNS: each character's row and a float64 (n_chars + 1, 2, 2) table of
        log P(left, right | c) - log P(left | c) - log P(right | c) ([left, right]);
        the last row is an unknown character's.
    """
    rows = numpy.asarray(list(counts.values()), dtype=numpy.float64).reshape(-1, 4)
    overall = rows.sum(axis=0) + 1.0
    overall /= overall.sum()
    joint = numpy.concatenate([(rows + smoothing * overall) / (rows.sum(axis=1, keepdims=True) + smoothing),
                               overall[None]]).reshape(-1, 2, 2)
    table = numpy.log(joint) - numpy.log(joint.sum(axis=2, keepdims=True)) - numpy.log(joint.sum(axis=1, keepdims=True))
    return {char: i for i, char in enumerate(counts)}, table


def tag_potentials(tokens: Sequence[str], index: Mapping[str, int], table: numpy.ndarray) -> numpy.ndarray:
    """(len(tokens), 2, 2) `tag_pmi` rows of a doc's tokens, for `viterbi`'s `pairs`."""
    unknown = len(table) - 1
    return table[numpy.fromiter((index.get(token, unknown) for token in tokens), dtype=numpy.int64, count=len(tokens))]


# pseudo-counts that pull a pair's boundary rate towards the overall rate, and a window's towards its pair's
BIGRAM_SMOOTHING = 1.0
# stand-ins for the character before the first / after the last token, and for a token that is
# not one character (code points end at 0x10FFFF; three of them fit in 63 bits)
_START, _END, _OTHER = 0x110000, 0x110001, 0x110002


def _code_points(tokens: Sequence[str]) -> numpy.ndarray:
    return numpy.fromiter((ord(t) if len(t) == 1 else _OTHER for t in tokens), dtype=numpy.uint64, count=len(tokens))


def gap_keys(tokens: Sequence[str]) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """uint64 keys of each gap of a doc (len(tokens) - 1 each): its pair of characters, the
    pair with the character before it, the pair with the character after it (code points)."""
    if len(tokens) < 2:
        empty = numpy.zeros(0, dtype=numpy.uint64)
        return empty, empty, empty
    c = _code_points(tokens)
    pair = (c[:-1] << numpy.uint64(21)) | c[1:]
    before = numpy.concatenate([numpy.asarray([_START], dtype=numpy.uint64), c[:-2]])
    after = numpy.concatenate([c[2:], numpy.asarray([_END], dtype=numpy.uint64)])
    return pair, (before << numpy.uint64(42)) | pair, (pair << numpy.uint64(21)) | after


class PairCounts:
    """Word boundaries at the gaps of the gold training segmentation, counted by the gap's pair
    of characters and by the two three-character windows around it (the pair with the character
    before it, with the character after it). Windows are kept only for pairs that the training
    data has both with and without a boundary: only there can they say more than the pair.

    `log_odds` is the prior of `bigram_prior_weight`: per gap, the log-odds of a boundary given
    the pair (its rate smoothed with `BIGRAM_SMOOTHING` pseudo-counts at the overall rate), refined
    by the windows where the training data has them (each smoothed towards the pair's rate, the
    two averaged), minus the overall rate's log-odds: 0 for a pair the training data does not
    have. Saved with the segmenter (`to_bytes`): sorted uint64 keys and uint32 counts.
    """

    __slots__ = ("keys", "ends", "seen", "rate", "_index", "_ends_f", "_seen_f")

    def __init__(self, keys: Sequence[numpy.ndarray], ends: Sequence[numpy.ndarray], seen: Sequence[numpy.ndarray]) -> None:
        # per level (pair, window before, window after): sorted keys, boundaries, occurrences
        self.keys = [numpy.asarray(k, dtype=numpy.uint64) for k in keys]
        self.ends = [numpy.asarray(e, dtype=numpy.uint32) for e in ends]
        self.seen = [numpy.asarray(n, dtype=numpy.uint32) for n in seen]
        # the share of gold gaps that are boundaries
        total = int(self.seen[0].sum())
        self.rate = int(self.ends[0].sum()) / total if total else 0.0
        self._index = [KeyIndex(k) for k in self.keys]
        # per level: boundaries and occurrences as float64, one 0 at the end for keys not found
        self._ends_f = [numpy.append(e.astype(numpy.float64), 0.0) for e in self.ends]
        self._seen_f = [numpy.append(n.astype(numpy.float64), 0.0) for n in self.seen]

    def __len__(self) -> int:
        """The number of pairs."""
        return len(self.keys[0])

    def _lookup(self, level: int, keys: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        if not len(self.keys[level]):
            zeros = numpy.zeros(len(keys))
            return numpy.zeros(len(keys), dtype=bool), zeros, zeros
        found, idx = self._index[level].find(keys)
        row = numpy.where(found, idx, len(self.keys[level]))
        return found, numpy.take(self._ends_f[level], row), numpy.take(self._seen_f[level], row)

    def log_odds(self, tokens: Sequence[str], smoothing: float = BIGRAM_SMOOTHING) -> numpy.ndarray:
        """float64 (len(tokens) - 1,): each gap's prior (see the class docstring);
        `smoothing` > 0 pseudo-counts."""
        return self.log_odds_of_keys(*gap_keys(tokens), smoothing=smoothing)

    def log_odds_of_keys(self, pair: numpy.ndarray, before: numpy.ndarray, after: numpy.ndarray,
                         smoothing: float = BIGRAM_SMOOTHING) -> numpy.ndarray:
        """`log_odds` from a doc's `gap_keys` (or `gap_keys_from_codes`)."""
        rate = self.rate
        if not 0.0 < rate < 1.0 or not len(pair):
            return numpy.zeros(len(pair))
        found, ends, seen = self._lookup(0, pair)
        p_pair = numpy.where(found, (ends + smoothing * rate) / (seen + smoothing), rate)
        windows = []
        for level, keys in ((1, before), (2, after)):
            _, ends, seen = self._lookup(level, keys)
            windows.append((ends + smoothing * p_pair) / (seen + smoothing))
        p = 0.5 * (windows[0] + windows[1])
        return numpy.log(p / (1.0 - p)) - math.log(rate / (1.0 - rate))

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps({"keys": self.keys, "ends": self.ends, "seen": self.seen})

    @classmethod
    def from_bytes(cls, data: bytes) -> "PairCounts":
        msg = srsly.msgpack_loads(data)
        return cls(msg["keys"], msg["ends"], msg["seen"])


class PairTally:
    """Collects the gold gaps of training docs added one at a time, for `PairCounts`."""

    def __init__(self) -> None:
        self._keys: List[List[numpy.ndarray]] = [[], [], []]
        self._labels: List[numpy.ndarray] = []

    def add(self, tokens: Sequence[str], labels: numpy.ndarray, mask: numpy.ndarray) -> None:
        """Add one doc: its tokens and its gaps' gold labels and mask (`gold_gaps`)."""
        mask = numpy.asarray(mask, dtype=bool)
        for level, keys in enumerate(gap_keys(tokens)):
            self._keys[level].append(keys[mask])
        self._labels.append(numpy.asarray(labels)[mask] > 0.5)

    def counts(self) -> PairCounts:
        labels = numpy.concatenate(self._labels) if self._labels else numpy.zeros(0, dtype=bool)
        levels = []
        for parts in self._keys:
            keys = numpy.concatenate(parts) if parts else numpy.zeros(0, dtype=numpy.uint64)
            table, inverse, seen = numpy.unique(keys, return_inverse=True, return_counts=True)
            ends = numpy.bincount(inverse.reshape(-1), weights=labels, minlength=len(table))
            levels.append((table, ends, seen))
        # windows only for pairs seen both with and without a boundary
        pairs, pair_ends, pair_seen = levels[0]
        mixed = pairs[(pair_ends > 0) & (pair_ends < pair_seen)]
        pair_bits = numpy.uint64((1 << 42) - 1)
        for level, shift in ((1, numpy.uint64(0)), (2, numpy.uint64(21))):
            table, ends, seen = levels[level]
            keep = numpy.isin((table >> shift) & pair_bits, mixed)
            levels[level] = (table[keep], ends[keep], seen[keep])
        return PairCounts(*zip(*levels))



def prior_codes(first: numpy.ndarray, length: numpy.ndarray) -> numpy.ndarray:
    """Each token's code point for the pair prior (`gap_keys`), from
    `doc_arrays.TokenArrays`: tokens of several characters share one stand-in."""
    return numpy.where(length == 1, first, _OTHER).astype(numpy.uint64)


def gap_keys_from_codes(c: numpy.ndarray, breaks: Optional[numpy.ndarray] = None
                        ) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """`gap_keys` from the tokens' codes (`prior_codes`); with `breaks` (bool,
    line-break tokens), a line's first and last characters see the line's edge
    as the doc's start and end, so a line's priors do not depend on its neighbours."""
    if len(c) < 2:
        empty = numpy.zeros(0, dtype=numpy.uint64)
        return empty, empty, empty
    c = numpy.asarray(c, dtype=numpy.uint64)
    pair = (c[:-1] << numpy.uint64(21)) | c[1:]
    before = numpy.concatenate([numpy.asarray([_START], dtype=numpy.uint64), c[:-2]])
    after = numpy.concatenate([c[2:], numpy.asarray([_END], dtype=numpy.uint64)])
    if breaks is not None:
        breaks = numpy.asarray(breaks, dtype=bool)
        before[1:][breaks[:-2]] = _START
        after[:-1][breaks[2:]] = _END
    return pair, (before << numpy.uint64(42)) | pair, (pair << numpy.uint64(21)) | after


class TagIndex:
    """`tag_pmi`'s character rows as a table by code point, for `tag_potentials`
    by one array lookup."""

    __slots__ = ("codes", "rows", "unknown", "_row_of")

    def __init__(self, index: Mapping[str, int], n_rows: int) -> None:
        single = sorted((ord(char), row) for char, row in index.items() if len(char) == 1)
        self.codes = numpy.asarray([c for c, _ in single], dtype=numpy.int64)
        self.rows = numpy.asarray([r for _, r in single], dtype=numpy.int64)
        self.unknown = n_rows - 1
        # row by code point up to the largest known one; the last entry (unknown) for all beyond
        top = int(self.codes[-1]) + 1 if len(self.codes) else 0
        self._row_of = numpy.full(top + 1, self.unknown, dtype=numpy.int64)
        self._row_of[self.codes] = self.rows

    def rows_of(self, codes: numpy.ndarray) -> numpy.ndarray:
        """Each token's row (the unknown character's row for tokens of several
        characters: whitespace, whose gaps are all forced boundaries)."""
        codes = numpy.asarray(codes, dtype=numpy.int64)
        return self._row_of[numpy.clip(codes, 0, len(self._row_of) - 1)]
