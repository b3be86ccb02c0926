"""A pretrained transformer under the segmenter (spacy-transformers), with the gap or CRF scorer on top.

`spacy_gdcws.HFTransformer.v1` wraps `spacy-transformers`' `TransformerModel` (a Hugging Face
model by name or local path) with strided spans for long texts and mean pooling of the
wordpieces onto the character tokens; `spacy_gdcws.TransformerSegmenter.v1` puts a projection
and a scorer (`spacy_gdcws.GapScorer.v1` / `CRFTagger.v1`) on it. The segmenter runs first in
the pipeline, so the transformer reads the character doc: a BERT-style Chinese tokenizer gives
one wordpiece per Han character (the alignment is one to one), a run of Latin letters or digits
becomes one or more wordpieces that span several character tokens (each character gets the mean
of the wordpieces it overlaps), and characters without a wordpiece (whitespace) get zeros.
Needs the `[transformers]` extra (`pip install -e ".[transformers]"` in the repository): E067 without it.
"""
from functools import partial
from typing import Any, Callable, Dict, List, Tuple

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, torch2xp, xp2torch
from thinc.types import Floats2d

from spacy_gdcws.data.bmes import TAG_COLUMNS
from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.windows import OUTPUT
from spacy_gdcws.ml.wrapper import no_input_gradient, wrap_torch


def _require_transformers() -> None:
    try:
        import spacy_transformers  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as e:
        raise ImportError(Errors.E067.format(error=e)) from None


@registry.architectures("spacy_gdcws.HFTransformer.v1")
def build_hf_transformer(
    name: str,
    window: int,
    stride: int,
    grad_factor: float,
    tokenizer_config: Dict[str, Any],
    transformer_config: Dict[str, Any],
    mixed_precision: bool,
    grad_scaler_config: Dict[str, Any],
) -> Model[List[Doc], List[Floats2d]]:
    """A Hugging Face transformer (`name`: a hub name such as "bert-base-chinese" or a local
    folder) giving one vector per token of the doc: spacy-transformers' `TransformerModel`
    over strided spans of `window` tokens every `stride` (long texts), then the mean of the
    wordpiece vectors aligned to each token.

    grad_factor (float): Scales the gradient that reaches the transformer (0 = frozen).
    mixed_precision (bool): fp16 autocast with gradient scaling (GPU; `grad_scaler_config`).
    """
    _require_transformers()
    from spacy_transformers.layers import TransformerModel, split_trf_batch, trfs2arrays
    from spacy_transformers.span_getters import configure_strided_spans
    from thinc.api import chain, reduce_mean

    return chain(
        TransformerModel(name, configure_strided_spans(window, stride), tokenizer_config, transformer_config,
                         mixed_precision, grad_scaler_config),
        split_trf_batch(),
        trfs2arrays(reduce_mean(), grad_factor),
    )


@registry.architectures("spacy_gdcws.TransformerSegmenter.v1")
def build_transformer_segmenter(
    transformer: Model[List[Doc], List[Floats2d]],
    scorer: Any,
    hidden_width: int,
    width: int,
    dropout: float,
    mixed_precision: bool,
) -> Model[List[Doc], List[Floats2d]]:
    """A segmentation model on a pretrained transformer (`spacy_gdcws.HFTransformer.v1`).

    scorer: `spacy_gdcws.GapScorer.v1` or `spacy_gdcws.CRFTagger.v1` of width `width`.
    hidden_width (int): The transformer's hidden size (768 for BERT-base; checked at
        initialize, E068).
    width (int): The projection's width, the scorer's input.
    RETURNS (Model[List[Doc], List[Floats2d]]): gap logits or CRF potentials per doc,
        as `spacy_gdcws.CharSegmenter.v1`.
    """
    from spacy_gdcws.nn.trf_head import TransformerHead

    net = TransformerHead(hidden_width, width, scorer, dropout)
    head = wrap_torch(net, _convert_inputs, mixed_precision)
    kind = net.kind
    return Model(
        "transformer_segmenter",
        _forward,
        init=_init,
        layers=[transformer, head],
        attrs={OUTPUT: kind, "n_scores": 1 if kind == "gaps" else TAG_COLUMNS, "hidden_width": hidden_width,
               "lexicon_max_len": 0},
    )


def _init(model: Model, X: Any = None, Y: Any = None) -> None:
    transformer = model.layers[0]
    transformer.initialize(X=X)
    found = _transformer_width(transformer)
    if found is not None and found != model.attrs["hidden_width"]:
        raise ValueError(Errors.E068.format(found=found, hidden_width=model.attrs["hidden_width"]))


def _transformer_width(transformer: Model) -> Any:
    for node in transformer.walk():
        if node.name == "transformer" and node.has_dim("nO"):
            return node.get_dim("nO")
    return None


def _convert_inputs(model: Model, X_mask: Tuple[numpy.ndarray, numpy.ndarray], is_train: bool) -> Tuple[ArgsKwargs, Callable]:
    """Padded transformer vectors (with a gradient in training) and the mask to torch."""
    X, mask = X_mask
    device = model.shims[0].device
    Xt = xp2torch(model.ops.asarray(X), requires_grad=is_train, device=device)
    mask_t = xp2torch(model.ops.asarray(mask), device=device)
    if not is_train:
        return ArgsKwargs(args=(Xt, mask_t), kwargs={}), no_input_gradient
    return ArgsKwargs(args=(Xt, mask_t), kwargs={}), partial(_input_gradient, model.ops)


def _input_gradient(ops: Any, d_inputs: ArgsKwargs) -> Any:
    return ops.asarray(torch2xp(d_inputs.args[0]))


def _forward(model: Model, docs: List[Doc], is_train: bool):
    transformer, head = model.layers
    # docs of fewer than 2 tokens have no gap to score (and a batch of empty docs
    # gives the tokenizer nothing): the transformer sees only the others
    scored = [i for i, doc in enumerate(docs) if len(doc) >= 2]
    width = model.attrs["hidden_width"]
    host = [numpy.zeros((len(doc), width), dtype="f") for doc in docs]
    backprop_transformer = None
    if scored:
        vectors, backprop_transformer = transformer([docs[i] for i in scored], is_train)
        for i, v in zip(scored, vectors):
            host[i] = model.ops.to_numpy(v)
    lengths = [len(doc) for doc in docs]
    tags = model.attrs[OUTPUT] == "tags"
    length = max(lengths + [2])
    X = numpy.zeros((len(docs), length, width), dtype="f")
    mask = numpy.zeros((len(docs), length), dtype=bool)
    for i, v in enumerate(host):
        if len(v):
            X[i, : len(v)] = v
        mask[i, : lengths[i]] = True
    Y, backprop_head = head((X, mask), is_train)
    sizes = [n if tags else max(n - 1, 0) for n in lengths]
    outputs = [numpy.ascontiguousarray(Y[i, :n]) for i, n in enumerate(sizes)]

    def backprop(d_outputs: List[Floats2d]) -> List[Doc]:
        dY = numpy.zeros(Y.shape, dtype="f")
        for i, (n, d) in enumerate(zip(sizes, d_outputs)):
            dY[i, :n] = model.ops.to_numpy(d)
        dX = model.ops.to_numpy(backprop_head(dY))
        if backprop_transformer is not None:
            backprop_transformer([model.ops.asarray2f(dX[i, : len(host[i])]) for i in scored])
        return docs

    return outputs, backprop
