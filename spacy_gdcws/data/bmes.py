"""BMES word-position tags: their tables and the Viterbi decoder of a BMES chain, in numpy.

Tags: B (begins a word), M (inside), E (ends), S (a word alone). A tag says
whether a word boundary lies before the character and after it, so a tag
sequence is a segmentation exactly when neighbouring tags agree on the gap
between them. Two orders of the same four tags are in use, both fixed by what
saved pipelines hold:

- `TAGS` (B, M, E, S; index 0-3): a CRF tagger's potentials (`nn.crf`,
  `nn.heads.CRFTagger`): column 4 * i + j of a character's 16 is tag i at the
  previous character followed by tag j at this one (`TAG_COLUMNS`);
- `PRIOR_TAGS` (M, E, B, S): the decoding priors' tag counts
  (`decoding.priors`), indexed by the labels of the two gaps around a
  character, 2 * before + after.

`packed_viterbi` decodes the chain of any such potentials for docs laid end to
end (a CRF tagger's, or the decoding priors' `decoding.chain`). numpy only:
`nn` (torch) and `decoding` (numpy) both read these tables from here.
"""
import numpy

from spacy_gdcws.data.ragged import ragged_positions

TAGS = ("B", "M", "E", "S")
S_TAG = 3
N_TAGS = 4
BEFORE = (1, 0, 0, 1)  # a boundary before the character
AFTER = (0, 0, 1, 1)  # a boundary after it
# the tag of a character by its (before, after) gaps' labels: (1, 0) B, (0, 0) M, (0, 1) E, (1, 1) S
TAG_OF_GAPS = ((1, 2), (0, 3))
# columns of CRF potentials per character: 4 x 4 (previous tag, tag) pairs
TAG_COLUMNS = N_TAGS * N_TAGS
# tags of a character by the labels of its (before, after) gaps, index 2 * before + after
PRIOR_TAGS = ("M", "E", "B", "S")
# a large negative log-score for what is not allowed (finite: no NaN in gradients)
NEG = -1.0e9


# the 8 steps BMES agreement allows, (previous tag i, tag j), grouped by j: the two
# predecessors of B and S are E and S (a boundary between), of M and E are B and M
STEP_PREV = numpy.array([2, 3, 0, 1, 0, 1, 2, 3])
STEP_NEXT = numpy.array([0, 0, 1, 1, 2, 2, 3, 3])
# by the constraint on the gap before a token (+1: free, no boundary, boundary): the steps it rules out
_DEAD = numpy.array([[0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 1, 1], [0, 0, 1, 1, 1, 1, 0, 0]], dtype=bool)


