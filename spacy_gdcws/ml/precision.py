"""The precision a model predicts in (a segmenter's or the parser's), owned here whole: as
saved, float32, bfloat16 autocast, or int8 Linear and LSTM layers.

    set_model_precision(nlp.get_pipe("segmenter").model, "int8")

(`app.precision.set_precision` does this for every segmenter and parser of a pipeline; `segment
--precision`.) int8 is dynamic quantisation (`torch.ao.quantization.quantize_dynamic`):
weights of every `torch.nn.Linear` and `torch.nn.LSTM` stored as int8, activations quantised
on the fly per batch; embeddings, LayerNorm, attention products and the biaffine products stay
float32. A quantised model predicts only: it cannot be updated or saved (`check_not_quantized`,
E025). Every setting starts from the float module, which is kept: int8 then fp32 is float32
again, bf16 then "saved" is what the config said. What each costs and how often it changes
words, tags and trees: docs/speed.md.
"""
import warnings

from thinc.api import Model

from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.shims import torch_shims
from spacy_gdcws.ml.state import QUANTIZED_ATTR

PRECISIONS = ("saved", "fp32", "bf16", "int8")


def set_model_precision(model: Model, precision: str) -> None:
    """Run every torch net under `model` (one, or one per member of an ensemble) in
    `precision`: "saved" (the config's `mixed_precision`), "fp32", "bf16" (autocast) or
    "int8" (E094 for anything else)."""
    if precision not in PRECISIONS:
        raise ValueError(Errors.E094.format(precision=precision, options=", ".join(PRECISIONS)))
    for shim in torch_shims(model):
        if shim.float_net is not None:  # back to the float module first
            shim.net, shim.float_net = shim.float_net, None
        if precision == "int8":
            shim.float_net, shim.net = shim.net, _quantized(shim.net)
        shim.mixed_precision = shim.saved_mixed_precision if precision == "saved" else precision == "bf16"
    model.attrs[QUANTIZED_ATTR] = precision == "int8"


def check_not_quantized(name: str, model: Model) -> None:
    """E025 for the int8-quantised component `name`: it predicts only (no update, no save)."""
    if model.attrs.get(QUANTIZED_ATTR):
        raise ValueError(Errors.E025.format(name=name))


def quantize_model(model: Model) -> None:
    """`set_model_precision(model, "int8")`."""
    set_model_precision(model, "int8")


def _quantized(net):
    """An int8 copy of `net`'s Linear and LSTM layers (the float module is left as it is)."""
    import torch

    with warnings.catch_warnings():
        # torch.ao.quantization is deprecated in favour of torchao; the eager
        # dynamic path still works and needs no extra dependency
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(net.eval(), {torch.nn.Linear, torch.nn.LSTM}, dtype=torch.qint8)
