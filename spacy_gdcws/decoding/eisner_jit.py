"""Eisner's algorithm compiled by numba: the same recurrences, splits and tie-breaking as the
vectorised numpy `trees.eisner_batch` (the same trees: a test compares them), about 30x faster on a
CPU, one sentence at a time. numba compiles it on first use and caches the machine code beside this
module (`__pycache__`), so later processes load it; where numba is not installed or cannot compile,
`compiled_eisner` is None and decoding uses the numpy version."""
from typing import Callable, Optional

import numpy

_NEG = -1e9
_COMPILED = {"eisner": None, "tried": False}


def compiled_eisner() -> Optional[Callable[[numpy.ndarray, int], numpy.ndarray]]:
    """The compiled `eisner_one`, or None where numba is unavailable (compiled once per process,
    on first use; machine code cached across processes where this folder is writable)."""
    if not _COMPILED["tried"]:
        _COMPILED["tried"] = True
        try:
            from numba import njit

            kernel = njit(cache=True, nogil=True)(eisner_one)
            kernel(numpy.zeros((1, 2)), 1)  # compile (or load the cache) now, not inside a batch
            _COMPILED["eisner"] = kernel
        except Exception:  # pragma: no cover (no numba, or no compiler for this platform)
            _COMPILED["eisner"] = None
    return _COMPILED["eisner"]


def eisner_one(scores, m):  # pragma: no cover (compiled by numba; `tests/decoding/test_trees.py` compares it)
    """Eisner's algorithm for one sentence of `m` words: `scores` (m, m + 1) float64 arc scores,
    RETURNS (m,) heads (0 = root) with one word under the root: `trees.eisner_batch`'s recurrences,
    splits and ties (the first best), in compiled loops."""
    inc_l = numpy.full((m, m), _NEG); inc_r = numpy.full((m, m), _NEG)
    com_l = numpy.full((m, m), _NEG); com_r = numpy.full((m, m), _NEG)
    bp_inc = numpy.zeros((m, m), numpy.int64); bp_cl = numpy.zeros((m, m), numpy.int64); bp_cr = numpy.zeros((m, m), numpy.int64)
    for i in range(m):
        com_l[i, i] = 0.0; com_r[i, i] = 0.0
    for w in range(1, m):
        for i in range(m - w):
            j = i + w
            best = com_r[i, i] + com_l[i + 1, j]; arg = 0
            for t in range(1, w):
                v = com_r[i, i + t] + com_l[i + t + 1, j]
                if v > best:
                    best = v; arg = t
            bp_inc[i, j] = arg + i
            inc_l[i, j] = best + scores[i, j + 1]
            inc_r[i, j] = best + scores[j, i + 1]
            best = com_l[i, i] + inc_l[i, j]; arg = 0
            for t in range(1, w):
                v = com_l[i, i + t] + inc_l[i + t, j]
                if v > best:
                    best = v; arg = t
            com_l[i, j] = best; bp_cl[i, j] = arg + i
            best = inc_r[i, i + 1] + com_r[i + 1, j]; arg = 0
            for t in range(1, w):
                v = inc_r[i, i + 1 + t] + com_r[i + 1 + t, j]
                if v > best:
                    best = v; arg = t
            com_r[i, j] = best; bp_cr[i, j] = arg + i + 1
    r = 0; best = scores[0, 0] + com_l[0, 0] + com_r[0, m - 1]
    for k in range(1, m):
        v = scores[k, 0] + com_l[0, k] + com_r[k, m - 1]
        if v > best:
            best = v; r = k
    heads = numpy.zeros(m, numpy.int64)
    # backtrack with an explicit stack: (kind, i, j) kind 0 cl, 1 cr, 2 il, 3 ir
    sk = numpy.zeros(4 * m + 4, numpy.int64); si = numpy.zeros(4 * m + 4, numpy.int64); sj = numpy.zeros(4 * m + 4, numpy.int64)
    top = 0
    sk[0] = 0; si[0] = 0; sj[0] = r
    sk[1] = 1; si[1] = r; sj[1] = m - 1
    top = 2
    while top > 0:
        top -= 1
        kind = sk[top]; i = si[top]; j = sj[top]
        if i == j:
            continue
        if kind == 0:
            k = bp_cl[i, j]
            sk[top] = 0; si[top] = i; sj[top] = k
            sk[top + 1] = 2; si[top + 1] = k; sj[top + 1] = j
        elif kind == 1:
            k = bp_cr[i, j]
            sk[top] = 3; si[top] = i; sj[top] = k
            sk[top + 1] = 1; si[top + 1] = k; sj[top + 1] = j
        else:
            k = bp_inc[i, j]
            if kind == 2:
                heads[i] = j + 1
            else:
                heads[j] = i + 1
            sk[top] = 1; si[top] = i; sj[top] = k
            sk[top + 1] = 0; si[top + 1] = k + 1; sj[top + 1] = j
        top += 2
    return heads
