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
(`python -m spacy_gdcws tune-decoding`, `spacy_gdcws.tuning`; all 0 = greedy, the default).
"""
import math
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy
import srsly

from .ragged import interleaved
from .key_index import KeyIndex

# labels: 0 = no boundary (the gap is inside a word), 1 = a word ends at the gap


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


# tags of a character by the labels of its (left, right) gaps, index 2 * left + right
TAGS = ("M", "E", "B", "S")
# pseudo-counts that pull a character's tag distribution towards all characters' one
TAG_SMOOTHING = 2.0


def token_tags(tokens: Sequence[str], labels: numpy.ndarray, mask: numpy.ndarray, forced: numpy.ndarray) -> numpy.ndarray:
    """Each token's word-position tag, as an index into `TAGS`, over gold gaps.

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
        out = numpy.zeros((len(self._ids), len(TAGS)))
        for i in docs:
            ids, tags = self._docs[i]
            numpy.add.at(out, (ids, tags), 1.0)
        return out

    def _as_counts(self, matrix: numpy.ndarray) -> Dict[str, List[float]]:
        return {token: matrix[i].tolist() for token, i in self._ids.items() if matrix[i].any()}

    def counts(self) -> Dict[str, List[float]]:
        """Four counts per character, in `TAGS` order, characters in first-seen order."""
        return self._as_counts(self._matrix(range(len(self._docs))))

    def held_out(self, blocks: Sequence[int], k: int) -> List[Dict[str, List[float]]]:
        """`counts` without the docs of each block: `blocks[i]` is the i-th
        added doc's block, in range(k). RETURNS k count dicts."""
        per_block = [[] for _ in range(k)]
        for i, block in enumerate(blocks):
            per_block[block].append(i)
        parts = [self._matrix(docs) for docs in per_block]
        whole = sum(parts, numpy.zeros((len(self._ids), len(TAGS))))
        return [self._as_counts(whole - part) for part in parts]


def tag_counts(docs: Iterable[Tuple[Sequence[str], numpy.ndarray, numpy.ndarray, numpy.ndarray]]) -> Dict[str, List[float]]:
    """Counts of each character's word-position tag (`TAGS`) over gold gaps.

    docs: (token texts, labels, mask, forced) per doc, as for `token_tags`; a
        token is counted when both its gaps are known (gold, forced or an
        edge), whitespace never.
    RETURNS (Dict[str, List[float]]): Four counts per character, in `TAGS` order.
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


def _pair_steps(n: int, log_trans: numpy.ndarray, weight: float,
                pairs: Optional[numpy.ndarray]) -> Tuple[Sequence[Sequence[float]], numpy.ndarray]:
    """Per-step pairwise scores (t00, t01, t10, t11) between gaps j - 1 and j
    (index j; entry 0 unused), and (n, 2) unary scores that the first and last
    tokens' tag scores add to the first and last gaps."""
    trans = weight * numpy.asarray(log_trans, dtype=numpy.float64)
    edges = numpy.zeros((n, 2))
    if pairs is None:
        return [trans.ravel().tolist()] * n, edges
    pairs = numpy.asarray(pairs, dtype=numpy.float64)
    # the first token's left gap and the last token's right gap are boundaries
    edges[0] += pairs[0, 1]
    edges[n - 1] += pairs[n, :, 1]
    return (pairs[:n] + trans).reshape(n, 4).tolist(), edges


def _logaddexp(a: float, b: float) -> float:
    if a < b:
        a, b = b, a
    return a if b == -math.inf else a + math.log1p(math.exp(b - a))


