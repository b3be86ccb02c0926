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
training. Every recursion runs over the batch at once; the only Python loop is
over positions. Decoding on the host is numpy's (`data.bmes.packed_viterbi`:
only the 8 steps BMES agreement allows, docs packed without padding).
"""
import torch

from spacy_gdcws.data.bmes import AFTER, BEFORE, N_TAGS, NEG, S_TAG


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
