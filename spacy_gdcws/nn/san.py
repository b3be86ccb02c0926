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


class LocalSelfAttentionEncoder(nn.Module):
    """Stacked encoder layers whose attention sees `radius` characters on each side.

    The local self-attention of L-SAN-CRF-style segmenters (window 5 on each
    side reported best; 2 layers, 2 heads of 50). Attention is order-blind
    inside the window: give the embedding positions (`CharEmbed.v1 positions = true`).

    width (int): Model width (a multiple of n_heads).
    depth (int): Layers.
    n_heads (int): Attention heads.
    d_ff (int): FFN inner size (0 = none).
    radius (int): Characters visible on each side.
    dropout (float): Dropout on residuals, FFN and attention weights.
    """

    def __init__(self, width: int, depth: int, n_heads: int, d_ff: int, radius: int, dropout: float) -> None:
        super().__init__()
        if radius < 1:
            raise ValueError(f"[E061] the attention radius must be at least 1, got {radius}")
        self.width = width
        self.radius = radius
        self.layers = nn.ModuleList(EncoderLayer(width, n_heads, d_ff, dropout, pre_norm=True) for _ in range(depth))
        self.readout = nn.LayerNorm(width)

    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> Encoded:
        allowed = attention_mask(mask, band_mask(emb.shape[1], self.radius, emb.device))
        h = emb
        for layer in self.layers:
            h = layer(h, allowed, None)
        h = self.readout(h)
        return Encoded(h, h)
