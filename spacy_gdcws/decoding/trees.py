"""Arc scores -> a dependency tree (numpy): one root, every head inside the sentence.

`scores[i, j]` is the score of word i + 1 taking head j (0 = the root, j = k + 1 for word k), as
the biaffine parser gives them (log-probabilities). `decode_trees` keeps the unconstrained best
heads when they already form a tree (the usual case for a trained parser, and then the best tree
of either kind), and otherwise runs Eisner's algorithm (projective, Eisner 1996) or the
Chu-Liu-Edmonds maximum spanning tree (non-projective), each with exactly one word under the root.
"""
from typing import List, Optional

import numpy

from spacy_gdcws.decoding.eisner_jit import compiled_eisner

NEG = -1e9


def is_tree(heads: numpy.ndarray, projective: bool = False) -> bool:
    """Whether `heads` (heads[i] of word i + 1, 0 = root) is a tree with one root word (and no
    crossing arcs, if `projective`)."""
    n = len(heads)
    if n == 0:
        return True
    if int((heads == 0).sum()) != 1:
        return False
    if _find_cycle(numpy.concatenate([[-1], heads])) is not None:
        return False
    if projective:
        return not _crosses(heads)
    return True


def _crosses(heads: numpy.ndarray) -> bool:
    n = len(heads)
    deps = numpy.arange(1, n + 1)
    lo = numpy.minimum(deps, heads)
    hi = numpy.maximum(deps, heads)
    # arcs (a, b) and (c, d) cross when a < c < b < d
    a, c = lo[:, None], lo[None, :]
    b, d = hi[:, None], hi[None, :]
    return bool(((a < c) & (c < b) & (b < d)).any())


def eisner(scores: numpy.ndarray) -> numpy.ndarray:
    """The best projective tree with one word under the root (Eisner's algorithm, O(n^3)).

    scores (numpy.ndarray): (n, n + 1) arc scores.
    RETURNS (numpy.ndarray): (n,) heads, 0 = root.
    """
    return eisner_batch(scores[None], numpy.array([scores.shape[0]]))[0]


def eisner_batch(scores: numpy.ndarray, lengths: numpy.ndarray) -> List[numpy.ndarray]:
    """Eisner's algorithm for a batch of sentences at once, vectorised over the sentences and the
    spans of one width (one pass of numpy operations per width, whatever the batch).

    scores (numpy.ndarray): (B, n, n + 1) arc scores; sentence b has lengths[b] words (the rest
        of its rows and columns are ignored).
    RETURNS (List[numpy.ndarray]): each sentence's heads (lengths[b],), 0 = root.
    """
    n_batch, n = scores.shape[:2]
    # s[b, h, d] over words 0..n-1 (without the root)
    s = numpy.ascontiguousarray(numpy.transpose(scores[:, :, 1:], (0, 2, 1)), dtype=numpy.float64)
    s_t = numpy.ascontiguousarray(scores[:, :, 1:], dtype=numpy.float64)  # s_t[b, d, h] = s[b, h, d]
    shape = (n_batch, n, n)
    inc_l, inc_r = numpy.full(shape, NEG), numpy.full(shape, NEG)  # head j (l) / i (r) of span i..j
    com_l, com_r = numpy.full(shape, NEG), numpy.full(shape, NEG)
    bp_inc = numpy.zeros(shape, dtype=numpy.int64)
    bp_com_l = numpy.zeros(shape, dtype=numpy.int64)
    bp_com_r = numpy.zeros(shape, dtype=numpy.int64)
    idx = numpy.arange(n)
    com_l[:, idx, idx] = 0.0
    com_r[:, idx, idx] = 0.0
    for w in range(1, n):
        m = n - w  # spans i..i+w, i < m; t = 0..w-1 splits each
        i = numpy.arange(m)[None, :]
        both = _band(com_r, 0, 0, m, w, 0, 1) + _band(com_l, 1, w, m, w, 1, 0)  # C_r[i, i+t] + C_l[i+t+1, i+w]
        best = both.argmax(-1)
        val = numpy.take_along_axis(both, best[..., None], -1)[..., 0]
        _diagonal(bp_inc, w, m)[...] = best + i
        _diagonal(inc_l, w, m)[...] = val + _diagonal(s_t, w, m)
        _diagonal(inc_r, w, m)[...] = val + _diagonal(s, w, m)
        left = _band(com_l, 0, 0, m, w, 0, 1) + _band(inc_l, 0, w, m, w, 1, 0)  # C_l[i, i+t] + I_l[i+t, i+w]
        best = left.argmax(-1)
        _diagonal(com_l, w, m)[...] = numpy.take_along_axis(left, best[..., None], -1)[..., 0]
        _diagonal(bp_com_l, w, m)[...] = best + i
        right = _band(inc_r, 0, 1, m, w, 0, 1) + _band(com_r, 1, w, m, w, 1, 0)  # I_r[i, i+1+t] + C_r[i+1+t, i+w]
        best = right.argmax(-1)
        _diagonal(com_r, w, m)[...] = numpy.take_along_axis(right, best[..., None], -1)[..., 0]
        _diagonal(bp_com_r, w, m)[...] = best + i + 1
    out = []
    for b in range(n_batch):
        m = int(lengths[b])
        root_scores = scores[b, :m, 0] + com_l[b, 0, :m] + com_r[b, numpy.arange(m), m - 1]
        out.append(_backtrack(int(root_scores.argmax()), m, bp_inc[b], bp_com_l[b], bp_com_r[b]))
    return out


