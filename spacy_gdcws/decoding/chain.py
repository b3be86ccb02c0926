"""The chain over a doc's gaps that the decoding priors make: its marginals
(`chain_marginals`, for the CRF loss of a gap scorer) and its best labelling as
a chain of BMES tags over tokens, decoded for a whole batch at once
(`tag_chain_emissions` + `padded_viterbi`, through `data.bmes.packed_viterbi`).
The per-doc reference `viterbi` that these are tested against lives in
`tests/decoding/reference.py`."""
import math
from typing import Optional, Sequence, Tuple

import numpy

from spacy_gdcws.data.bmes import AFTER, BEFORE, STEP_NEXT, packed_viterbi, runs_between


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



# labelling that `viterbi` maximises (each gap's label, transitions between neighbouring
# gaps, tag scores per token) is a sum of per-token tag scores under BMES agreement: the
# gap after token t carries its model score and the transition from the gap before it
# (both gaps of token t). `tag_chain_emissions` builds those potentials for a batch of docs
# laid end to end and `padded_viterbi` decodes them at once.

_TAG_BEFORE = numpy.asarray(BEFORE)  # B, M, E, S (`data.bmes.TAGS`)
_TAG_AFTER = numpy.asarray(AFTER)


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



def padded_viterbi(emissions: numpy.ndarray, constraints: numpy.ndarray, lengths: numpy.ndarray,
                   starts: numpy.ndarray, cuts: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """`batch_viterbi` for docs laid end to end (`doc_arrays.BatchArrays`):
    the flat tag scores (N, 4) and gap constraints (N - 1,) are decoded at
    once (`data.bmes.packed_viterbi`: no padding, one step per position of the
    longest run), and the labelling comes back flat (N - 1,) (False at the
    separators' gaps). `cuts`: bool (N,), the unit breaks, where decoding starts
    afresh (`data.bmes.runs_between`: a line decodes as it does alone)."""
    constraints = numpy.asarray(constraints)
    row_starts, row_lengths = (starts, lengths) if cuts is None else runs_between(cuts, starts, lengths)
    bounds = packed_viterbi(numpy.asarray(emissions)[:, STEP_NEXT], constraints, row_lengths, row_starts)
    return bounds | (constraints == 1)
