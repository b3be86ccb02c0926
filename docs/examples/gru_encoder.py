"""An encoder added in one module: a bidirectional GRU (docs/add-an-encoder.md).

Use it from a config with `spacy train ... --code docs/examples/gru_encoder.py`.
"""
import torch
from spacy.util import registry
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from spacy_gdcws.nn import Encoded


class BiGRUEncoder(nn.Module):
    """`depth` bidirectional GRU layers of `width // 2` units each way."""

    def __init__(self, width: int, depth: int, dropout: float) -> None:
        super().__init__()
        self.width = width  # the composer checks that embed, encoder and scorer widths agree
        self.gru = nn.GRU(width, width // 2, num_layers=depth, bidirectional=True, batch_first=True)
        self.dropout = nn.Dropout(dropout)

    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> Encoded:
        # emb: (batch, chars, width); mask: (batch, chars), True for real characters
        lengths = mask.sum(1).clamp(min=1).cpu()
        packed = pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.gru(packed)
        h, _ = pad_packed_sequence(out, batch_first=True, total_length=emb.shape[1])
        h = self.dropout(h)
        return Encoded(h, h)  # one stream: the same vectors for both sides of a gap


@registry.architectures("my_project.BiGRU.v1")
def build_bigru(width: int = 128, depth: int = 1, dropout: float = 0.1) -> BiGRUEncoder:
    return BiGRUEncoder(width, depth, dropout)
