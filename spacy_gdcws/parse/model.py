"""The registered thinc model of the parser: a `ParseBatch` in, the torch module's scores out
(or, with gold in the batch, its loss: the module owns its loss, as the segmenter's scorers do)."""
from functools import partial
from typing import Any, Callable, List, Tuple

import numpy
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, xp2torch

from spacy_gdcws.ml.wrapper import wrap_torch
from spacy_gdcws.parse.features import FEATURES, ParseBatch

#: the predicted arrays: arc log-probabilities (B, T, T + 1), the words' and the heads' relation
#: states (B, T, d + 1) and (B, T + 1, d + 1), UPOS and XPOS rows (B, T)
Predicted = Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]


@registry.architectures("spacy_gdcws.BiaffineParser.v1")
def build_biaffine_parser(
    feature_rows: List[int],
    feature_widths: List[int],
    char_rows: int = 5000,
    char_width: int = 50,
    word_dropout: float = 0.25,
    encoder: str = "lstm",
    lstm_width: int = 200,
    lstm_depth: int = 2,
    arc_width: int = 256,
    label_width: int = 64,
    n_upos: int = 24,
    n_xpos: int = 96,
    n_labels: int = 64,
    dropout: float = 0.33,
) -> Model[ParseBatch, Any]:
    """A biaffine parser and tagger on words (Dozat & Manning 2017): hashed word, character and
    lexicon features, a BiLSTM, UPOS and XPOS classifiers, biaffine arc and relation scorers.

    feature_rows, feature_widths (List[int]): One table per feature column, in the order of
        `spacy_gdcws.parse.features.FEATURES` (form, first and last character, lexicon tag,
        length, lexicon frequency).
    char_rows, char_width (int): The table of each word's characters (mean-pooled; width 0 = off).
    word_dropout (float): The probability that a training word's form is replaced by the unknown row.
    encoder (str): "lstm" (a BiLSTM over the words) or "cnn" (residual convolutions, cheaper).
    lstm_width, lstm_depth (int): The encoder's width per direction (the CNN's: twice it) and layers.
    arc_width, label_width (int): The arc and relation projections' widths.
    n_upos, n_xpos, n_labels (int): Output rows (at least the labels the training data has).
    dropout (float): Dropout in the module (spaCy's `[training] dropout` does not reach torch).
    RETURNS (Model[ParseBatch, Any]): The model; `model.attrs["feature_rows"]` etc. are read by
        the component's featurizer.
    """
    if len(feature_rows) != len(FEATURES):
        from spacy_gdcws.errors import Errors

        raise ValueError(Errors.E115.format(n=len(feature_rows), names=", ".join(FEATURES)))
    # torch is imported when a model is built, not when spaCy loads the factories (DESIGN.md §4)
    from spacy_gdcws.nn.word_parser import BiaffineParserNet

    net = BiaffineParserNet(feature_rows, feature_widths, char_rows=char_rows, char_width=char_width,
                            word_dropout=word_dropout, encoder=encoder, lstm_width=lstm_width, lstm_depth=lstm_depth,
                            arc_width=arc_width, label_width=label_width, n_upos=n_upos, n_xpos=n_xpos,
                            n_labels=n_labels, root_label=0, dropout=dropout)
    model = wrap_torch(net, _convert_inputs, mixed_precision=False)
    model.attrs["convert_outputs"] = _convert_outputs
    model.attrs.update({"feature_rows": list(feature_rows), "char_rows": char_rows,
                        "n_upos": n_upos, "n_xpos": n_xpos, "n_labels": n_labels})
    return model


def _convert_inputs(model: Model, batch: ParseBatch, is_train: bool) -> Tuple[ArgsKwargs, Callable]:
    device = model.shims[0].device
    args: List[Any] = [xp2torch(model.ops.asarray(a), device=device) for a in (batch.feats, batch.chars, batch.lengths)]
    kwargs = {}
    if batch.gold is not None:
        kwargs["gold"] = tuple(xp2torch(model.ops.asarray(a), device=device) for a in batch.gold)
    return ArgsKwargs(args=tuple(args), kwargs=kwargs), _no_input_gradient


def _no_input_gradient(d_inputs: Any) -> None:
    return None


def _convert_outputs(model: Model, X_Ytorch: Tuple[Any, Any], is_train: bool) -> Tuple[Any, Callable]:
    """The loss as a float (training with gold), or the predicted arrays on the host."""
    _, Ytorch = X_Ytorch
    if not isinstance(Ytorch, tuple):
        return float(Ytorch.detach()), partial(_loss_gradient, Ytorch)
    out = tuple(y.detach().cpu().numpy() for y in Ytorch)
    return out, _no_input_gradient


def label_rows(model: Model, dep_states: numpy.ndarray, head_states: numpy.ndarray,
               is_root: numpy.ndarray) -> numpy.ndarray:
    """The best relation row of N decoded arcs (the module's `label_rows`), from the relation
    states `predict` gave, gathered at each arc's dependent and head."""
    import torch

    shim = model.shims[0]
    device = shim.device
    with torch.inference_mode():
        best = shim.net.label_rows(torch.as_tensor(dep_states, device=device),
                                   torch.as_tensor(head_states, device=device),
                                   torch.as_tensor(is_root, device=device))
    return best.cpu().numpy()


def _loss_gradient(loss: Any, d_loss: float) -> ArgsKwargs:
    import torch

    return ArgsKwargs(args=((loss,),), kwargs={"grad_tensors": (torch.full_like(loss, float(d_loss)),)})
