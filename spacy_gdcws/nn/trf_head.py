"""The torch part on top of a pretrained transformer: a projection, then a scorer."""
import torch
from torch import nn

from spacy_gdcws.nn.config import check_widths
from spacy_gdcws.nn.dropout import Dropout
from spacy_gdcws.nn.encoded import Encoded


class TransformerHead(nn.Module):
    """Project each character's pooled transformer vector to `width`, then score
    it with `head` (a `GapScorer` or `CRFTagger` of that width).

    forward(x, mask): x (B, T, hidden_width) float, mask (B, T) bool -> the head's scores.
    """

    def __init__(self, hidden_width: int, width: int, head: nn.Module, dropout: float) -> None:
        super().__init__()
        check_widths("transformer projection and scorer", width, getattr(head, "width", None))
        self.hidden_width = hidden_width
        self.width = width
        self.proj = nn.Linear(hidden_width, width)
        self.dropout = Dropout(dropout)
        self.head = head

    @property
    def kind(self) -> str:
        return self.head.kind

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.dropout(torch.tanh(self.proj(x.to(self.proj.weight.dtype))))
        h = h * mask.unsqueeze(-1).to(h.dtype)
        return self.head(Encoded(h, h))
