"""Scorers (`scorer` in `embed >> encoder >> scorer`): gap logits or CRF potentials."""
import torch
from torch import nn

from spacy_gdcws.data.bmes import N_TAGS
from spacy_gdcws.nn.biaffine import BiaffineGapScorer
from spacy_gdcws.nn.encoded import Encoded


class GapScorer(nn.Module):
    """The GD-Transformer's biaffine gap scorer (paper, Eq. 6) on any encoder.

    RETURNS (forward): (B, T - 1, 1 + n_aux) gap logits: column 0 the final
    scorer, then the encoder's auxiliary scorer (HiRED), whose loss is added.
    """

    kind = "gaps"

    def __init__(self, width: int, hidden: int) -> None:
        super().__init__()
        self.width = width
        self.biaffine = BiaffineGapScorer(width, hidden)

    def forward(self, enc: Encoded) -> torch.Tensor:
        columns = [self.biaffine(enc.left, enc.right)]
        if enc.aux is not None:
            columns.append(enc.aux)
        return torch.stack(columns, dim=-1)


class CRFTagger(nn.Module):
    """BMES emissions from each character's vector and learned tag transitions.

    RETURNS (forward): (B, T, 16 + n_aux): columns 4 * i + j are the
    potentials `transitions[i, j] + emissions[t, j]` (`crf`); with an
    auxiliary gap scorer (HiRED), its logit for the gap after t follows
    (0 on the last character).
    """

    kind = "tags"

    def __init__(self, width: int) -> None:
        super().__init__()
        self.width = width
        self.emissions = nn.Linear(width, N_TAGS)
        self.transitions = nn.Parameter(torch.zeros(N_TAGS, N_TAGS))

    def forward(self, enc: Encoded) -> torch.Tensor:
        emit = self.emissions(enc.joint)  # (B, T, 4)
        psi = self.transitions.to(emit.dtype)[None, None] + emit.unsqueeze(2)  # (B, T, 4, 4)
        out = psi.flatten(2)
        if enc.aux is not None:
            aux = torch.nn.functional.pad(enc.aux, (0, 1)).unsqueeze(-1)
            out = torch.cat([out, aux.to(out.dtype)], dim=-1)
        return out
