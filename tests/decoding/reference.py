"""Reference decoders for the tests: `viterbi` over one doc's gaps (the
labelling the decoding priors define, written out step by step) and
`batch_viterbi` (per-doc arrays through the batched path); the package decodes
through `spacy_gdcws.decoding.chain` only."""
from typing import List, Optional, Sequence

import numpy

from spacy_gdcws.data.ragged import interleaved
from spacy_gdcws.decoding.chain import _pair_steps, padded_viterbi


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