def _band(a: numpy.ndarray, row: int, col: int, m: int, w: int, row_step: int, col_step: int) -> numpy.ndarray:
    """A view (B, m, w) of a (B, n, n) array: element [b, i, t] is a[b, row + i + t * row_step,
    col + i + t * col_step] (Eisner's split points of the spans of one width, without a copy)."""
    sb, sr, sc = a.strides
    start = a[:, row:, col:]
    return numpy.lib.stride_tricks.as_strided(start, shape=(a.shape[0], m, w),
                                              strides=(sb, sr + sc, row_step * sr + col_step * sc), writeable=False)


def _diagonal(a: numpy.ndarray, w: int, m: int) -> numpy.ndarray:
    """The writable view (B, m) of a[b, i, i + w]."""
    sb, sr, sc = a.strides
    return numpy.lib.stride_tricks.as_strided(a[:, :, w:], shape=(a.shape[0], m), strides=(sb, sr + sc))


def _backtrack(r: int, n: int, bp_inc: numpy.ndarray, bp_com_l: numpy.ndarray, bp_com_r: numpy.ndarray) -> numpy.ndarray:
    heads = numpy.zeros(n, dtype=numpy.int64)
    stack = [("cl", 0, r), ("cr", r, n - 1)]
    while stack:
        kind, i, j = stack.pop()
        if i == j:
            continue
        if kind == "cl":
            k = int(bp_com_l[i, j])
            stack += [("cl", i, k), ("il", k, j)]
        elif kind == "cr":
            k = int(bp_com_r[i, j])
            stack += [("ir", i, k), ("cr", k, j)]
        else:
            k = int(bp_inc[i, j])
            if kind == "il":
                heads[i] = j + 1
            else:
                heads[j] = i + 1
            stack += [("cr", i, k), ("cl", k + 1, j)]
    return heads


def chu_liu_edmonds(scores: numpy.ndarray) -> numpy.ndarray:
    """The best tree (crossing arcs allowed) with one word under the root: Chu-Liu-Edmonds for
    each root word candidate in the order of its root score, stopping once no better total is
    possible (Zmigrod et al. 2020 reduce this to one call; sentences here are short).

    scores (numpy.ndarray): (n, n + 1) arc scores.
    RETURNS (numpy.ndarray): (n,) heads, 0 = root.
    """
    n = scores.shape[0]
    full = numpy.full((n + 1, n + 1), NEG)
    full[1:, :] = scores
    numpy.fill_diagonal(full, NEG)
    best_heads: Optional[numpy.ndarray] = None
    best_total = -numpy.inf
    order = numpy.argsort(-scores[:, 0])
    for r in order:
        # an upper bound: r under the root, every other word under its best word
        if scores[r, 0] + numpy.delete(full[1:, 1:].max(1), r).sum() <= best_total:
            continue
        constrained = full.copy()
        constrained[1:, 0] = NEG
        constrained[r + 1, :] = NEG
        constrained[r + 1, 0] = scores[r, 0]
        heads = _cle(constrained)
        total = float(constrained[numpy.arange(1, n + 1), heads].sum())
        if total > best_total:
            best_total, best_heads = total, heads
    assert best_heads is not None
    return best_heads


