"""Gaussian-masked directional multi-head self-attention (paper, section 3.1)."""
import math
from typing import Optional

import torch
from torch import nn

from spacy_gdcws.errors import Errors
from spacy_gdcws.nn.config import check_heads
from spacy_gdcws.nn.dropout import Dropout

DIRECTIONS = ("forward", "centre", "backward")


def gaussian_weights(length: int, sigma: float, device: Optional[torch.device] = None) -> torch.Tensor:
    """Gaussian weight matrix of the paper's Eq. 2.

    `G[i, j] = erfc(|i - j| / (sigma * sqrt(2)))`: 1 on the diagonal and
    decreasing with distance (it is `2 * Phi(-|i - j| / sigma)`).

    length (int): Sequence length T.
    sigma (float): Standard deviation.
    RETURNS (torch.Tensor): Float tensor of shape (T, T).
    """
    pos = torch.arange(length, device=device, dtype=torch.float32)
    dist = (pos[:, None] - pos[None, :]).abs()
    return torch.special.erfc(dist / (sigma * math.sqrt(2.0)))


def log_gaussian_weights(length: int, sigma: float, device: Optional[torch.device] = None) -> torch.Tensor:
    """`log G` (floored at log 1e-30 so that it stays finite): the additive
    form of the Gaussian, a soft local window of about +-2.5 sigma."""
    return torch.log(gaussian_weights(length, sigma, device).clamp_min(1e-30))


def direction_mask(length: int, direction: str, device: Optional[torch.device] = None) -> Optional[torch.Tensor]:
    """Which keys each query may see, diagonal included.

    forward: j <= i; backward: j >= i; centre: all (returns None).

    RETURNS (Optional[torch.Tensor]): Bool tensor (T, T), True = visible.
    """
    if direction == "centre":
        return None
    ones = torch.ones(length, length, dtype=torch.bool, device=device)
    if direction == "forward":
        return torch.tril(ones)
    if direction == "backward":
        return torch.triu(ones)
    raise ValueError(Errors.E009.format(direction=direction, options=DIRECTIONS))


def attention_mask(key_mask: torch.Tensor, direction: Optional[torch.Tensor]) -> torch.Tensor:
    """Combine padding and direction masks into one boolean (B, 1, T, T) mask.

    Every query keeps its own diagonal: a padded query in the backward
    pipeline would otherwise see no key at all, its softmax would be NaN and
    the NaN would reach real positions through V in the next layer.

    key_mask (torch.Tensor): Bool (B, T), True for real characters.
    direction (Optional[torch.Tensor]): Bool (T, T) or None.
    RETURNS (torch.Tensor): Bool (B, 1, T, T), True = may attend.
    """
    length = key_mask.shape[1]
    allowed = key_mask[:, None, None, :]
    if direction is not None:
        allowed = allowed & direction[None, None]
    eye = torch.eye(length, dtype=torch.bool, device=key_mask.device)
    return allowed | eye[None, None]


class GaussianDirectionalAttention(nn.Module):
    """Multi-head self-attention with the paper's Gaussian weight (Eq. 3).

    `logits = (Q K^T / sqrt(d_head)) * G` (or `+ log G` with `gaussian_bias`,
    a departure from the paper), then the direction and padding
    masks are applied as -inf fills (never multiplied into G, which would give
    NaN), softmax, dropout, times V, output projection.
    """

    def __init__(self, width: int, n_heads: int, dropout: float, gaussian_bias: bool = False) -> None:
        super().__init__()
        # False: logits * G (paper, Eq. 3); True: logits + log G (the caller
        # passes log G), which makes attention local: far keys get ~ -inf
        self.gaussian_bias = gaussian_bias
        check_heads(width, n_heads)
        self.n_heads = n_heads
        self.d_head = width // n_heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.dropout = Dropout(dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, gauss: Optional[torch.Tensor]) -> torch.Tensor:
        """x (B, T, d); mask: bool (B, 1, T, T) from `attention_mask`;
        gauss: (T, T) or None. RETURNS (B, T, d)."""
        batch, length, _ = x.shape
        q, k, v = self._project(x)
        weights = self._weights(q, k, mask, gauss)
        if self.training and self.dropout.p > 0:
            weights = self.dropout(weights)
        ctx = self._context(weights, v, gauss).transpose(1, 2).reshape(batch, length, -1)
        return self.out(ctx)

    def attention_weights(self, x: torch.Tensor, mask: torch.Tensor, gauss: Optional[torch.Tensor]) -> torch.Tensor:
        """Attention weights (B, H, T, T) after masks and softmax, before dropout."""
        q, k, _ = self._project(x)
        return self._weights(q, k, mask, gauss)

    def _project(self, x: torch.Tensor):
        batch, length, _ = x.shape
        qkv = self.qkv(x).view(batch, length, 3, self.n_heads, self.d_head)
        return qkv.permute(2, 0, 3, 1, 4).unbind(0)

    def _context(self, weights: torch.Tensor, v: torch.Tensor, gauss: Optional[torch.Tensor]) -> torch.Tensor:
        """Each head's output (B, H, T, d_head) from its weights and values
        (a subclass may add to it: `san.LocalAttention`)."""
        return weights @ v

    def _weights(self, q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor, gauss: Optional[torch.Tensor]) -> torch.Tensor:
        # scale q (B*H*T*d_head values), not the logits (B*H*T*T); the T x T
        # steps below are in place: none of them needs its input for backward
        logits = (q * (1.0 / math.sqrt(self.d_head))) @ k.transpose(-1, -2)
        if gauss is not None:
            if self.gaussian_bias:
                logits.add_(gauss.to(logits.dtype))
            else:
                logits.mul_(gauss.to(logits.dtype))
        logits.masked_fill_(~mask, float("-inf"))
        # softmax in fp32 so that bf16 autocast cannot overflow the exponent sum
        return torch.softmax(logits.float(), dim=-1).to(q.dtype)
