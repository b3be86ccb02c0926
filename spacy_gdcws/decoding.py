"""Decoding gap scores into word boundaries: greedy, or Viterbi with a transition prior.

The model scores every gap on its own. Viterbi decoding adds, with a weight, the log
probability of each gap's label given the previous gap's label, counted on the gold
segmentation of the training data (closed-test legal, like a CRF's transition weights): it
favours the word lengths of the training data, e.g. it joins two unknown characters into a word
more readily. Whether it helps depends on the corpus, so the weight is chosen on dev
(`scripts/dev_decoding.py`; 0 = greedy, the default).
"""
from typing import Iterable, List, Sequence, Tuple

import numpy

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


def viterbi(logits: numpy.ndarray, log_trans: numpy.ndarray, weight: float,
            forced: Sequence[bool] = ()) -> numpy.ndarray:
    """The most likely boundary labels of a doc's gaps.

    Score of a labelling: sum over gaps of log sigmoid(+-logit) (the model's
    probability of the label) plus `weight` x log_trans[previous, next].

    logits (numpy.ndarray): (n,) boundary logits, already shifted by the
        threshold's logit (so that weight 0 gives `logits > 0`).
    log_trans (numpy.ndarray): (2, 2) log P(next | previous).
    weight (float): Weight of the transitions (>= 0).
    forced (Sequence[bool]): Gaps that are boundaries whatever the scores say.
    RETURNS (numpy.ndarray): bool (n,), True = a word ends at the gap.
    """
    logits = numpy.asarray(logits, dtype=numpy.float64)
    n = len(logits)
    if n == 0:
        return numpy.zeros(0, dtype=bool)
    emit_in: List[float] = (-numpy.logaddexp(0.0, logits)).tolist()
    emit_end: List[float] = (-numpy.logaddexp(0.0, -logits)).tolist()
    if len(forced):
        for j in numpy.flatnonzero(numpy.asarray(forced, dtype=bool)).tolist():
            emit_in[j] = -numpy.inf
    (t00, t01), (t10, t11) = (weight * numpy.asarray(log_trans, dtype=numpy.float64)).tolist()
    s0, s1 = emit_in[0], emit_end[0]
    from_end = bytearray(n)  # per gap and label: was the best previous label 1?
    for j in range(1, n):
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
