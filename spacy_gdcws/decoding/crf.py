"""Decoding for models whose scorer is a BMES CRF (`spacy_gdcws.CRFTagger.v1`).

The model gives each character a row of potentials (`data.bmes`); a doc's gaps
next to whitespace are boundaries whatever the model says. Decoding runs once
over the batch on the host (`data.bmes.packed_viterbi`); the loss is the
pipeline's (`pipeline.loss.crf_loss`, in torch).
"""
from typing import List, Optional, Sequence

import numpy

from spacy_gdcws.data.bmes import (
    AFTER,
    N_TAGS,
    STEP_NEXT,
    STEP_PREV,
    TAG_COLUMNS,
    packed_viterbi,
    runs_between,
)
from spacy_gdcws.data.ragged import interleaved


def crf_boundaries(scores: Sequence[numpy.ndarray], constraints: Sequence[numpy.ndarray],
                   bias: Optional[Sequence[Optional[numpy.ndarray]]] = None,
                   cuts: Optional[Sequence[numpy.ndarray]] = None) -> List[numpy.ndarray]:
    """The Viterbi segmentation of each doc under its CRF potentials.

    scores: one (n, >= 16) array per doc (n >= 1). constraints: one (n - 1,)
        array per doc: -1 free, 0 no boundary, 1 boundary (bool arrays: True =
        must be a boundary). bias: per doc None or (n - 1,) boundary-logit
        bonuses (the user dictionary's "prefer" words). cuts: per doc None or
        bool (n,): its unit breaks (`TokenArrays.breaks`), where decoding starts
        afresh (`data.bmes.runs_between`: a line decodes as it does alone).
    RETURNS (List[numpy.ndarray]): bool (n - 1,) per doc, True = a word ends at gap j.
    """
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
    row_starts, row_lengths = starts, lengths
    if cuts is not None:
        row_starts, row_lengths = runs_between(numpy.concatenate([numpy.asarray(c, dtype=bool) for c in cuts]),
                                               starts, lengths)
    bounds = packed_viterbi(steps, gaps, row_lengths, row_starts) | (gaps == 1)
    return [bounds[s : s + n - 1] for s, n in zip(starts.tolist(), lengths.tolist())]


def aux_gap_scores(doc_scores: numpy.ndarray) -> Optional[numpy.ndarray]:
    """The auxiliary gap logits (n - 1, n_aux) of a tagger's output, or None."""
    s = numpy.asarray(doc_scores)
    if s.shape[1] <= TAG_COLUMNS:
        return None
    return s[:-1, TAG_COLUMNS:]
