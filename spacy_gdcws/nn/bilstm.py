"""Bidirectional LSTM encoder: the common baseline of neural segmenters."""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from spacy_gdcws.errors import Errors
from spacy_gdcws.nn.dropout import Dropout
from spacy_gdcws.nn.encoded import Encoded


class BiLSTMEncoder(nn.Module):
    """`depth` bidirectional LSTM layers of `width // 2` units each way.

    Padded batches are packed, so a text encodes the same alone and padded.

    width (int): Input and output width (even).
    depth (int): Layers.
    dropout (float): Dropout between layers and on the output.
    """

    def __init__(self, width: int, depth: int = 1, dropout: float = 0.0) -> None:
        super().__init__()
        if width % 2:
            raise ValueError(Errors.E062.format(width=width))
        self.width = width
        self.lstm = nn.LSTM(width, width // 2, num_layers=depth, bidirectional=True, batch_first=True,
                            dropout=dropout if depth > 1 else 0.0)
        self.dropout = Dropout(dropout)

    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> Encoded:
        lengths = mask.sum(1).clamp(min=1).cpu()
        packed = pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        h, _ = pad_packed_sequence(out, batch_first=True, total_length=emb.shape[1])
        h = self.dropout(h)
        return Encoded(h, h)
