"""Encoder layers and the three directional pipelines."""
from typing import Any, Optional

import torch
from torch import nn

from spacy_gdcws.nn.attention import GaussianDirectionalAttention
from spacy_gdcws.nn.dropout import Dropout


class EncoderLayer(nn.Module):
    """GD self-attention + position-wise FFN, each with residual and LayerNorm.

    width (int): Model dimension.
    n_heads (int): Attention heads.
    d_ff (int): FFN inner size; 0 removes the FFN sublayer.
    dropout (float): Dropout rate.
    pre_norm (bool): LayerNorm before each sublayer instead of after (post, paper).
    attention_dropout (Optional[float]): Dropout on attention weights (None: `dropout`).
    gaussian_bias (bool): The Gaussian term is added as log G (else multiplied).
    attention (Optional[nn.Module]): Another self-attention with the same
        `(x, mask, positions)` call (the L-SAN's local attention); None: GD attention.
    """

    def __init__(self, width: int, n_heads: int, d_ff: int, dropout: float, pre_norm: bool = False,
                 attention_dropout: Optional[float] = None, gaussian_bias: bool = False,
                 attention: Optional[nn.Module] = None) -> None:
        super().__init__()
        self.pre_norm = pre_norm
        attention_dropout = dropout if attention_dropout is None else attention_dropout
        self.attn = attention if attention is not None else GaussianDirectionalAttention(
            width, n_heads, attention_dropout, gaussian_bias)
        self.norm1 = nn.LayerNorm(width)
        self.ffn: Optional[nn.Module] = None
        if d_ff > 0:
            self.ffn = nn.Sequential(
                nn.Linear(width, d_ff), nn.ReLU(), Dropout(dropout), nn.Linear(d_ff, width)
            )
            self.norm2 = nn.LayerNorm(width)
        self.dropout = Dropout(dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, gauss: Any) -> torch.Tensor:
        """gauss: what the attention adds to its logits (GD: the (T, T) Gaussian or None)."""
        x = self._sublayer(x, self.norm1, lambda h: self.attn(h, mask, gauss))
        if self.ffn is not None:
            x = self._sublayer(x, self.norm2, self.ffn)
        return x

    def _sublayer(self, x: torch.Tensor, norm: nn.Module, fn) -> torch.Tensor:
        if self.pre_norm:
            return x + self.dropout(fn(norm(x)))
        return norm(x + self.dropout(fn(x)))


class Pipeline(nn.Module):
    """A stack of encoder layers that all attend in one direction.

    The pipeline can run a slice of its layers, so the HiRED layer can sit
    between its front and rear halves.
    """

    def __init__(self, direction: str, depth: int, width: int, n_heads: int, d_ff: int,
                 dropout: float, pre_norm: bool = False, attention_dropout: Optional[float] = None,
                 gaussian_bias: bool = False) -> None:
        super().__init__()
        self.direction = direction
        self.layers = nn.ModuleList(
            EncoderLayer(width, n_heads, d_ff, dropout, pre_norm, attention_dropout, gaussian_bias) for _ in range(depth)
        )
        # pre-norm stacks leave their residual stream unnormalised: read it out through a norm
        self.readout: nn.Module = nn.LayerNorm(width) if pre_norm else nn.Identity()

    def forward(self, x: torch.Tensor, mask: torch.Tensor, gauss: Optional[torch.Tensor],
                start: int = 0, end: Optional[int] = None) -> torch.Tensor:
        for layer in self.layers[start:end]:
            x = layer(x, mask, gauss)
        return x
