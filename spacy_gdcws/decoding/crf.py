"""Decoding and loss for models whose scorer is a BMES CRF (`spacy_gdcws.CRFTagger.v1`).

The model gives each character a row of potentials (`nn.crf`); a doc's gaps
next to whitespace are boundaries whatever the model says. The loss pads a
batch of docs and runs once over the whole batch in torch; decoding runs once
over the batch on the host (`nn.crf.packed_viterbi`).
"""
from typing import List, Optional, Sequence, Tuple

import numpy

from spacy_gdcws.data.ragged import interleaved, ragged_positions
from spacy_gdcws.ml.state import TAG_COLUMNS

# the CRF's 4 x 4 potentials per character
N_TAGS = 4


def _pad(scores: Sequence[numpy.ndarray], gap_values: Sequence[numpy.ndarray]) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Padded potentials (B, T, 4, 4), gap constraints (B, T - 1) and lengths (B,),
    scattered from the concatenated docs in one assignment each."""
    lengths = numpy.fromiter((len(s) for s in scores), dtype=numpy.int64, count=len(scores))
    length = int(lengths.max())
    rows, cols = ragged_positions(lengths)
    psi = numpy.zeros((len(scores), length, N_TAGS, N_TAGS), dtype=numpy.float32)
    flat = numpy.concatenate([numpy.asarray(s)[:, :TAG_COLUMNS] for s in scores])
    psi[rows, cols] = flat.reshape(-1, N_TAGS, N_TAGS)
    gaps = numpy.full((len(scores), length), -1, dtype=numpy.int64)
    inside = cols < lengths[rows] - 1  # a doc's gaps: after each of its tokens but the last
    gaps[rows[inside], cols[inside]] = numpy.concatenate(list(gap_values))
    return psi, gaps[:, : max(length - 1, 0)], lengths


def crf_boundaries(scores: Sequence[numpy.ndarray], constraints: Sequence[numpy.ndarray],
                   bias: Optional[Sequence[Optional[numpy.ndarray]]] = None) -> List[numpy.ndarray]:
    """The Viterbi segmentation of each doc under its CRF potentials.

    scores: one (n, >= 16) array per doc (n >= 1). constraints: one (n - 1,)
        array per doc: -1 free, 0 no boundary, 1 boundary (bool arrays: True =
        must be a boundary). bias: per doc None or (n - 1,) boundary-logit
        bonuses (the user dictionary's "prefer" words).
    RETURNS (List[numpy.ndarray]): bool (n - 1,) per doc, True = a word ends at gap j.
    """
    from spacy_gdcws.nn.crf import AFTER, STEP_NEXT, STEP_PREV, packed_viterbi

    if not scores:
        return []
    lengths = numpy.fromiter((len(s) for s in scores), dtype=numpy.int64, count=len(scores))
    starts = numpy.cumsum(lengths) - lengths
    flat = numpy.concatenate([numpy.asarray(s, dtype=numpy.float32)[:, :TAG_COLUMNS] for s in scores])
    steps = flat[:, STEP_PREV * N_TAGS + STEP_NEXT]  # psi[t, i, j] is column 4 i + j
    sign = numpy.asarray(AFTER, dtype=numpy.float32) - 0.5  # +1/2 for tags with a boundary after, -1/2 without
    for start, b in zip(starts.tolist(), bias or []):
        if b is not None and len(b):
            steps[start : start + len(b)] += (b[:, None] * sign[None, :]).astype(numpy.float32)[:, STEP_NEXT]
    # the gap after a doc's last token is no gap of the doc: free
    gap_values = [numpy.where(c, 1, -1) if c.dtype == bool else numpy.asarray(c, dtype=numpy.int64) for c in constraints]
    gaps = numpy.concatenate(interleaved(gap_values, numpy.full(1, -1, dtype=numpy.int64)))
    bounds = packed_viterbi(steps, gaps, lengths, starts)
    return [bounds[s : s + n - 1] for s, n in zip(starts.tolist(), lengths.tolist())]


def crf_loss(scores: Sequence[numpy.ndarray], labels: Sequence[numpy.ndarray], mask: Sequence[numpy.ndarray],
             forced: Sequence[numpy.ndarray], normalizer: float) -> Tuple[float, List[numpy.ndarray]]:
    """Negative log-likelihood of the gold gaps, summed over docs and divided by `normalizer`.

    The likelihood of the gold gaps is the sum over the tag sequences that agree
    with them (gaps without a gold label are free): log Z(forced) - log Z(gold, forced).

    scores: one (n, >= 16) array per doc. labels, mask: the gold gaps
        (`segmenter.gold_gaps`). forced: gaps next to whitespace.
    RETURNS (Tuple[float, List[numpy.ndarray]]): the loss and its gradient
        with respect to each doc's 16 potential columns (other columns 0).
    """
    import torch

    from spacy_gdcws.nn.crf import allowed_steps, log_partition

    free = [numpy.where(f, 1, -1) for f in forced]
    gold = [numpy.where(f, 1, numpy.where(m, lab > 0.5, -1)) for f, lab, m in zip(forced, labels, mask)]
    psi_np, free_gaps, lengths = _pad(scores, free)
    _, gold_gaps, _ = _pad(scores, gold)
    psi = torch.from_numpy(psi_np).requires_grad_(True)
    length = psi_np.shape[1]
    lengths_t = torch.from_numpy(lengths)
    log_z = log_partition(psi, allowed_steps(torch.from_numpy(free_gaps), length), lengths_t)
    log_z_gold = log_partition(psi, allowed_steps(torch.from_numpy(gold_gaps), length), lengths_t)
    loss = (log_z - log_z_gold).sum() / normalizer
    loss.backward()
    grad = psi.grad.numpy().reshape(len(scores), length, TAG_COLUMNS)
    d_scores = []
    for i, s in enumerate(scores):
        d = numpy.zeros(numpy.asarray(s).shape, dtype=numpy.float32)
        d[:, :TAG_COLUMNS] = grad[i, : len(s)]
        d_scores.append(d)
    return float(loss.detach()), d_scores


def aux_gap_scores(doc_scores: numpy.ndarray) -> Optional[numpy.ndarray]:
    """The auxiliary gap logits (n - 1, n_aux) of a tagger's output, or None."""
    s = numpy.asarray(doc_scores)
    if s.shape[1] <= TAG_COLUMNS:
        return None
    return s[:-1, TAG_COLUMNS:]
