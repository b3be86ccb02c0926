"""Bidirectional LSTM encoder: the common baseline of neural segmenters, and `run_bilstm`, which both
this encoder and the parser's word encoder (`spacy_gdcws.nn.word_parser`) run their `torch.nn.LSTM` by.

On a CPU, torch runs an LSTM over a padded batch with oneDNN's fused kernel, and one over packed
sequences step by step, whose backward pass costs most: a training step of the `fast` parser takes
1.29x as long with its 2 x 200 BiLSTM packed, and the segmenter's BiLSTM-CRF 1.55x
(`research/benchmarks/parser_steps.py`, `train_speed.py`; `docs/speed.md`). In training on a CPU,
`run_bilstm` therefore runs each layer and direction over padded runs of similar-length rows with the
module's own weights (`torch.func.functional_call` on a one-direction LSTM of the same size), the
backward direction on each row reversed within its length, so padding never reaches a real position:
the same function as the packed run (1e-7), without the packing. Prediction, a GPU, and a quantised
LSTM (int8, which has no such weights) take the packed path as before.
"""
import threading
from typing import Dict, Tuple

import torch
from torch import nn
from torch.func import functional_call
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from spacy_gdcws.errors import Errors
from spacy_gdcws.nn.dropout import Dropout
from spacy_gdcws.nn.encoded import Encoded

_WEIGHTS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")


def run_bilstm(lstm: nn.Module, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Run a bidirectional, batch-first `lstm` over `x` (B, T, n_in), of which each row's first
    `lengths` (B,) positions are real; RETURNS (B, T, 2 * hidden), zeros past each row's length.
    `padded_bilstm` in training on a CPU, `packed_bilstm` otherwise (see the module's doc)."""
    if (lstm.training and x.device.type == "cpu" and isinstance(lstm, nn.LSTM) and lstm.bidirectional
            and lstm.batch_first and lstm.bias and not lstm.proj_size):
        return padded_bilstm(lstm, x, lengths)
    return packed_bilstm(lstm, x, lengths)


def packed_bilstm(lstm: nn.Module, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """`run_bilstm` through packed sequences (any LSTM module, the quantised one included)."""
    packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
    out, _ = lstm(packed)
    out, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
    return out


def padded_bilstm(lstm: nn.LSTM, x: torch.Tensor, lengths: torch.Tensor, rows_per_run: int = 12) -> torch.Tensor:
    """`run_bilstm` over padded batches, one layer and direction at a time, each with the module's
    own weights, the backward direction on each row reversed within its length. The rows run in runs
    of `rows_per_run` of similar length (sorted), each padded to its own longest: a batch's sentences
    differ in length by ~2x, and a run's cost is its rows times its longest row."""
    order = torch.argsort(lengths, descending=True)
    runs = []
    for rows in order.split(rows_per_run):
        run_lengths = lengths[rows]
        n_steps = int(run_lengths.max())
        h = _padded_run(lstm, x[rows.to(x.device), :n_steps], run_lengths.to(x.device))
        runs.append(nn.functional.pad(h, (0, 0, 0, x.shape[1] - n_steps)))
    restore = torch.empty_like(order)
    restore[order] = torch.arange(len(order), device=order.device)
    return torch.cat(runs).index_select(0, restore.to(x.device))


def _padded_run(lstm: nn.LSTM, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """One run of `padded_bilstm`: (B, T, n_in), T the longest of `lengths` -> (B, T, 2 * hidden)."""
    positions = torch.arange(x.shape[1], device=x.device)[None, :]
    ends = lengths[:, None]
    real = positions < ends
    # position t of row b reads position length - 1 - t (padding stays where it is)
    order = torch.where(real, ends - 1 - positions, positions)

    def reverse(t: torch.Tensor) -> torch.Tensor:
        return t.gather(1, order[..., None].expand(-1, -1, t.shape[-1]))

    h = x
    for layer in range(lstm.num_layers):
        template = _one_direction(h.shape[-1], lstm.hidden_size)
        forward_out, _ = functional_call(template, _layer_weights(lstm, layer, ""), (h,))
        backward_out, _ = functional_call(template, _layer_weights(lstm, layer, "_reverse"), (reverse(h),))
        h = torch.cat([forward_out, reverse(backward_out)], -1)
        if layer + 1 < lstm.num_layers and lstm.dropout and lstm.training:
            h = nn.functional.dropout(h, lstm.dropout, True)
    return h * real[..., None].to(h.dtype)


def _layer_weights(lstm: nn.LSTM, layer: int, suffix: str) -> Dict[str, torch.Tensor]:
    return {f"{name}_l0": getattr(lstm, f"{name}_l{layer}{suffix}") for name in _WEIGHTS}


_TEMPLATES = threading.local()


def _one_direction(n_in: int, hidden: int) -> nn.LSTM:
    """A one-layer, one-direction LSTM of this size, whose own weights are never used (each call passes
    the bidirectional module's for the call's duration), one per size and thread."""
    templates: Dict[Tuple[int, int], nn.LSTM] = _TEMPLATES.__dict__.setdefault("by_size", {})
    key = (n_in, hidden)
    if key not in templates:
        templates[key] = nn.LSTM(n_in, hidden, num_layers=1, batch_first=True)
    return templates[key]


class BiLSTMEncoder(nn.Module):
    """`depth` bidirectional LSTM layers of `width // 2` units each way.

    Padding never reaches a real position (`run_bilstm`), so a text encodes the same alone and padded.

    width (int): Input and output width (even).
    depth (int): Layers.
    dropout (float): Dropout between layers and on the output.
    """

    def __init__(self, width: int, depth: int, dropout: float) -> None:
        super().__init__()
        if width % 2:
            raise ValueError(Errors.E062.format(width=width))
        self.width = width
        self.lstm = nn.LSTM(width, width // 2, num_layers=depth, bidirectional=True, batch_first=True,
                            dropout=dropout if depth > 1 else 0.0)
        self.dropout = Dropout(dropout)

    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> Encoded:
        lengths = mask.sum(1).clamp(min=1)
        h = self.dropout(run_bilstm(self.lstm, emb, lengths))
        return Encoded(h, h)