def _cle(full: numpy.ndarray) -> numpy.ndarray:
    """Chu-Liu-Edmonds on a dense (n + 1, n + 1) score matrix (row = dependent, 0 = root, which
    takes no head). RETURNS heads of nodes 1..n."""
    n1 = full.shape[0]
    heads = full.argmax(1)
    heads[0] = -1
    cycle = _find_cycle(heads)
    if cycle is None:
        return heads[1:].copy()
    cycle_set = set(cycle)
    rest = [v for v in range(n1) if v not in cycle_set]
    c = len(rest)  # the contracted node's index
    cycle_arr = numpy.array(cycle)
    cycle_score = full[cycle_arr, heads[cycle_arr]]
    small = numpy.full((c + 1, c + 1), NEG)
    rest_arr = numpy.array(rest)
    small[:c, :c] = full[numpy.ix_(rest_arr, rest_arr)]
    # arcs out of the cycle: the best cycle member as head, for each outside dependent
    out_scores = full[numpy.ix_(rest_arr, cycle_arr)]
    small[:c, c] = out_scores.max(1)
    out_from = cycle_arr[out_scores.argmax(1)]
    # arcs into the cycle: entering at member m from head h breaks m's cycle arc
    in_scores = full[numpy.ix_(cycle_arr, rest_arr)] - cycle_score[:, None]
    small[c, :c] = in_scores.max(0)
    in_to = cycle_arr[in_scores.argmax(0)]
    small[0, :] = NEG
    small_heads = numpy.concatenate([[-1], _cle(small)])
    result = heads.copy()
    for k, v in enumerate(rest):
        if v == 0:
            continue
        h = small_heads[k]
        result[v] = out_from[k] if h == c else rest[h]
    h = small_heads[c]
    entry = in_to[h]
    result[entry] = rest[h]
    return result[1:].copy()


def _find_cycle(heads: numpy.ndarray) -> Optional[List[int]]:
    """A cycle among nodes 1..n (heads[v] is node v's head, node 0 the root), or None."""
    n1 = len(heads)
    state = [0] * n1
    state[0] = 2
    for start in range(1, n1):
        path = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = int(heads[node])
        if state[node] == 1:
            return path[path.index(node):]
        for p in path:
            state[p] = 2
    return None


def decode_trees(scores: numpy.ndarray, lengths: numpy.ndarray, projective: bool = True) -> List[numpy.ndarray]:
    """The heads of a batch of sentences: the best heads where they form a tree (projective, if
    asked), else Eisner's trees (compiled, `eisner_jit`, or one batched numpy pass over all of them)
    or Chu-Liu-Edmonds'.

    scores (numpy.ndarray): (B, n, n + 1) arc scores of B sentences padded to n words.
    lengths (numpy.ndarray): (B,) words per sentence.
    RETURNS (List[numpy.ndarray]): each sentence's heads, 0 = root, word k = k + 1.
    """
    n_batch, n = scores.shape[:2]
    scores = numpy.where(numpy.isfinite(scores), scores, NEG)
    # no word heads itself
    scores[:, numpy.arange(n), numpy.arange(1, n + 1)] = NEG
    greedy = scores.argmax(-1)
    heads: List[numpy.ndarray] = [greedy[b, : int(lengths[b])] for b in range(n_batch)]
    repair = [b for b in range(n_batch) if not is_tree(heads[b], projective)]
    kernel = compiled_eisner() if repair and projective else None
    if kernel is not None:
        for b in repair:
            m = int(lengths[b])
            heads[b] = kernel(numpy.ascontiguousarray(scores[b, :m, : m + 1], dtype=numpy.float64), m)
    elif repair and projective:
        m = int(max(lengths[b] for b in repair))
        for b, h in zip(repair, eisner_batch(scores[repair, :m, : m + 1], lengths[repair])):
            heads[b] = h
    elif repair:
        for b in repair:
            m = int(lengths[b])
            heads[b] = chu_liu_edmonds(scores[b, :m, : m + 1])
    return [h.astype(numpy.int64) for h in heads]


def best_relations(logits: numpy.ndarray, is_root: numpy.ndarray, root_label: int = 0) -> numpy.ndarray:
    """The relation of each of N decoded arcs: the root's label for a root word, the best other
    label elsewhere.

    logits (numpy.ndarray): (N, L) relation logits of the arcs.
    is_root (numpy.ndarray): (N,) whether each arc is the root's.
    root_label (int): The row of the root's relation.
    RETURNS (numpy.ndarray): (N,) relation rows.
    """
    if not len(logits):
        return numpy.zeros(0, dtype=numpy.int64)
    others = numpy.array(logits, dtype=numpy.float32, copy=True)
    others[:, root_label] = -numpy.inf
    return numpy.where(is_root, root_label, others.argmax(-1)).astype(numpy.int64)
