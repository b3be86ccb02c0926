"""A linear-chain CRF over BMES word-position tags, with gap constraints, batched in torch.

The tags and their tables are `data.bmes`'s: a tag sequence is a segmentation
exactly when neighbouring tags agree on the gap between them (`VALID`): BMES
constraints are that agreement, plus a boundary before the first character and
after the last.

Potentials are log-scores `psi[b, t, i, j]`: tag i at t - 1 followed by tag j
at t (at t = 0 the previous tag is a virtual S). A CRF tagger's potentials are
`transitions[i, j] + emissions[t, j]` (`heads.CRFTagger`), but anything of this
shape decodes here. Gap constraints (-1 free, 0 no boundary, 1 boundary) fix
the gap between t and t + 1: forced boundaries next to whitespace, gold gaps in
training. Every recursion runs over the batch at once; the partition function
reduces the positions pairwise (about log2 of the length in steps), Viterbi
loops over them. Decoding on the host is numpy's (`data.bmes.packed_viterbi`:
only the 8 steps BMES agreement allows, docs packed without padding).
"""
import torch

from spacy_gdcws.data.bmes import AFTER, BEFORE, N_TAGS, NEG, S_TAG, TAG_OF_GAPS


def _after(device: torch.device) -> torch.Tensor:
    return torch.tensor(AFTER, dtype=torch.long, device=device)


def allowed_steps(gaps: torch.Tensor, length: int) -> torch.Tensor:
    """Which transitions are allowed at each position, from BMES agreement
    and the gap constraints.

    gaps (LongTensor): (B, T - 1) with -1 (free), 0 or 1 per gap between t and t + 1.
    length (int): T.
    RETURNS (BoolTensor): (B, T, 4, 4), [b, t, i, j]: tag i at t - 1 may precede tag j at t.
    """
    batch = gaps.shape[0]
    # each row's tokens with the gap before them (-1 before the first), laid end to end
    before = torch.full((batch, length), -1, dtype=torch.long, device=gaps.device)
    before[:, 1:] = gaps[:, : length - 1]
    first = torch.zeros((batch, length), dtype=torch.bool, device=gaps.device)
    first[:, 0] = True
    return packed_allowed_steps(before.reshape(-1), first.reshape(-1)).reshape(batch, length, N_TAGS, N_TAGS)


