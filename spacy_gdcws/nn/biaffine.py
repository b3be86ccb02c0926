"""Biaffine gap scorer (paper, Eq. 6)."""
import torch
from torch import nn


class BiaffineGapScorer(nn.Module):
    """Score the gap between characters i and i+1.

    `s_i = x_i^T W y_{i+1} + U [x_i; y_{i+1}] + b`, where `x = proj_f(v_f)`
    and `y = proj_b(v_b)` are linear projections of the forward-side and
    backward-side representations.
    """

    def __init__(self, width: int, hidden: int) -> None:
        super().__init__()
        self.proj_f = nn.Linear(width, hidden)
        self.proj_b = nn.Linear(width, hidden)
        self.bilinear = nn.Parameter(torch.zeros(hidden, hidden))
        self.linear = nn.Linear(2 * hidden, 1)

    def forward(self, v_f: torch.Tensor, v_b: torch.Tensor) -> torch.Tensor:
        """v_f, v_b: (B, T, d). RETURNS: gap logits (B, T - 1)."""
        x = self.proj_f(v_f[:, :-1])
        y = self.proj_b(v_b[:, 1:])
        bilinear = ((x @ self.bilinear) * y).sum(-1)
        return bilinear + self.linear(torch.cat([x, y], dim=-1)).squeeze(-1)
