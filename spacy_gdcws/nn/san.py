"""Local self-attention network (L-SAN): multi-head self-attention restricted to a window."""
import math
from typing import NamedTuple, Optional

import torch
from torch import nn

from spacy_gdcws.errors import Errors
from spacy_gdcws.nn.attention import GaussianDirectionalAttention, attention_mask
from spacy_gdcws.nn.encoded import Encoded
from spacy_gdcws.nn.encoder import EncoderLayer


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


class RelativePositions(NamedTuple):
    """What one layer's attention knows about each key's offset from its query.

    offsets (Tensor): Long (T, T), `relative_offsets`.
    bias (Optional[Tensor]): (H, T, T) logit bias per head (the offset's learned bias), or None.
    keys (Optional[Tensor]): (2 * radius + 1, d_head) key vector per offset (Shaw et al. 2018's
        `a^K`: adds `q_i . a^K_{j-i} / sqrt(d_head)` to the logits), or None.
    values (Optional[Tensor]): (2 * radius + 1, d_head) value vector per offset (`a^V`: adds
        `sum_j w_ij a^V_{j-i}` to each head's output, so it tells where its input came from), or None.
    """

    offsets: torch.Tensor
    bias: Optional[torch.Tensor] = None
    keys: Optional[torch.Tensor] = None
    values: Optional[torch.Tensor] = None


class LocalAttention(GaussianDirectionalAttention):
    """Multi-head self-attention with relative positions inside a window.

    The mask (from `attention_mask` with `band_mask`) keeps each query's window;
    `RelativePositions` adds the per-offset logit bias and Shaw et al.'s key and
    value vectors. The projections are those of the GD attention, so a model
    saved before the relative vectors existed loads unchanged.
    """

    def __init__(self, width: int, n_heads: int, dropout: float) -> None:
        super().__init__(width, n_heads, dropout, gaussian_bias=True)

    # `forward` and `attention_weights` are the GD attention's, called with a
    # `RelativePositions` (or None) where the GD attention takes its Gaussian

    def _weights(self, q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor,
                 positions: Optional[RelativePositions]) -> torch.Tensor:
        bias = None
        if positions is not None:
            bias = positions.bias
            if positions.keys is not None:
                # q_i . a^K_w for every offset w, then spread to the (T, T) keys
                per_offset = (q * (1.0 / math.sqrt(self.d_head))) @ positions.keys.to(q.dtype).t()
                spread = per_offset.gather(-1, positions.offsets.expand(*q.shape[:-1], -1))
                bias = spread if bias is None else spread + bias
        return super()._weights(q, k, mask, bias)

    def _context(self, weights: torch.Tensor, v: torch.Tensor,
                 positions: Optional[RelativePositions]) -> torch.Tensor:
        ctx = super()._context(weights, v, None)
        if positions is not None and positions.values is not None:
            # each query's weights summed per offset (B, H, T, 2r + 1); keys outside the
            # window have weight 0, so the clipped offsets add nothing
            per_offset = weights.new_zeros(*weights.shape[:-1], positions.values.shape[0])
            per_offset.scatter_add_(-1, positions.offsets.expand_as(weights), weights)
            ctx = ctx + per_offset @ positions.values.to(ctx.dtype)
        return ctx


class LocalSelfAttentionEncoder(nn.Module):
    """Stacked encoder layers whose attention sees `radius` characters on each side.

    The local self-attention of L-SAN-CRF-style segmenters (window 5 on each
    side reported best; 2 layers, 2 heads of 50). Attention is order-blind
    inside the window: give the embedding positions (`CharEmbed.v2 positions = true`)
    or, with `relative_positions`, a learned bias per head, layer and offset
    (`2 * radius + 1` numbers each; Shaw et al. 2018's relative positions as
    attention logits biases), so each head can tell left from right neighbours.
    `relative_embeddings` adds Shaw et al.'s full form: a learned key and value
    vector per offset, shared by the heads of a layer, so that a head's output
    also says from which offset its input came.

    width (int): Model width (a multiple of n_heads).
    depth (int): Layers.
    n_heads (int): Attention heads.
    d_ff (int): FFN inner size (0 = none).
    radius (int): Characters visible on each side.
    dropout (float): Dropout on residuals, FFN and attention weights.
    relative_positions (bool): Learn an attention bias for each offset in the window.
    relative_embeddings (bool): Learn a key and a value vector for each offset in the window.
    """

    def __init__(self, width: int, depth: int, n_heads: int, d_ff: int, radius: int, dropout: float,
                 relative_positions: bool, relative_embeddings: bool) -> None:
        super().__init__()
        if radius < 1:
            raise ValueError(Errors.E061.format(radius=radius))
        self.width = width
        self.radius = radius
        self.layers = nn.ModuleList(EncoderLayer(width, n_heads, d_ff, dropout, pre_norm=True,
                                                 attention=LocalAttention(width, n_heads, dropout))
                                    for _ in range(depth))
        self.readout = nn.LayerNorm(width)
        # (depth, n_heads, 2 * radius + 1), zero at the start: plain local attention
        self.relative_bias = (nn.Parameter(torch.zeros(depth, n_heads, 2 * radius + 1))
                              if relative_positions else None)
        # (depth, 2 * radius + 1, d_head) each, zero at the start: they add nothing until trained
        d_head = width // n_heads
        self.relative_keys = (nn.Parameter(torch.zeros(depth, 2 * radius + 1, d_head))
                              if relative_embeddings else None)
        self.relative_values = (nn.Parameter(torch.zeros(depth, 2 * radius + 1, d_head))
                                if relative_embeddings else None)

    def positions(self, layer: int, offsets: Optional[torch.Tensor]) -> Optional[RelativePositions]:
        """The relative positions layer `layer` uses (None: plain local attention)."""
        if offsets is None:
            return None
        return RelativePositions(
            offsets,
            bias=self.relative_bias[layer][:, offsets] if self.relative_bias is not None else None,
            keys=self.relative_keys[layer] if self.relative_keys is not None else None,
            values=self.relative_values[layer] if self.relative_values is not None else None,
        )

    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> Encoded:
        length = emb.shape[1]
        allowed = attention_mask(mask, band_mask(length, self.radius, emb.device))
        relative = self.relative_bias is not None or self.relative_keys is not None
        offsets = relative_offsets(length, self.radius, emb.device) if relative else None
        h = emb
        for i, layer in enumerate(self.layers):
            h = layer(h, allowed, self.positions(i, offsets))
        h = self.readout(h)
        return Encoded(h, h)