def chain_marginals(logits: numpy.ndarray, log_trans: numpy.ndarray, weight: float,
                    clamp: Sequence[int], pairs: Optional[numpy.ndarray] = None) -> Tuple[float, numpy.ndarray]:
    """Log partition function and boundary marginals of the linear-chain model
    that `viterbi` maximises (forward-backward), with some gaps' labels fixed.

    The score of a labelling is that of `viterbi` up to a constant: logit j
    for a boundary at gap j, plus the weighted transitions and the tag scores
    `pairs`. Training with it as a CRF: the loss of a doc is
    log Z(free gaps) - log Z(gold gaps fixed), its gradient for logit j is
    P_free(boundary at j) - P_fixed(boundary at j).

    clamp (Sequence[int]): Per gap: -1 = free, 0 / 1 = fixed to that label.
    RETURNS (Tuple[float, numpy.ndarray]): log Z and float64 (n,) P(boundary at gap j).
    """
    logits = numpy.asarray(logits, dtype=numpy.float64)
    n = len(logits)
    if n == 0:
        return 0.0, numpy.zeros(0)
    steps, edges = _pair_steps(n, log_trans, weight, pairs)
    unary = numpy.stack([edges[:, 0], edges[:, 1] + logits], axis=1)
    clamp = numpy.asarray(clamp, dtype=numpy.int64)
    unary[clamp == 0, 1] = -math.inf
    unary[clamp == 1, 0] = -math.inf
    u = unary.tolist()
    fwd = [(u[0][0], u[0][1])]
    for j in range(1, n):
        a0, a1 = fwd[-1]
        t00, t01, t10, t11 = steps[j]
        fwd.append((_logaddexp(a0 + t00, a1 + t10) + u[j][0], _logaddexp(a0 + t01, a1 + t11) + u[j][1]))
    log_z = _logaddexp(*fwd[-1])
    marginals = numpy.zeros(n)
    b0 = b1 = 0.0  # backward scores of gap j's labels, from gap j + 1 on
    for j in range(n - 1, -1, -1):
        marginals[j] = math.exp(fwd[j][1] + b1 - log_z) if log_z > -math.inf else 0.0
        if j:
            t00, t01, t10, t11 = steps[j]
            c0, c1 = b0 + u[j][0], b1 + u[j][1]
            b0, b1 = _logaddexp(t00 + c0, t01 + c1), _logaddexp(t10 + c0, t11 + c1)
    return log_z, marginals


