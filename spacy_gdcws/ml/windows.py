"""The windows layer of a segmentation model: around its torch layer, a featurized batch
(`ml.featurize.Featurized`) cut into units at line breaks and long units into windows, one
forward per length-sorted padded batch of windows (several windows to a row in training, where
the encoder's reach allows it), and each gap's (or character's) scores put back into its doc's
array from the window where it is most central.

Its attrs: `window`, `batch_chars`, `output` ("gaps" or "tags"), `n_scores` and `pack_gap`.
"""
from typing import List, Optional, Sequence

import numpy
from thinc.api import Model
from thinc.types import Floats2d

from spacy_gdcws.data.features import (
    Placement,
    batch_windows,
    featurize,
    pack_windows,
    plan_windows,
)
from spacy_gdcws.ml.featurize import Featurized

# Gaps that the model never scores (next to a line break) get this logit:
# they are boundaries by construction.
FORCED_BOUNDARY_LOGIT = 30.0
# what a segmentation model's arrays hold: "gaps" (gap logits) or "tags" (CRF potentials)
OUTPUT = "output"


def with_windows(torch_layer: Model, *, window: int, batch_chars: int, kind: str, n_scores: int,
                 pack_gap: int) -> Model[Optional[Featurized], List[Floats2d]]:
    """The windows layer around `torch_layer` (`ml.wrapper.wrap_torch`).

    window (int): Longest span scored at once. batch_chars (int): Upper bound on rows * padded
    length of one torch batch. kind (str): "gaps" (len(doc) - 1 rows per doc) or "tags" (len(doc)
    rows). n_scores (int): Columns per row. pack_gap (int): Padding between two windows packed
    into one training row (0: a row each; `features.pack_windows`).
    """
    return Model("windows", forward, layers=[torch_layer], attrs={
        "window": window, "batch_chars": batch_chars, OUTPUT: kind, "n_scores": n_scores, "pack_gap": pack_gap,
    })


def forward(model: Model[Optional[Featurized], List[Floats2d]], X: Optional[Featurized], is_train: bool):
    """Score the batch's windows and gather one array per doc."""
    if X is None:
        return [], lambda _: None
    torch_layer = model.layers[0]
    n_scores = model.attrs["n_scores"]
    tags = model.attrs[OUTPUT] == "tags"
    feats = X.feats
    n_tokens = len(X.breaks)
    if tags:
        # characters the model does not score (whitespace, one-character lines) get
        # flat potentials: the gaps around them are boundaries anyway
        flat = numpy.zeros((n_tokens, n_scores), dtype="f")
    else:
        # row g: the gap after token g (a doc's last token has none: never read)
        flat = numpy.full((n_tokens, n_scores), FORCED_BOUNDARY_LOGIT, dtype="f")
    windows = plan_windows(X.breaks, feats.offsets, feats.lengths, model.attrs["window"])
    callbacks = []
    # training packs several windows into a row (same outputs, less padding); prediction keeps a row each
    gap = model.attrs["pack_gap"] if is_train else 0
    for rows in batch_windows(windows, model.attrs["batch_chars"]):
        batch = windows.take(rows)
        placement = pack_windows(batch, gap) if gap else Placement.single(batch)
        Y, backprop = torch_layer(featurize(batch, feats, X.bigrams, placement), is_train)
        window, column, position = batch.kept(tags)
        row, column = placement.row[window], placement.offset[window] + column
        flat[position] = Y[row, column]
        callbacks.append((Y.shape, (row, column, position), backprop))
    sizes = feats.lengths if tags else numpy.maximum(feats.lengths - 1, 0)
    outputs = [flat[o : o + n] for o, n in zip(feats.offsets.tolist(), sizes.tolist())]

    def backprop(d_outputs: Sequence[Floats2d]) -> None:
        d_flat = numpy.zeros_like(flat)
        for o, n, d in zip(feats.offsets.tolist(), sizes.tolist(), d_outputs):
            d_flat[o : o + n] = model.ops.to_numpy(d)
        for shape, (row, column, position), batch_backprop in callbacks:
            dY = numpy.zeros(shape, dtype="f")
            dY[row, column] = d_flat[position]
            batch_backprop(dY)
        return None

    return outputs, backprop
