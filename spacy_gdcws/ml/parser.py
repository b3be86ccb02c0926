"""The registered thinc model of the parser, `spacy_gdcws.BiaffineParser.v3`: one torch module
(`nn.word_parser.BiaffineParserNet`) called for two tasks, as spacy-experimental's arc predicter
and arc labeler are two models:

- a `ParseBatch` in -> `ParseScores` out: arc logits, the relation projections of the words and of
  their head candidates, UPOS, XPOS and entity tag logits;
- `ArcStates` in (the relation projections of chosen arcs, `arc_states`) -> relation logits (N, L).

The component decodes between the two calls (`parse.component.BiaffineParser.predict`) and, in
training, calls both on the gold arcs and backpropagates the loss of `parse.loss`. The output sizes
(UPOS, XPOS and relation rows) are read off the training data at `initialize` (`size_outputs`):
the torch module is built then, and before a saved model's weights load. `v2` (`legacy.parser`) is
`v3` without the entity tagger.
"""
from functools import partial
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union

import numpy
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, deserialize_attr, serialize_attr, torch2xp, xp2torch
from thinc.layers.pytorchwrapper import forward as pytorch_forward

from spacy_gdcws.data.features.words import FEATURES, ParseBatch
from spacy_gdcws.data.normalize import CharNormalizer, check_spec, get_normalizer
from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.shims import InPlacePyTorchShim
from spacy_gdcws.ml.wrapper import no_input_gradient, output_gradient, register_fork_handler

#: the output sizes, read off the training data (thinc dims of the model); `n_ents` may be 0
OUTPUT_DIMS = ("n_upos", "n_xpos", "n_labels", "n_ents")
#: the relation row of the root (the component keeps the root's label first)
ROOT_LABEL = 0
#: the model's attr that holds its character map
NORMALIZER = "normalizer"


class ParseScores(NamedTuple):
    """What the model gives for a `ParseBatch` of B sentences padded to T words (float32 arrays).

    arcs: (B, T, T + 1) arc logits (word k takes head j: 0 = the root, k' + 1 = word k'), -inf where
        no arc may go; dep_states: (B, T, d) the words' relation projections; head_states:
        (B, T + 1, d) the head candidates' (the root first); upos, xpos, ents: (B, T, n) logits (ents
        (B, T, 0) for a model without an entity tagger); ent_steps: (n, n) the entity tags' CRF
        transition scores ((0, 0) without).
    """

    arcs: numpy.ndarray
    dep_states: numpy.ndarray
    head_states: numpy.ndarray
    upos: numpy.ndarray
    xpos: numpy.ndarray
    ents: numpy.ndarray
    ent_steps: numpy.ndarray


class ArcStates(NamedTuple):
    """The relation projections of N arcs' dependents and heads, each with a column of ones
    (N, d + 1): the input of the model's relation call."""

    dep: numpy.ndarray
    head: numpy.ndarray


@registry.architectures("spacy_gdcws.BiaffineParser.v3")
def build_biaffine_parser(feature_rows: List[int], feature_widths: List[int], char_rows: int, char_width: int,
                          normalize: str, word_dropout: float, encoder: str, lstm_width: int, lstm_depth: int,
                          arc_width: int, label_width: int, entity_width: int,
                          dropout: float) -> Model[Union[ParseBatch, ArcStates], Any]:
    """A biaffine parser and tagger on words (Dozat & Manning 2017) with an entity tagger: hashed word,
    character and lexicon features, a BiLSTM, UPOS and XPOS classifiers, biaffine arc and relation
    scorers, and IOB2 entity tags on the same states. Its output rows are the labels of the
    training data (`initialize`): no entity tagger where the data has no entities.

    feature_rows, feature_widths (List[int]): One table per feature column, in the order of
        `spacy_gdcws.data.features.words.FEATURES` (form, first and last character, lexicon tag,
        length, lexicon frequency, and optionally the treebank: a table of one row per training
        treebank after the padding row, which lets treebanks of other conventions train the
        parser without teaching the first treebank's parse theirs).
    char_rows, char_width (int): The table of each word's characters (mean-pooled; width 0 = off).
    normalize (str): The characters the features read (`data.normalize`, e.g. "t2s+width", as the
        segmenter's embedding reads them: traditional and full-width text meet the simplified words
        of the training data; "" = the text as written). The words written to the doc stay the input's.
    word_dropout (float): The probability that a training word's form is replaced by the unknown row.
    encoder (str): "lstm" (a BiLSTM over the words) or "cnn" (residual convolutions, cheaper).
    lstm_width, lstm_depth (int): The encoder's width per direction (the CNN's: twice it) and layers.
    arc_width, label_width (int): The arc and relation projections' widths.
    entity_width (int): The entity tagger's hidden width.
    dropout (float): Dropout in the module (spaCy's `[training] dropout` does not reach torch).
    RETURNS (Model[Union[ParseBatch, ArcStates], Any]): The model.
    """
    net_args = dict(feature_rows=list(feature_rows), feature_widths=list(feature_widths), char_rows=char_rows,
                    char_width=char_width, word_dropout=word_dropout, encoder=encoder, lstm_width=lstm_width,
                    lstm_depth=lstm_depth, arc_width=arc_width, label_width=label_width, entity_width=entity_width,
                    dropout=dropout)
    return parser_model(net_args, {name: None for name in OUTPUT_DIMS}, normalize)