def packed_viterbi(steps: numpy.ndarray, gaps: numpy.ndarray, lengths: numpy.ndarray,
                   starts: numpy.ndarray) -> numpy.ndarray:
    """`nn.crf.viterbi_tags` on the host for docs laid end to end, as gap labels.

    Only the 8 steps BMES agreement allows are scored, and the docs are packed
    time-major without padding (rows longest first, step t a contiguous block
    of the rows still running), so a step costs a few array operations over
    the running rows. Each candidate is the same sum `viterbi_tags` forms and
    ties go to the lower tag id, so the labelling is the one `viterbi_tags` gives.

    steps (numpy.ndarray): (N, 8) potentials of the steps (STEP_PREV[s] ->
        STEP_NEXT[s]) into each flat token (float32 or float64: kept).
    gaps (numpy.ndarray): (N - 1,) int: -1 free, 0 no boundary, 1 boundary,
        for the gap after each flat token.
    lengths, starts (numpy.ndarray): each doc's tokens (>= 1) and first flat token.
    RETURNS (numpy.ndarray): bool (N - 1,): the boundaries (a doc's gaps only;
        False elsewhere).
    """
    n_flat = len(steps)
    out = numpy.zeros(max(n_flat - 1, 0), dtype=bool)
    if not len(lengths):
        return out
    order = numpy.argsort(-lengths, kind="stable")
    ranked = lengths[order]
    length = int(ranked[0])
    # running[t]: rows with more than t tokens; row r's token t sits at packed row level[t] + r
    running = len(ranked) - numpy.searchsorted(ranked[::-1], numpy.arange(length), side="right")
    level = numpy.zeros(length + 1, dtype=numpy.int64)
    numpy.cumsum(running, out=level[1:])
    rank, t = ragged_positions(ranked)
    token = numpy.empty(len(rank), dtype=numpy.int64)  # the flat token of each packed row
    token[level[t] + rank] = starts[order][rank] + t
    # the constraint on the gap before each packed token (none before a doc's first)
    before = numpy.concatenate([[-1], numpy.asarray(gaps, dtype=numpy.int64)])[token]
    before[: len(ranked)] = -1
    # a gap's constraint removes the steps across it: boundary -> none into M or E,
    # no boundary -> none into B or S
    dtype = steps.dtype
    scores = numpy.where(_DEAD[before + 1], dtype.type(NEG), numpy.take(steps, token, axis=0))
    delta = numpy.full((len(ranked), N_TAGS), NEG, dtype=dtype)
    delta[:, 0] = scores[: len(ranked), 1]  # the virtual S before the first token
    delta[:, 3] = scores[: len(ranked), 7]
    take_second = numpy.empty((len(token), N_TAGS), dtype=bool)
    cand = numpy.empty((len(ranked), 8), dtype=dtype)
    pairs = cand.reshape(len(ranked), N_TAGS, 2)
    running_at, level_at = running.tolist(), level.tolist()  # Python ints: cheaper slicing
    for step in range(1, length):
        k, a, b = running_at[step], level_at[step], level_at[step + 1]
        delta[:k].take(STEP_PREV, axis=1, out=cand[:k])  # the method: no Python wrapper a step
        cand[:k] += scores[a:b]
        numpy.greater(pairs[:k, :, 1], pairs[:k, :, 0], out=take_second[a:b])
        numpy.maximum(pairs[:k, :, 0], pairs[:k, :, 1], out=delta[:k])
    end = numpy.where(numpy.asarray(AFTER) == 1, 0.0, NEG).astype(dtype)
    tag = (delta + end).argmax(axis=1)
    # each packed token's best previous tag for each of its tags, flat (packed row * 4 + tag);
    # a tag's two predecessors are consecutive ids
    best_prev = (take_second + STEP_PREV[0::2]).ravel()
    tags = numpy.empty(len(token), dtype=numpy.int64)  # per packed token
    tags[level[ranked - 1] + numpy.arange(len(ranked))] = tag  # each row's last token
    base = numpy.arange(len(token), dtype=numpy.int64) * N_TAGS  # each packed row's first of best_prev
    at = numpy.empty(len(ranked), dtype=numpy.int64)
    for step in range(length - 1, 0, -1):
        k, a, before_at = running_at[step], level_at[step], level_at[step - 1]
        numpy.add(base[a : a + k], tag[:k], out=at[:k])
        best_prev.take(at[:k], out=tag[:k])
        tags[before_at : before_at + k] = tag[:k]
    after = numpy.zeros(n_flat, dtype=bool)
    after[token] = numpy.asarray(AFTER, dtype=bool)[tags]
    after[starts + lengths - 1] = False  # a doc's last token has no gap of the doc after it
    out[:] = after[: len(out)]
    return out


def runs_between(cut: numpy.ndarray, starts: numpy.ndarray, lengths: numpy.ndarray):
    """The runs of tokens between cut tokens, within each doc (cut tokens left out): what
    `packed_viterbi` decodes as its rows, so that a line (the tokens between two line
    breaks) is decoded on its own, as when it is a doc of its own, wherever it stands.

    Exact where the cut tokens are hard boundaries (the gaps on both sides forced) whose
    potentials do not depend on the tag before them (a unit break's, which the model does
    not score): the best labelling of the whole doc is then that of its runs, each
    starting after the virtual S that a doc starts after.

    cut (numpy.ndarray): bool (N,) over the flat tokens. starts, lengths: each doc's
        first flat token and its number of tokens (tokens of no doc are never in a run).
    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): each run's first flat token and length.
    """
    n = len(cut)
    inside = numpy.zeros(n + 1, dtype=numpy.int64)
    numpy.add.at(inside, starts, 1)
    numpy.add.at(inside, starts + lengths, -1)
    keep = (numpy.cumsum(inside[:n]) > 0) & ~numpy.asarray(cut, dtype=bool)
    doc_start = numpy.zeros(n + 1, dtype=bool)
    doc_start[starts] = True
    first = keep & (doc_start[:n] | ~numpy.concatenate([[False], keep[:-1]]))
    last = keep & (doc_start[1:] | ~numpy.concatenate([keep[1:], [False]]))
    run_starts = numpy.flatnonzero(first)
    return run_starts, numpy.flatnonzero(last) - run_starts + 1
