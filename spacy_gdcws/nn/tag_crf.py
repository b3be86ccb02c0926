"""A linear-chain CRF over a tag set with hard constraints, trained on partially labelled sentences: the
entity tagger's loss (IOB2 tags; `spacy_gdcws.parse.loss`). torch only.

A sentence's score of a tag sequence is the sum of its words' emission scores and of the learnt
transition scores between consecutive tags; sequences the constraints forbid (`allowed`, `first`: an
`I-X` after anything but `B-X` or `I-X`, or first) score nothing. A word whose gold tag is unknown
(IGNORE: not aligned with the gold words, or left missing) may take any tag: the loss is the log of the
partition function less the log-sum of the scores of every sequence that agrees with the known tags
(Tsuboi et al. 2008's partial-annotation CRF).
"""
import torch

#: a tag row whose gold is unknown
IGNORE = -1
#: a forbidden step's score: finite, so that no sum is -inf - -inf
FORBIDDEN = -1e4


def log_partition(emissions: torch.Tensor, steps: torch.Tensor, lengths: torch.Tensor,
                  first: torch.Tensor) -> torch.Tensor:
    """(B,) the log-sum over every tag sequence of each sentence's score (the forward algorithm).

    emissions (torch.Tensor): (B, T, K) each word's tag scores (FORBIDDEN where a tag may not be).
    steps (torch.Tensor): (K, K) the score of tag j following tag i, forbidden steps FORBIDDEN.
    lengths (torch.Tensor): (B,) words per sentence (at least 1).
    first (torch.Tensor): (K,) bool, the tags a sentence may begin with.
    """
    alpha = emissions[:, 0] + torch.where(first, 0.0, FORBIDDEN).to(emissions.dtype)
    for t in range(1, emissions.shape[1]):
        stepped = torch.logsumexp(alpha[:, :, None] + steps[None], dim=1) + emissions[:, t]
        alpha = torch.where((t < lengths)[:, None], stepped, alpha)
    return torch.logsumexp(alpha, -1)


def repaired(gold: torch.Tensor, allowed: torch.Tensor, first: torch.Tensor, begins: torch.Tensor) -> torch.Tensor:
    """Gold tag rows made valid as conlleval reads them: a known tag that may not follow the known tag
    before it (or begin the sentence) becomes its `begins` row (`I-X` -> `B-X`); a word after an
    unknown one keeps its tag (the unknown word may be anything)."""
    gold = gold.clone()
    for t in range(gold.shape[1]):
        tag = gold[:, t]
        known = tag != IGNORE
        if t == 0:
            bad = known & ~first[tag.clamp(min=0)]
        else:
            before = gold[:, t - 1]
            bad = known & (before != IGNORE) & ~allowed[before.clamp(min=0), tag.clamp(min=0)]
        gold[:, t] = torch.where(bad, begins[tag.clamp(min=0)], tag)
    return gold


def partial_nll(emissions: torch.Tensor, steps: torch.Tensor, gold: torch.Tensor, lengths: torch.Tensor,
                allowed: torch.Tensor, first: torch.Tensor, begins: torch.Tensor) -> torch.Tensor:
    """The summed negative log-likelihood of the sentences' known tags (those with at least one),
    and nothing for a sentence without any.

    emissions (torch.Tensor): (B, T, K) tag scores. steps (torch.Tensor): (K, K) learnt transitions.
    gold (torch.Tensor): (B, T) gold tag rows, IGNORE where unknown (and past each sentence's end).
    lengths (torch.Tensor): (B,) words per sentence.
    allowed, first (torch.Tensor): bool (K, K) and (K,): the constraints (`decoding.entities.allowed_steps`).
    begins (torch.Tensor): (K,) the row that begins an entity of each tag's type (`B-X` for `I-X`).
    RETURNS (torch.Tensor): a scalar.
    """
    annotated = (gold != IGNORE).any(1)
    if not bool(annotated.any()):
        return emissions.sum() * 0.0
    emissions, gold, lengths = emissions[annotated], gold[annotated], lengths[annotated].clamp(min=1)
    steps = steps.masked_fill(~allowed, FORBIDDEN)
    gold = repaired(gold, allowed, first, begins)
    n_tags = emissions.shape[-1]
    agrees = (gold[:, :, None] == IGNORE) | (gold[:, :, None] == torch.arange(n_tags, device=gold.device))
    clamped = emissions.masked_fill(~agrees, FORBIDDEN)
    return (log_partition(emissions, steps, lengths, first) - log_partition(clamped, steps, lengths, first)).sum()