def parser_model(net_args: Dict[str, Any], sizes: Dict[str, Optional[int]], normalize: str = "") -> Model:
    """The parser's thinc model for the torch module of `net_args`; with every size of `sizes`
    given, its module is built at once (`spacy_gdcws.BiaffineParser.v1`'s sizes), else at
    `initialize`, once `size_outputs` has set them."""
    if len(net_args["feature_rows"]) not in (len(FEATURES) - 1, len(FEATURES)):
        raise ValueError(Errors.E115.format(n=len(net_args["feature_rows"]), names=", ".join(FEATURES)))
    check_spec(normalize)
    register_fork_handler()
    model: Model = Model(
        "biaffine_parser",
        pytorch_forward,
        init=_init,
        attrs={"convert_inputs": _convert_inputs, "convert_outputs": _convert_outputs, "net_args": net_args,
               "feature_rows": list(net_args["feature_rows"]), "char_rows": net_args["char_rows"],
               # the character map the features read, saved with the model (`data.normalize`)
               NORMALIZER: get_normalizer(normalize)},
        dims=dict(sizes),
    )
    if all(v is not None for v in sizes.values()):
        _build(model)
    return model


@serialize_attr.register(CharNormalizer)
def _serialize_normalizer(_: Any, value: CharNormalizer, name: str, model: Model) -> bytes:
    return value.to_bytes()


@deserialize_attr.register(CharNormalizer)
def _deserialize_normalizer(current: CharNormalizer, value: bytes, name: str, model: Model) -> CharNormalizer:
    # the map saved with the model, whatever OpenCC is installed (or none)
    return CharNormalizer.from_bytes(value)


def size_outputs(model: Model, sizes: Dict[str, int]) -> None:
    """Give the model the numbers of UPOS, XPOS, relation labels and entity tags (`OUTPUT_DIMS`; no
    entity tags: none), then build its module if it has none. A model built with fixed sizes (`v1`)
    must have at least as many rows (E118)."""
    for name in OUTPUT_DIMS:
        n = int(sizes.get(name, 0)) if name == "n_ents" else max(int(sizes[name]), 1)
        if not model.has_dim(name):
            model.set_dim(name, n)
        elif model.get_dim(name) < n:
            raise ValueError(Errors.E118.format(kind=name, n=n, rows=model.get_dim(name)))
    if not model.shims:
        _build(model)


def _init(model: Model, X: Any = None, Y: Any = None) -> None:
    if not model.shims:
        if not all(model.has_dim(name) for name in OUTPUT_DIMS):
            raise ValueError(Errors.E131.format(dims=", ".join(OUTPUT_DIMS)))
        _build(model)


def _build(model: Model) -> None:
    # torch is imported when a model is built, not when spaCy loads the factories (DESIGN.md §4)
    from spacy_gdcws.nn.word_parser import BiaffineParserNet

    net = BiaffineParserNet(**model.attrs["net_args"], n_upos=model.get_dim("n_upos"), n_xpos=model.get_dim("n_xpos"),
                            n_labels=model.get_dim("n_labels"), n_ents=model.get_dim("n_ents"), root_label=ROOT_LABEL)
    model.shims.append(InPlacePyTorchShim(net, mixed_precision=False))


