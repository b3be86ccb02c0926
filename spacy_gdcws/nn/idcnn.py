"""Iterated dilated CNN (Strubell et al. 2017): one block of dilated convolutions applied repeatedly."""
from typing import Sequence

import torch
from torch import nn

from spacy_gdcws.errors import Errors
from spacy_gdcws.nn.dropout import Dropout
from spacy_gdcws.nn.encoded import Encoded


class IteratedDilatedCNN(nn.Module):
    """A block of dilated 1-D convolutions (kernel 3) applied `iterations`
    times with the same parameters, after one plain convolution.

    width (int): Channels.
    dilations (Sequence[int]): The block's dilations (Strubell et al.: 1, 1, 2).
    iterations (int): Times the block is applied (4).
    kernel (int): Convolution width (odd).
    dropout (float): Dropout after each application of the block.

    Each convolution of the block is residual (`h + relu(conv(h))`), a
    departure from Strubell et al. that keeps the 13 stacked convolutions
    trainable from scratch without per-iteration losses; it does not change
    the receptive field. Padded positions are zeroed after every convolution,
    so a text segments the same alone and in a padded batch, and padding
    never leaks into text.
    """

    def __init__(self, width: int, dilations: Sequence[int], iterations: int, kernel: int, dropout: float) -> None:
        super().__init__()
        if kernel % 2 != 1 or kernel < 3:
            raise ValueError(Errors.E059.format(kernel=kernel))
        if iterations < 1 or not dilations or min(dilations) < 1:
            raise ValueError(Errors.E060)
        self.width = width
        self.dilations = tuple(int(d) for d in dilations)
        self.iterations = iterations
        self.kernel = kernel
        self.initial = nn.Conv1d(width, width, kernel, padding=kernel // 2)
        self.block = nn.ModuleList(
            nn.Conv1d(width, width, kernel, dilation=d, padding=d * (kernel // 2)) for d in self.dilations
        )
        self.dropout = Dropout(dropout)
        self.readout = nn.LayerNorm(width)

    @property
    def pack_gap(self) -> int:
        """Positions one convolution reads to either side: windows packed into a row
        with this much padding between them (zeroed after every convolution) are
        encoded as if alone (`data.features.pack_windows`)."""
        return max(self.dilations) * (self.kernel // 2)

    @property
    def receptive_field(self) -> int:
        """Characters that one output position sees (itself included)."""
        half = self.kernel // 2
        return 1 + 2 * half * (1 + self.iterations * sum(self.dilations))

    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> Encoded:
        keep = mask.unsqueeze(1).to(emb.dtype)  # (B, 1, T)
        if not torch.is_grad_enabled() and not torch.jit.is_tracing() and not torch.is_autocast_enabled(emb.device.type):
            return self._predict(emb, keep)
        h = torch.relu(self.initial(emb.transpose(1, 2) * keep)) * keep
        for _ in range(self.iterations):
            for conv in self.block:
                h = (h + torch.relu(conv(h))) * keep
            h = self.dropout(h)
        out = self.readout(h.transpose(1, 2))
        return Encoded(out, out)

    def _predict(self, emb: torch.Tensor, keep: torch.Tensor) -> Encoded:
        """`forward` without autograd: the same arithmetic in place (no tensor
        allocated per elementwise step; 5% of `nlp.pipe` for `configs/fast.cfg`).
        Not under autocast, where the residual sum is float32 and the convolutions'
        outputs bfloat16: in place, the sum would be kept in bfloat16."""
        h = self.initial(emb.transpose(1, 2) * keep).relu_().mul_(keep)
        for _ in range(self.iterations):
            for conv in self.block:
                h.add_(conv(h).relu_()).mul_(keep)
            h = self.dropout(h)
        out = self.readout(h.transpose(1, 2))
        return Encoded(out, out)
