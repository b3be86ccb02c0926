"""Local self-attention network (L-SAN): multi-head self-attention restricted to a window."""
import torch
from torch import nn

from .attention import attention_mask
from .encoded import Encoded
from .encoder import EncoderLayer


def band_mask(length: int, radius: int, device: torch.device = None) -> torch.Tensor:
    """Which keys each query may see: those at most `radius` positions away.

    RETURNS (torch.Tensor): Bool (T, T), True = visible.
    """
    pos = torch.arange(length, device=device)
    return (pos[:, None] - pos[None, :]).abs() <= radius


def relative_offsets(length: int, radius: int, device: torch.device = None) -> torch.Tensor:
    """Index of each key's offset from its query, `j - i + radius`, clipped to
    `[0, 2 * radius]` (keys outside the window are masked anyway).

    RETURNS (torch.Tensor): Long (T, T).
    """
    pos = torch.arange(length, device=device)
    return (pos[None, :] - pos[:, None]).clamp(-radius, radius) + radius


class LocalSelfAttentionEncoder(nn.Module):
    """Stacked encoder layers whose attention sees `radius` characters on each side.

    The local self-attention of L-SAN-CRF-style segmenters (window 5 on each
    side reported best; 2 layers, 2 heads of 50). Attention is order-blind
    inside the window: give the embedding positions (`CharEmbed.v1 positions = true`)
    or, with `relative_positions`, a learned bias per head, layer and offset
    (`2 * radius + 1` numbers each; Shaw et al. 2018's relative positions as
    attention logits biases), so each head can tell left from right neighbours.

    width (int): Model width (a multiple of n_heads).
    depth (int): Layers.
    n_heads (int): Attention heads.
    d_ff (int): FFN inner size (0 = none).
    radius (int): Characters visible on each side.
    dropout (float): Dropout on residuals, FFN and attention weights.
    relative_positions (bool): Learn an attention bias for each offset in the window.
    """

    def __init__(self, width: int, depth: int, n_heads: int, d_ff: int, radius: int, dropout: float,
                 relative_positions: bool = False) -> None:
        super().__init__()
        if radius < 1:
            raise ValueError(f"[E061] the attention radius must be at least 1, got {radius}")
        self.width = width
        self.radius = radius
        self.layers = nn.ModuleList(EncoderLayer(width, n_heads, d_ff, dropout, pre_norm=True,
                                                 gaussian_bias=relative_positions) for _ in range(depth))
        self.readout = nn.LayerNorm(width)
        # (depth, n_heads, 2 * radius + 1), zero at the start: plain local attention
        self.relative_bias = (nn.Parameter(torch.zeros(depth, n_heads, 2 * radius + 1))
                              if relative_positions else None)

    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> Encoded:
        length = emb.shape[1]
        allowed = attention_mask(mask, band_mask(length, self.radius, emb.device))
        offsets = relative_offsets(length, self.radius, emb.device) if self.relative_bias is not None else None
        h = emb
        for i, layer in enumerate(self.layers):
            # the layer adds this (H, T, T) bias to its attention logits
            bias = self.relative_bias[i][:, offsets] if offsets is not None else None
            h = layer(h, allowed, bias)
        h = self.readout(h)
        return Encoded(h, h)