def viterbi(logits: numpy.ndarray, log_trans: numpy.ndarray, weight: float,
            forced: Sequence[bool] = (), pairs: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """The most likely boundary labels of a doc's gaps.

    Score of a labelling: sum over gaps of log sigmoid(+-logit) (the model's
    probability of the label) plus `weight` x log_trans[previous, next], plus,
    with `pairs`, pairs[j][label left of token j, label right of token j] for
    every token (the doc's start and end are boundaries).

    logits (numpy.ndarray): (n,) boundary logits, already shifted by the
        threshold's logit (so that weight 0 gives `logits > 0`).
    log_trans (numpy.ndarray): (2, 2) log P(next | previous).
    weight (float): Weight of the transitions (>= 0).
    forced (Sequence[bool]): Gaps that are boundaries whatever the scores say.
    pairs (Optional[numpy.ndarray]): (n + 1, 2, 2) scores of the labels of the
        two gaps around each token, already weighted (`tag_potentials`).
    RETURNS (numpy.ndarray): bool (n,), True = a word ends at the gap.
    """
    logits = numpy.asarray(logits, dtype=numpy.float64)
    n = len(logits)
    if n == 0:
        return numpy.zeros(0, dtype=bool)
    steps, edges = _pair_steps(n, log_trans, weight, pairs)
    log_in = edges[:, 0] - numpy.logaddexp(0.0, logits)
    if len(forced):
        log_in[numpy.asarray(forced, dtype=bool)] = -numpy.inf
    emit_in: List[float] = log_in.tolist()
    emit_end: List[float] = (edges[:, 1] - numpy.logaddexp(0.0, -logits)).tolist()
    s0, s1 = emit_in[0], emit_end[0]
    from_end = bytearray(n)  # per gap and label: was the best previous label 1?
    for j in range(1, n):
        # token j lies between gaps j - 1 and j
        t00, t01, t10, t11 = steps[j]
        a0, b0 = s0 + t00, s1 + t10
        a1, b1 = s0 + t01, s1 + t11
        from_end[j] = (b0 > a0) | ((b1 > a1) << 1)
        s0 = (b0 if b0 > a0 else a0) + emit_in[j]
        s1 = (b1 if b1 > a1 else a1) + emit_end[j]
    out = numpy.zeros(n, dtype=bool)
    label = 1 if s1 > s0 else 0
    for j in range(n - 1, -1, -1):
        out[j] = bool(label)
        if j:
            label = (from_end[j] >> label) & 1
    return out


# Batched decoding: the gap chain as a chain of BMES tags over tokens (`nn.crf`)
#
# A token's tag is the pair of labels of the gaps on either side of it, so the score of a
# labelling that `viterbi` maximises (each gap's label, transitions between neighbouring
# gaps, tag scores per token) is a sum of per-token tag scores under BMES agreement: the
# gap after token t carries its model score and the transition from the gap before it
# (both gaps of token t). `batch_viterbi` builds those potentials for a batch of docs
# and decodes them in one pass in torch.

_TAG_BEFORE = numpy.asarray([1, 0, 0, 1])  # B, M, E, S (nn.crf.TAGS)
_TAG_AFTER = numpy.asarray([0, 0, 1, 1])


def tag_chain_emissions(logits: numpy.ndarray, log_trans: numpy.ndarray, weight: float,
                        pairs: Optional[numpy.ndarray] = None,
                        breaks: Optional[numpy.ndarray] = None,
                        real_gaps: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """Per-token BMES tag scores (n + 1, 4) whose best agreeing sequence is
    `viterbi(logits, log_trans, weight, forced, pairs)`'s labelling (the
    scores differ by a constant per labelling-independent term only).

    logits (numpy.ndarray): (n,) boundary logits shifted by the threshold's logit.
    pairs (Optional[numpy.ndarray]): (n + 1, 2, 2) weighted tag scores (`tag_potentials`).
    breaks (Optional[numpy.ndarray]): bool (n + 1,), line-break tokens: a line
        is decoded as if it were a doc of its own (no transition between a
        gap next to a line break and the gap beyond it).
    real_gaps (Optional[numpy.ndarray]): bool (n,), False for gaps whose logit
        scores nothing (next to the separator of docs laid end to end,
        `doc_arrays.BatchArrays`): each doc's rows come out as if it were alone.
    """
    logits = numpy.asarray(logits, dtype=numpy.float64)
    n = len(logits)
    emit = numpy.zeros((n + 1, 4))
    label_scores = numpy.stack([-numpy.logaddexp(0.0, logits), -numpy.logaddexp(0.0, -logits)], axis=1)  # (n, 2)
    if real_gaps is not None:
        label_scores *= real_gaps[:, None]
    emit[:n] += numpy.take(label_scores, _TAG_AFTER, axis=1)
    if weight > 0.0 and n > 1:
        trans = weight * numpy.asarray(log_trans, dtype=numpy.float64)[_TAG_BEFORE, _TAG_AFTER][None, :]
        if breaks is None:
            emit[1:n] += trans
        else:
            breaks = numpy.asarray(breaks, dtype=bool)
            inside = ~breaks[: n - 1] & ~breaks[2:]  # tokens 1..n-1 whose two gaps lie in one line
            emit[1:n] += trans * inside[:, None]
    if pairs is not None:
        pairs = numpy.asarray(pairs, dtype=numpy.float64)
        emit += numpy.take(pairs.reshape(len(pairs), 4), _TAG_BEFORE * 2 + _TAG_AFTER, axis=1)
    return emit


def batch_viterbi(emissions: Sequence[numpy.ndarray], constraints: Sequence[numpy.ndarray]) -> List[numpy.ndarray]:
    """The best BMES-agreeing labelling of each doc's gaps, for a batch at once.

    emissions: (n_tokens, 4) tag scores per doc (`tag_chain_emissions`), n_tokens >= 2.
    constraints: (n_tokens - 1,) per doc: -1 free, 0 no boundary, 1 boundary
        (bool arrays: True = must be a boundary).
    RETURNS (List[numpy.ndarray]): bool (n_tokens - 1,) per doc.
    """
    if not emissions:
        return []
    lengths = numpy.asarray([len(e) for e in emissions], dtype=numpy.int64)
    starts = numpy.concatenate([[0], numpy.cumsum(lengths + 1)[:-1]])
    # the docs end to end with one unused row between neighbours, as `padded_viterbi` reads them
    rows = interleaved(list(emissions), numpy.zeros((1, 4)))
    gaps = interleaved([numpy.where(c, 1, -1) if c.dtype == bool else numpy.asarray(c, dtype=numpy.int64)
                        for c in constraints], numpy.full(2, -1, dtype=numpy.int64))
    bounds = padded_viterbi(numpy.concatenate(rows), numpy.concatenate(gaps), lengths, starts)
    return [bounds[s : s + n - 1] for s, n in zip(starts.tolist(), lengths.tolist())]


def padded_viterbi(emissions: numpy.ndarray, constraints: numpy.ndarray, lengths: numpy.ndarray,
                   starts: numpy.ndarray) -> numpy.ndarray:
    """`batch_viterbi` for docs laid end to end (`doc_arrays.BatchArrays`):
    the flat tag scores (N, 4) and gap constraints (N - 1,) are decoded at
    once (`nn.crf.packed_viterbi`: no padding, one step per position of the
    longest doc), and the labelling comes back flat (N - 1,) (False at the
    separators' gaps)."""
    from .nn.crf import STEP_NEXT, packed_viterbi

    return packed_viterbi(numpy.asarray(emissions)[:, STEP_NEXT], numpy.asarray(constraints), lengths, starts)


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