def _scores(psi: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    return psi.masked_fill(~allowed, NEG)


def _end(device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    return torch.where(_after(device) == 1, 0.0, NEG).to(dtype)


def log_partition(psi: torch.Tensor, allowed: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """log of the sum over allowed tag sequences of exp(sum of potentials) (forward algorithm).

    The recursion is a product of the steps' (4, 4) matrices in the log semiring,
    which is associative: it is reduced pairwise, about log2(T) batched steps
    instead of T (positions past a row's length are the semiring's identity).

    psi (Tensor): (B, T, 4, 4) potentials. allowed (BoolTensor): (B, T, 4, 4)
    from `allowed_steps`. lengths (LongTensor): (B,) true lengths, >= 1.
    RETURNS (Tensor): (B,).
    """
    score = _scores(psi, allowed)
    alpha = score[:, 0, S_TAG, :]
    steps = score[:, 1:]
    if steps.shape[1]:
        positions = torch.arange(1, psi.shape[1], device=psi.device)
        past = (positions[None, :] >= lengths[:, None])[:, :, None, None]  # (B, T - 1, 1, 1)
        steps = torch.where(past, _identity(psi.device, psi.dtype), steps)
        alpha = _log_matvec(alpha, _log_product(steps))
    return torch.logsumexp(alpha + _end(psi.device, alpha.dtype), dim=1)


def _identity(device: torch.device, dtype: torch.dtype) -> torch.Tensor:
    """The log semiring's (4, 4) identity: 0 on the diagonal, NEG elsewhere."""
    eye = torch.eye(N_TAGS, device=device, dtype=torch.bool)
    return torch.where(eye, 0.0, NEG).to(dtype)


def _log_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """(..., 4, 4) x (..., 4, 4) in the log semiring."""
    return torch.logsumexp(a.unsqueeze(-1) + b.unsqueeze(-3), dim=-2)


def _log_matvec(alpha: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    """(B, 4) row vectors times (B, 4, 4) in the log semiring."""
    return torch.logsumexp(alpha.unsqueeze(2) + m, dim=1)


def _log_product(steps: torch.Tensor) -> torch.Tensor:
    """The ordered log-semiring product of (B, n, 4, 4) matrices along n, as (B, 4, 4)."""
    while steps.shape[1] > 1:
        if steps.shape[1] % 2:
            pad = _identity(steps.device, steps.dtype).expand(steps.shape[0], 1, N_TAGS, N_TAGS)
            steps = torch.cat([steps, pad], dim=1)
        steps = _log_matmul(steps[:, 0::2], steps[:, 1::2])
    return steps[:, 0]


# positions per chunk of `packed_log_partition`: each doc is padded to a multiple of it only
CHUNK = 16


def packed_allowed_steps(gaps_before: torch.Tensor, first: torch.Tensor) -> torch.Tensor:
    """`allowed_steps` for docs laid end to end without padding.

    gaps_before (LongTensor): (N,) the constraint on the gap before each token
        (-1 free, 0 no boundary, 1 boundary; a doc's first token: ignored).
    first (BoolTensor): (N,) whether a token is its doc's first.
    RETURNS (BoolTensor): (N, 4, 4), [n, i, j]: tag i at the previous token may precede tag j at n.
    """
    device = gaps_before.device
    before = torch.tensor(BEFORE, dtype=torch.long, device=device)
    after = _after(device)
    valid = after[:, None] == before[None, :]
    ok = (gaps_before.unsqueeze(-1) < 0) | (after[None, :] == gaps_before.unsqueeze(-1))  # (N, 4)
    allowed = valid & ok.unsqueeze(-1)
    # a doc's first token: the previous tag is the virtual S
    start = torch.zeros(N_TAGS, N_TAGS, dtype=torch.bool, device=device)
    start[S_TAG] = before.bool()
    return torch.where(first[:, None, None], start, allowed)


def packed_log_partition(psi: torch.Tensor, allowed: torch.Tensor, lengths: torch.Tensor,
                         chunk: int = CHUNK) -> torch.Tensor:
    """`log_partition` for docs laid end to end without padding: each doc's steps
    are reduced in chunks of `chunk` positions, then each doc's chunk products,
    so the work follows the tokens, not the longest doc times the batch.

    psi (Tensor): (N, 4, 4) potentials of the docs' tokens laid end to end.
    allowed (BoolTensor): (N, 4, 4) from `packed_allowed_steps`.
    lengths (LongTensor): (B,) tokens per doc, each >= 1, summing to N.
    RETURNS (Tensor): (B,).
    """
    device, dtype = psi.device, psi.dtype
    score = _scores(psi, allowed)
    starts = torch.cumsum(lengths, 0) - lengths
    alpha = score[starts, S_TAG, :]
    n_chunks = torch.div(lengths - 1 + chunk - 1, chunk, rounding_mode="floor")
    total = int(n_chunks.sum())
    if total:
        identity = _identity(device, dtype).unsqueeze(0)
        n = score.shape[0]
        chunk_doc = torch.repeat_interleave(torch.arange(len(lengths), device=device), n_chunks)
        chunk_start = torch.cumsum(n_chunks, 0) - n_chunks
        chunk_k = torch.arange(total, device=device) - chunk_start[chunk_doc]
        pos = chunk_k[:, None] * chunk + torch.arange(1, chunk + 1, device=device)[None, :]
        index = torch.where(pos < lengths[chunk_doc, None], starts[chunk_doc, None] + pos, n)
        products = _log_product(torch.cat([score, identity])[index])  # (total, 4, 4)
        slot = torch.arange(int(n_chunks.max()), device=device)
        index = torch.where(slot[None, :] < n_chunks[:, None], chunk_start[:, None] + slot[None, :], total)
        alpha = _log_matvec(alpha, _log_product(torch.cat([products, identity])[index]))
    return torch.logsumexp(alpha + _end(device, alpha.dtype), dim=1)


def packed_path_score(psi: torch.Tensor, tags: torch.Tensor, first: torch.Tensor,
                      doc_of_token: torch.Tensor, n_docs: int) -> torch.Tensor:
    """The summed potentials of one tag sequence per doc (the log-score `log_partition`
    sums over, for a doc whose gaps are all fixed), docs laid end to end.

    psi (Tensor): (N, 4, 4). tags (LongTensor): (N,) a valid BMES sequence per doc.
    first (BoolTensor): (N,) a doc's first token. doc_of_token (LongTensor): (N,).
    RETURNS (Tensor): (n_docs,).
    """
    previous = torch.where(first, torch.full_like(tags, S_TAG), torch.roll(tags, 1))
    steps = psi[torch.arange(len(tags), device=psi.device), previous, tags]
    return torch.zeros(n_docs, dtype=psi.dtype, device=psi.device).index_add(0, doc_of_token, steps)


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


def tags_to_boundaries(tags: torch.Tensor) -> torch.Tensor:
    """Gap labels (B, T - 1) of tag sequences (B, T): a boundary after tags E and S."""
    return _after(tags.device)[tags[:, :-1]].bool()


def boundaries_to_tags(gaps: torch.Tensor) -> torch.Tensor:
    """BMES tags (B, T) of complete gap labels (B, T - 1) (text edges are boundaries)."""
    batch = gaps.shape[0]
    edge = torch.ones(batch, 1, dtype=torch.long, device=gaps.device)
    bounds = torch.cat([edge, gaps.long(), edge], dim=1)
    before, after = bounds[:, :-1], bounds[:, 1:]
    return torch.tensor(TAG_OF_GAPS, device=gaps.device)[before, after]