def _convert_inputs(model: Model, X: Union[ParseBatch, ArcStates], is_train: bool) -> Tuple[ArgsKwargs, Callable]:
    """A `ParseBatch` (row ids: no gradient) for the scoring task, or `ArcStates` for the relation
    task (their gradient goes back to the scores' relation projections)."""
    device = model.shims[0].device
    if isinstance(X, ArcStates):
        dep, head = (xp2torch(model.ops.asarray(a), requires_grad=is_train, device=device) for a in X)
        return ArgsKwargs(args=(dep, head), kwargs={"task": "label"}), _states_gradient
    args = tuple(xp2torch(model.ops.asarray(a), device=device) for a in (X.feats, X.chars, X.lengths))
    return ArgsKwargs(args=args, kwargs={"task": "score"}), no_input_gradient


def _states_gradient(d_inputs: ArgsKwargs) -> ArcStates:
    return ArcStates(*(torch2xp(g) for g in d_inputs.args))


def _convert_outputs(model: Model, X_Ytorch: Tuple[Any, Any], is_train: bool) -> Tuple[Any, Callable]:
    """The outputs as float32 host arrays (`ParseScores`, or relation logits; bf16 autocast's too);
    their gradients back."""
    _, Ytorch = X_Ytorch
    outputs = Ytorch if isinstance(Ytorch, tuple) else (Ytorch,)
    arrays = [y.detach().float().cpu().numpy() for y in outputs]
    Y = ParseScores(*arrays) if isinstance(Ytorch, tuple) else arrays[0]
    return Y, partial(output_gradient, outputs, model.shims[0].device)


def arc_states(scores: ParseScores, sentences: numpy.ndarray, words: numpy.ndarray,
               heads: numpy.ndarray) -> ArcStates:
    """The relation projections of N arcs (word `words[n]` of sentence `sentences[n]` under head
    row `heads[n]`, 0 = the root), each with a column of ones: the relation call's input."""
    dep = scores.dep_states[sentences, words]
    head = scores.head_states[sentences, heads]
    ones = numpy.ones((len(dep), 1), dtype=dep.dtype)
    return ArcStates(numpy.concatenate([dep, ones], 1), numpy.concatenate([head, ones], 1))


def scatter_states(d_states: ArcStates, scores: ParseScores, sentences: numpy.ndarray, words: numpy.ndarray,
                   heads: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """The gradient of `arc_states`: the arcs' gradients summed back onto the words' and the head
    candidates' relation projections (the column of ones has none)."""
    d_dep = numpy.zeros_like(scores.dep_states)
    d_head = numpy.zeros_like(scores.head_states)
    numpy.add.at(d_dep, (sentences, words), d_states.dep[:, :-1])
    numpy.add.at(d_head, (sentences, heads), d_states.head[:, :-1])
    return d_dep, d_head


def relation_input_gradient(model: Model, states: ArcStates, d_logits: numpy.ndarray) -> ArcStates:
    """The gradient of the relation call's inputs `states` for the gradient `d_logits` of its
    relation logits, computed on the model's torch module without accumulating any parameter
    gradient (`torch.autograd.grad`): what `get_loss` reports, where `update` backpropagates
    through `begin_update` instead."""
    import torch

    shim = model.shims[0]
    dep, head = (xp2torch(model.ops.asarray(a), requires_grad=True, device=shim.device) for a in states)
    with torch.enable_grad():
        logits = shim.net(dep, head, task="label")
        d_dep, d_head = torch.autograd.grad(logits, (dep, head),
                                            torch.as_tensor(d_logits, device=shim.device, dtype=logits.dtype))
    return ArcStates(torch2xp(d_dep), torch2xp(d_head))


def arc_log_probs(arcs: numpy.ndarray) -> numpy.ndarray:
    """Log-probabilities of each word's head (a log-softmax over its row): what trees are decoded from."""
    import torch

    with torch.inference_mode():
        return torch.log_softmax(torch.from_numpy(arcs), -1).numpy()
