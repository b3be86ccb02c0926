"""A linear-chain CRF over BMES word-position tags, with gap constraints, batched in torch.

Tags: B (begins a word), M (inside), E (ends), S (a word alone), indexed 0-3. A
tag says whether a word boundary lies before the character and after it, so a
tag sequence is a segmentation exactly when neighbouring tags agree on the gap
between them (`VALID`): BMES constraints are that agreement, plus a boundary
before the first character and after the last.

Potentials are log-scores `psi[b, t, i, j]`: tag i at t - 1 followed by tag j
at t (at t = 0 the previous tag is a virtual S). A CRF tagger's potentials are
`transitions[i, j] + emissions[t, j]` (`heads.CRFTagger`), but anything of this
shape decodes here. Gap constraints (-1 free, 0 no boundary, 1 boundary) fix
the gap between t and t + 1: forced boundaries next to whitespace, gold gaps in
training. Every recursion runs over the batch at once; the only Python loop is
over positions. Decoding runs on the host in numpy (`packed_viterbi`: only the 8
steps BMES agreement allows, docs packed without padding), a few microseconds a step.
"""
import numpy
import torch

from spacy_gdcws.data.ragged import ragged_positions

TAGS = ("B", "M", "E", "S")
S_TAG = 3
N_TAGS = 4
BEFORE = (1, 0, 0, 1)  # a boundary before the character
AFTER = (0, 0, 1, 1)  # a boundary after it
# a large negative log-score for what is not allowed (finite: no NaN in gradients)
NEG = -1.0e9


def _after(device: torch.device) -> torch.Tensor:
    return torch.tensor(AFTER, dtype=torch.long, device=device)


def allowed_steps(gaps: torch.Tensor, length: int) -> torch.Tensor:
    """Which transitions are allowed at each position, from BMES agreement
    and the gap constraints.

    gaps (LongTensor): (B, T - 1) with -1 (free), 0 or 1 per gap between t and t + 1.
    length (int): T.
    RETURNS (BoolTensor): (B, T, 4, 4), [b, t, i, j]: tag i at t - 1 may precede tag j at t.
    """
    device = gaps.device
    before = torch.tensor(BEFORE, dtype=torch.long, device=device)
    after = _after(device)
    valid = after[:, None] == before[None, :]  # (4, 4)
    batch = gaps.shape[0]
    allowed = valid.expand(batch, length, N_TAGS, N_TAGS).clone()
    # t = 0: the previous tag is the virtual S
    allowed[:, 0] = False
    allowed[:, 0, S_TAG] = before.bool()
    if length > 1:
        g = gaps[:, : length - 1].unsqueeze(-1)  # (B, T-1, 1)
        ok = (g < 0) | (after[None, None, :] == g)  # (B, T-1, 4): may tag i precede the gap
        allowed[:, 1:] &= ok.unsqueeze(-1)
    return allowed


def _scores(psi: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    return psi.masked_fill(~allowed, NEG)


def _end(device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    return torch.where(_after(device) == 1, 0.0, NEG).to(dtype)


def log_partition(psi: torch.Tensor, allowed: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """log of the sum over allowed tag sequences of exp(sum of potentials) (forward algorithm).

    psi (Tensor): (B, T, 4, 4) potentials. allowed (BoolTensor): (B, T, 4, 4)
    from `allowed_steps`. lengths (LongTensor): (B,) true lengths, >= 1.
    RETURNS (Tensor): (B,).
    """
    score = _scores(psi, allowed)
    alpha = score[:, 0, S_TAG, :]
    for t in range(1, psi.shape[1]):
        nxt = torch.logsumexp(alpha.unsqueeze(2) + score[:, t], dim=1)
        alpha = torch.where((lengths > t).unsqueeze(1), nxt, alpha)
    return torch.logsumexp(alpha + _end(psi.device, alpha.dtype), dim=1)


def viterbi_tags(psi: torch.Tensor, allowed: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """The best allowed tag sequence of each row.

    RETURNS (LongTensor): (B, T) tag ids; positions past a row's length repeat its last tag.
    """
    return _viterbi_torch(_scores(psi.detach(), allowed), lengths)


def _viterbi_torch(score: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """`viterbi_tags` on the scores' device (score: (B, T, 4, 4), disallowed steps at NEG)."""
    batch, length = score.shape[:2]
    delta = score[:, 0, S_TAG, :]
    identity = torch.arange(N_TAGS, device=score.device).expand(batch, N_TAGS)
    backs = []
    for t in range(1, length):
        best, arg = (delta.unsqueeze(2) + score[:, t]).max(dim=1)
        active = (lengths > t).unsqueeze(1)
        delta = torch.where(active, best, delta)
        backs.append(torch.where(active, arg, identity))
    last = (delta + _end(score.device, delta.dtype)).argmax(dim=1)
    tags = [last]
    for back in reversed(backs):
        last = back.gather(1, last.unsqueeze(1)).squeeze(1)
        tags.append(last)
    return torch.stack(tags[::-1], dim=1)


# the 8 steps BMES agreement allows, (previous tag i, tag j), grouped by j: the two
# predecessors of B and S are E and S (a boundary between), of M and E are B and M
STEP_PREV = numpy.array([2, 3, 0, 1, 0, 1, 2, 3])
STEP_NEXT = numpy.array([0, 0, 1, 1, 2, 2, 3, 3])
# by the constraint on the gap before a token (+1: free, no boundary, boundary): the steps it rules out
_DEAD = numpy.array([[0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 1, 1], [0, 0, 1, 1, 1, 1, 0, 0]], dtype=bool)


def packed_viterbi(steps: numpy.ndarray, gaps: numpy.ndarray, lengths: numpy.ndarray,
                   starts: numpy.ndarray) -> numpy.ndarray:
    """`viterbi_tags` on the host for docs laid end to end, as gap labels.

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


def tags_to_boundaries(tags: torch.Tensor) -> torch.Tensor:
    """Gap labels (B, T - 1) of tag sequences (B, T): a boundary after tags E and S."""
    return _after(tags.device)[tags[:, :-1]].bool()


def boundaries_to_tags(gaps: torch.Tensor) -> torch.Tensor:
    """BMES tags (B, T) of complete gap labels (B, T - 1) (text edges are boundaries)."""
    batch = gaps.shape[0]
    edge = torch.ones(batch, 1, dtype=torch.long, device=gaps.device)
    bounds = torch.cat([edge, gaps.long(), edge], dim=1)
    before, after = bounds[:, :-1], bounds[:, 1:]
    # (before, after): (1, 0) B, (0, 0) M, (0, 1) E, (1, 1) S
    table = torch.tensor([[1, 2], [0, 3]], device=gaps.device)
    return table[before, after]
