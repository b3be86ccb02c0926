"""Optional int8 dynamic quantisation of a segmentation model for CPU inference.

    nlp = spacy.load("zh_gdcws")
    quantize_model(nlp.get_pipe("segmenter").model)   # Linear layers -> int8 weights, int8 GEMMs

(`app.precision.quantize_segmenter` does this for a pipeline's segmenter.) Weights of every
`torch.nn.Linear` are stored as int8 and activations are quantised on the fly per batch
(`torch.ao.quantization.quantize_dynamic`). Embeddings, LayerNorm, attention products and
the biaffine stay float32. A quantised model predicts only: it cannot be updated or saved
(quantise after loading). Its accuracy cost on SXU dev is measured by
`research/benchmarks/speed.py --quantization-dev corpus/sxu/dev.spacy`.
"""
import warnings

from thinc.api import Model

from spacy_gdcws.ml.shims import torch_shims
from spacy_gdcws.ml.state import QUANTIZED_ATTR


def quantize_model(model: Model) -> None:
    """Quantise the Linear layers of every torch net under `model` to int8, in place
    (one net, or one per member of an ensemble); a no-op the second time."""
    import torch

    if model.attrs.get(QUANTIZED_ATTR):
        return
    with warnings.catch_warnings():
        # torch.ao.quantization is deprecated in favour of torchao; the eager
        # dynamic path still works and needs no extra dependency
        warnings.simplefilter("ignore")
        for shim in torch_shims(model):
            shim.net = torch.ao.quantization.quantize_dynamic(shim.net.eval(), {torch.nn.Linear}, dtype=torch.qint8)
    model.attrs[QUANTIZED_ATTR] = True
