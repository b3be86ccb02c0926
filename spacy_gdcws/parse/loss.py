"""The parser's loss and its gradient, from what its model gives (`ml.parser.ParseScores` and the
relation logits at the gold arcs) and the gold rows of a `ParseBatch`, as the segmenter's is
computed from its scores in `pipeline.loss`: the component backpropagates the gradient.

The loss is the sum of four token-averaged cross-entropies: heads (over every head candidate, the
root included), relations (at the gold head), UPOS and XPOS (a batch without XPOS, HK's and CFL's
treebanks, adds none).
"""
from typing import Callable, NamedTuple, Optional, Tuple

import numpy

from spacy_gdcws.data.features.gold import IGNORE
from spacy_gdcws.ml.parser import ArcStates, ParseScores, arc_states, scatter_states

#: the model's relation call: `ArcStates` in, the relation logits and their backprop (to `ArcStates`) out
LabelCall = Callable[[ArcStates], Tuple[numpy.ndarray, Callable[[numpy.ndarray], ArcStates]]]


class GoldArcs(NamedTuple):
    """The arcs whose relation is scored in training: word `words[n]` of sentence `sentences[n]`
    under its gold head row `heads[n]` (0 = the root), relation row `labels[n]`."""

    sentences: numpy.ndarray
    words: numpy.ndarray
    heads: numpy.ndarray
    labels: numpy.ndarray


def gold_arcs(gold: Tuple[numpy.ndarray, ...]) -> GoldArcs:
    """The arcs of a batch's gold (heads, labels, UPOS, XPOS rows, each (B, T)) that have both a
    head and a relation."""
    heads, labels = gold[0], gold[1]
    sentences, words = numpy.nonzero((labels != IGNORE) & (heads != IGNORE))
    return GoldArcs(sentences, words, heads[sentences, words], labels[sentences, words])


def parser_loss(scores: ParseScores, label_logits: Optional[numpy.ndarray], gold: Tuple[numpy.ndarray, ...],
                arcs: GoldArcs) -> Tuple[float, ParseScores, Optional[numpy.ndarray]]:
    """The loss of a batch and its gradient.

    scores (ParseScores): The model's scores of the batch.
    label_logits (Optional[numpy.ndarray]): (N, L) relation logits of the gold arcs `arcs` (None
        where the batch has none).
    gold (Tuple[numpy.ndarray, ...]): The batch's gold rows (heads, labels, UPOS, XPOS), each (B, T).
    arcs (GoldArcs): The arcs `label_logits` scores (`gold_arcs(gold)`).
    RETURNS (Tuple[float, ParseScores, Optional[numpy.ndarray]]): The loss, the gradient of the
        arc, UPOS and XPOS logits (the relation projections' is zero here: it comes back through
        the relation call), and the gradient of `label_logits`.
    """
    import torch
    from torch.nn import functional

    heads, _, upos_gold, xpos_gold = (torch.from_numpy(a) for a in gold)
    arc, upos, xpos = (torch.from_numpy(a).requires_grad_() for a in (scores.arcs, scores.upos, scores.xpos))
    loss = functional.cross_entropy(arc.flatten(0, 1), heads.flatten(), ignore_index=IGNORE)
    labels = None
    if label_logits is not None and len(arcs.labels):
        labels = torch.from_numpy(label_logits).requires_grad_()
        loss = loss + functional.cross_entropy(labels, torch.from_numpy(arcs.labels))
    loss = loss + functional.cross_entropy(upos.flatten(0, 1), upos_gold.flatten(), ignore_index=IGNORE)
    if bool((xpos_gold != IGNORE).any()):
        loss = loss + functional.cross_entropy(xpos.flatten(0, 1), xpos_gold.flatten(), ignore_index=IGNORE)
    loss.backward()
    d_scores = ParseScores(_grad(arc), numpy.zeros_like(scores.dep_states), numpy.zeros_like(scores.head_states),
                           _grad(upos), _grad(xpos))
    return float(loss.detach()), d_scores, None if labels is None else _grad(labels)


def batch_loss(scores: ParseScores, gold: Tuple[numpy.ndarray, ...], label_call: LabelCall) -> Tuple[float, ParseScores]:
    """The loss of a batch and the whole gradient of its scores: the relations of the gold arcs are
    scored by `label_call` (the model's relation call: `begin_update` in `update`, a call that
    accumulates no parameter gradient in `get_loss`), and the gradient of those logits goes back
    through it onto the relation projections of the words and heads (`scatter_states`).

    scores (ParseScores): The model's scores of the batch.
    gold (Tuple[numpy.ndarray, ...]): The batch's gold rows (heads, labels, UPOS, XPOS), each (B, T).
    label_call (LabelCall): The relation call.
    RETURNS (Tuple[float, ParseScores]): The loss and the gradient of `scores`.
    """
    arcs = gold_arcs(gold)
    label_logits, backprop_labels = None, None
    if len(arcs.labels):
        label_logits, backprop_labels = label_call(arc_states(scores, arcs.sentences, arcs.words, arcs.heads))
    loss, d_scores, d_labels = parser_loss(scores, label_logits, gold, arcs)
    if backprop_labels is not None and d_labels is not None:
        d_dep, d_head = scatter_states(backprop_labels(d_labels), scores, arcs.sentences, arcs.words, arcs.heads)
        d_scores = d_scores._replace(dep_states=d_dep, head_states=d_head)
    return loss, d_scores


def _grad(tensor) -> numpy.ndarray:
    if tensor.grad is None:
        return numpy.zeros(tuple(tensor.shape), dtype=numpy.float32)
    return tensor.grad.numpy()
