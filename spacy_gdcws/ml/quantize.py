"""Optional int8 dynamic quantisation of the segmenter for CPU inference.

    nlp = spacy.load("zh_gdcws")
    quantize_segmenter(nlp)          # Linear layers -> int8 weights, int8 GEMMs

Weights of every `torch.nn.Linear` are stored as int8 and activations are
quantised on the fly per batch (`torch.ao.quantization.quantize_dynamic`).
Embeddings, LayerNorm, attention products and the biaffine stay float32. A
quantised segmenter predicts only: it cannot be updated or saved (quantise
after loading). Its accuracy cost on SXU dev is measured by
`research/benchmarks/speed.py --quantization-dev corpus/sxu/dev.spacy`.
"""
import warnings
from typing import Optional

from spacy.language import Language

from spacy_gdcws.ml.state import QUANTIZED_ATTR
from spacy_gdcws.segment import find_segmenter


def quantize_segmenter(nlp: Language, name: Optional[str] = None) -> None:
    """Quantise the Linear layers of the pipeline's segmenter to int8, in place.

    nlp (Language): A pipeline with a `gdcws_segmenter`.
    name (Optional[str]): The segmenter's name (default: the first one).
    """
    import torch

    segmenter = nlp.get_pipe(find_segmenter(nlp, name))
    model = segmenter.model
    if model.attrs.get(QUANTIZED_ATTR):
        return
    with warnings.catch_warnings():
        # torch.ao.quantization is deprecated in favour of torchao; the eager
        # dynamic path still works and needs no extra dependency
        warnings.simplefilter("ignore")
        for node in model.walk():  # one torch module, or one per member of an ensemble
            for shim in node.shims:
                shim._model = torch.ao.quantization.quantize_dynamic(shim._model.eval(), {torch.nn.Linear}, dtype=torch.qint8)
    model.attrs[QUANTIZED_ATTR] = True
