"""The parser's loss and its gradient, from what its model gives (`ml.parser.ParseScores` and the
relation logits at the gold arcs) and the gold rows of a `ParseBatch`, as the segmenter's is
computed from its scores in `pipeline.loss`: the component backpropagates the gradient.

The loss is the sum of four token-averaged cross-entropies: heads (over every head candidate, the
root included), relations (at the gold head), UPOS and XPOS (a batch without XPOS, HK's and CFL's
treebanks, adds none); and of the entity tags' linear-chain CRF (`nn.tag_crf`: IOB2's constraints,
learnt transitions, words of unknown tag free), averaged over the words of known tag (a batch without
entity annotation adds none).
"""
from typing import Callable, NamedTuple, Optional, Tuple

import numpy

from spacy_gdcws.data.features.gold import IGNORE
from spacy_gdcws.ml.parser import ArcStates, ParseScores, arc_states, scatter_states

#: the model's relation call: `ArcStates` in, the relation logits and their backprop (to `ArcStates`) out
LabelCall = Callable[[ArcStates], Tuple[numpy.ndarray, Callable[[numpy.ndarray], ArcStates]]]


class EntityChain(NamedTuple):
    """What the entity tags' CRF needs besides the scores: each sentence's words (B,), IOB2's
    constraints (`decoding.entities.allowed_steps`: (K, K) and (K,) bool) and the row that begins an
    entity of each tag's type (K,)."""

    lengths: numpy.ndarray
    allowed: numpy.ndarray
    first: numpy.ndarray
    begins: numpy.ndarray


class GoldArcs(NamedTuple):
    """The arcs whose relation is scored in training: word `words[n]` of sentence `sentences[n]`
    under its gold head row `heads[n]` (0 = the root), relation row `labels[n]`."""

    sentences: numpy.ndarray
    words: numpy.ndarray
    heads: numpy.ndarray
    labels: numpy.ndarray


def gold_arcs(gold: Tuple[numpy.ndarray, ...]) -> GoldArcs:
    """The arcs of a batch's gold (heads, labels, UPOS, XPOS, entity tag rows, each (B, T)) that have
    both a head and a relation."""
    heads, labels = gold[0], gold[1]
    sentences, words = numpy.nonzero((labels != IGNORE) & (heads != IGNORE))
    return GoldArcs(sentences, words, heads[sentences, words], labels[sentences, words])


def parser_loss(scores: ParseScores, label_logits: Optional[numpy.ndarray], gold: Tuple[numpy.ndarray, ...],
                arcs: GoldArcs, chain: Optional[EntityChain] = None) -> Tuple[float, ParseScores, Optional[numpy.ndarray]]:
    """The loss of a batch and its gradient.

    scores (ParseScores): The model's scores of the batch.
    label_logits (Optional[numpy.ndarray]): (N, L) relation logits of the gold arcs `arcs` (None
        where the batch has none).
    gold (Tuple[numpy.ndarray, ...]): The batch's gold rows (heads, labels, UPOS, XPOS, entity
        tags), each (B, T).
    arcs (GoldArcs): The arcs `label_logits` scores (`gold_arcs(gold)`).
    chain (Optional[EntityChain]): The entity CRF's lengths and constraints (None: no entity tags).
    RETURNS (Tuple[float, ParseScores, Optional[numpy.ndarray]]): The loss, the gradient of the
        arc, UPOS, XPOS and entity tag logits and of the entity transitions (the relation
        projections' is zero here: it comes back through the relation call), and the gradient of
        `label_logits`.
    """
    import torch
    from torch.nn import functional

    from spacy_gdcws.nn.tag_crf import partial_nll

    heads, _, upos_gold, xpos_gold, ents_gold = (torch.from_numpy(a) for a in gold)
    arc, upos, xpos, ents, steps = (torch.from_numpy(a).requires_grad_()
                                    for a in (scores.arcs, scores.upos, scores.xpos, scores.ents, scores.ent_steps))
    loss = functional.cross_entropy(arc.flatten(0, 1), heads.flatten(), ignore_index=IGNORE)
    labels = None
    if label_logits is not None and len(arcs.labels):
        labels = torch.from_numpy(label_logits).requires_grad_()
        loss = loss + functional.cross_entropy(labels, torch.from_numpy(arcs.labels))
    loss = loss + functional.cross_entropy(upos.flatten(0, 1), upos_gold.flatten(), ignore_index=IGNORE)
    if bool((xpos_gold != IGNORE).any()):
        loss = loss + functional.cross_entropy(xpos.flatten(0, 1), xpos_gold.flatten(), ignore_index=IGNORE)
    n_known = int((ents_gold != IGNORE).sum())
    if chain is not None and ents.shape[-1] and n_known:
        allowed, first, begins, lengths = (torch.from_numpy(a) for a in (chain.allowed, chain.first, chain.begins,
                                                                           chain.lengths))
        loss = loss + partial_nll(ents, steps, ents_gold, lengths, allowed, first, begins) / n_known
    loss.backward()
    d_scores = ParseScores(_grad(arc), numpy.zeros_like(scores.dep_states), numpy.zeros_like(scores.head_states),
                           _grad(upos), _grad(xpos), _grad(ents), _grad(steps))
    return float(loss.detach()), d_scores, None if labels is None else _grad(labels)


def batch_loss(scores: ParseScores, gold: Tuple[numpy.ndarray, ...], label_call: LabelCall,
               chain: Optional[EntityChain] = None) -> Tuple[float, ParseScores]:
    """The loss of a batch and the whole gradient of its scores: the relations of the gold arcs are
    scored by `label_call` (the model's relation call: `begin_update` in `update`, a call that
    accumulates no parameter gradient in `get_loss`), and the gradient of those logits goes back
    through it onto the relation projections of the words and heads (`scatter_states`).

    scores (ParseScores): The model's scores of the batch.
    gold (Tuple[numpy.ndarray, ...]): The batch's gold rows (heads, labels, UPOS, XPOS, entity tags), each (B, T).
    label_call (LabelCall): The relation call.
    chain (Optional[EntityChain]): The entity CRF's lengths and constraints (None: no entity tags).
    RETURNS (Tuple[float, ParseScores]): The loss and the gradient of `scores`.
    """
    arcs = gold_arcs(gold)
    label_logits, backprop_labels = None, None
    if len(arcs.labels):
        label_logits, backprop_labels = label_call(arc_states(scores, arcs.sentences, arcs.words, arcs.heads))
    loss, d_scores, d_labels = parser_loss(scores, label_logits, gold, arcs, chain)
    if backprop_labels is not None and d_labels is not None:
        d_dep, d_head = scatter_states(backprop_labels(d_labels), scores, arcs.sentences, arcs.words, arcs.heads)
        d_scores = d_scores._replace(dep_states=d_dep, head_states=d_head)
    return loss, d_scores


def _grad(tensor) -> numpy.ndarray:
    if tensor.grad is None:
        return numpy.zeros(tuple(tensor.shape), dtype=numpy.float32)
    return tensor.grad.numpy()
