"""The data path of a segmentation model, composed of layers: `featurize` (docs to hashed
features, `ml.featurize`) then `windows` (units and windows, the torch module, scores back into
one array per doc, `ml.windows`), each with its own few attrs."""
from typing import Any, List

from spacy.tokens import Doc
from thinc.api import Model
from thinc.types import Floats2d

from spacy_gdcws.data.bmes import TAG_COLUMNS
from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.featurize import featurize_layer
from spacy_gdcws.ml.windows import with_windows
from spacy_gdcws.ml.wrapper import convert_inputs, wrap_torch


def wrap_segmentation_net(net: Any, *, window: int, batch_chars: int, mixed_precision: bool,
                          name: str = "char_segmenter") -> Model[List[Doc], List[Floats2d]]:
    """Wrap a `nn.SegmentationNet` for thinc: docs in, one score array per doc out.

    The net's embedding carries its featurization settings (`ml.featurize.feature_settings`);
    its head's `kind` says what the arrays hold: "gaps" (len(doc) - 1 rows of gap logits) or
    "tags" (len(doc) rows of CRF potentials, `data.bmes`).
    """
    if window < 2:
        raise ValueError(Errors.E011.format(window=window))
    settings = dict(net.embed.features)
    if not settings:
        raise ValueError(Errors.E041)
    kind = net.kind
    # several windows to a row where the encoder's reach allows it (`features.pack_windows`)
    pack_gap = 0 if getattr(net.embed, "positions", False) else int(getattr(net.encoder, "pack_gap", 0) or 0)
    n_aux = int(getattr(net.encoder, "has_aux", False))
    n_scores = 1 + n_aux if kind == "gaps" else TAG_COLUMNS + n_aux
    windows = with_windows(wrap_torch(net, convert_inputs, mixed_precision), window=window,
                           batch_chars=batch_chars, kind=kind, n_scores=n_scores, pack_gap=pack_gap)
    return Model(name, forward, layers=[featurize_layer(settings), windows])


def forward(model: Model[List[Doc], List[Floats2d]], docs: List[Doc], is_train: bool):
    """featurize, then windows; the gradient goes back through both (the docs get none)."""
    featurize, windows = model.layers
    X, backprop_features = featurize(docs, is_train)
    outputs, backprop_windows = windows(X, is_train)

    def backprop(d_outputs: List[Floats2d]) -> List[Doc]:
        return backprop_features(backprop_windows(d_outputs))

    return outputs, backprop
