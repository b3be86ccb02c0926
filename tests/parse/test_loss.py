"""The parser's hand-written glue, each piece against one torch autograd graph: `parse.loss`'s four
cross-entropies and their gradient, `arc_states` / `scatter_states` (an index and its adjoint),
the join of the two model calls' gradients in `update`, and `get_loss` (the same loss, the same
gradient, nothing accumulated)."""
from typing import List

import numpy
import pytest
import spacy
import torch
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import fix_random_seed
from torch.nn import functional

from spacy_gdcws.data.features.gold import IGNORE
from spacy_gdcws.decoding.entities import allowed_steps, begin_rows, entity_tags
from spacy_gdcws.ml.parser import ArcStates, ParseScores, arc_states, scatter_states
from spacy_gdcws.nn.tag_crf import partial_nll
from spacy_gdcws.parse.loss import EntityChain, gold_arcs, parser_loss
from spacy_gdcws.readers.corpus import sentence_to_doc
from spacy_gdcws.readers.iob2 import read_iob2
from tests.parse.test_component import SMALL
from tests.util import ROOT

TAGS = entity_tags(["LOC", "PER"])


def _random_batch(seed: int = 0, n_labels: int = 5):
    """Random scores of 3 sentences of up to 6 words, and gold rows with some unknown."""
    rng = numpy.random.default_rng(seed)
    lengths = numpy.array([6, 4, 5])
    b, t, d = len(lengths), int(lengths.max()), 7
    arcs = rng.normal(size=(b, t, t + 1)).astype("f")
    for s, n in enumerate(lengths):
        arcs[s, :, n + 1:] = -numpy.inf
        arcs[s, numpy.arange(t), numpy.arange(t) + 1] = -numpy.inf
    scores = ParseScores(arcs, rng.normal(size=(b, t, d)).astype("f"), rng.normal(size=(b, t + 1, d)).astype("f"),
                         rng.normal(size=(b, t, 4)).astype("f"), rng.normal(size=(b, t, 3)).astype("f"),
                         rng.normal(size=(b, t, len(TAGS))).astype("f"), rng.normal(size=(len(TAGS),) * 2).astype("f"))
    heads = numpy.full((b, t), IGNORE)
    labels, upos, xpos, ents = (numpy.full((b, t), IGNORE) for _ in range(4))
    for s, n in enumerate(lengths):
        heads[s, :n] = [0] + [int(rng.integers(1, n + 1)) for _ in range(n - 1)]
        heads[s, 1:n] = numpy.where(heads[s, 1:n] == numpy.arange(2, n + 1), 0, heads[s, 1:n])
        labels[s, :n] = rng.integers(0, n_labels, n)
        upos[s, :n] = rng.integers(0, 4, n)
        xpos[s, :n] = rng.integers(0, 3, n)
    ents[0, :6] = [0, 1, 2, 0, 3, 4]  # O B-LOC I-LOC O B-PER I-PER
    ents[1, :4] = [3, IGNORE, 0, 0]  # sentence 2 has no entity annotation
    labels[1, 2] = IGNORE  # a word with a head but no known relation
    upos[2, 0] = IGNORE
    return scores, (heads, labels, upos, xpos, ents), rng, lengths


def _chain(lengths):
    return EntityChain(lengths, *allowed_steps(TAGS), begin_rows(TAGS))


def test_parser_loss_is_four_cross_entropies_and_the_crf_with_autograds_gradient():
    scores, gold, rng, lengths = _random_batch()
    arcs = gold_arcs(gold)
    label_logits = rng.normal(size=(len(arcs.labels), 5)).astype("f")
    loss, d_scores, d_labels = parser_loss(scores, label_logits, gold, arcs, _chain(lengths))
    tensors = {k: torch.tensor(getattr(scores, k), requires_grad=True) for k in ("arcs", "upos", "xpos", "ents", "ent_steps")}
    labels = torch.tensor(label_logits, requires_grad=True)
    heads, _, upos, xpos, ents = (torch.from_numpy(g) for g in gold)
    allowed, first = (torch.from_numpy(a) for a in allowed_steps(TAGS))
    crf = partial_nll(tensors["ents"], tensors["ent_steps"], ents, torch.from_numpy(lengths), allowed, first,
                      torch.from_numpy(begin_rows(TAGS))) / int((ents != IGNORE).sum())
    expected = (functional.cross_entropy(tensors["arcs"].flatten(0, 1), heads.flatten(), ignore_index=IGNORE)
                + functional.cross_entropy(labels, torch.from_numpy(arcs.labels))
                + functional.cross_entropy(tensors["upos"].flatten(0, 1), upos.flatten(), ignore_index=IGNORE)
                + functional.cross_entropy(tensors["xpos"].flatten(0, 1), xpos.flatten(), ignore_index=IGNORE)
                + crf)
    expected.backward()
    assert loss == pytest.approx(float(expected.detach()), rel=1e-5)
    for key in ("arcs", "upos", "xpos", "ents", "ent_steps"):
        assert numpy.allclose(getattr(d_scores, key), tensors[key].grad.numpy(), atol=1e-6), key
    # without the chain (a parser without entity tags) the entity scores get no gradient
    assert not parser_loss(scores, label_logits, gold, arcs)[1].ents.any()
    assert numpy.allclose(d_labels, labels.grad.numpy(), atol=1e-6)
    # the relation projections get theirs back through the relation call, not here
    assert not d_scores.dep_states.any() and not d_scores.head_states.any()
    # and a numerical check of one arc logit, against the cross-entropies themselves
    up, down = scores.arcs.copy(), scores.arcs.copy()
    up[0, 1, 0] += 1e-2
    down[0, 1, 0] -= 1e-2
    numeric = (parser_loss(scores._replace(arcs=up), label_logits, gold, arcs)[0]
               - parser_loss(scores._replace(arcs=down), label_logits, gold, arcs)[0]) / 2e-2
    assert d_scores.arcs[0, 1, 0] == pytest.approx(numeric, abs=1e-3)


def test_gold_arcs_are_the_words_with_a_head_and_a_relation():
    _, gold, _, _ = _random_batch()
    arcs = gold_arcs(gold)
    heads, labels = gold[0], gold[1]
    known = (heads != IGNORE) & (labels != IGNORE)
    assert len(arcs.words) == int(known.sum()) and (1, 2) not in set(zip(arcs.sentences, arcs.words))
    assert (arcs.heads == heads[arcs.sentences, arcs.words]).all()
    assert (arcs.labels == labels[arcs.sentences, arcs.words]).all()


def test_scatter_states_is_the_gradient_of_arc_states():
    """`arc_states` picks rows (a word's and its head's relation projections, a column of ones
    added); `scatter_states` must be its adjoint: autograd's gradient of the same indexing, with
    rows picked twice (a head of several words) summed."""
    scores, gold, rng, _ = _random_batch(1)
    arcs = gold_arcs(gold)
    states = arc_states(scores, arcs.sentences, arcs.words, arcs.heads)
    assert states.dep.shape == (len(arcs.words), scores.dep_states.shape[-1] + 1)
    assert (states.dep[:, -1] == 1).all() and (states.head[:, -1] == 1).all()
    d_states = ArcStates(rng.normal(size=states.dep.shape).astype("f"), rng.normal(size=states.head.shape).astype("f"))
    d_dep, d_head = scatter_states(d_states, scores, arcs.sentences, arcs.words, arcs.heads)
    dep = torch.tensor(scores.dep_states, requires_grad=True)
    head = torch.tensor(scores.head_states, requires_grad=True)
    s, w, h = (torch.from_numpy(a) for a in (arcs.sentences, arcs.words, arcs.heads))
    picked = [torch.cat([x, torch.ones(len(x), 1)], 1) for x in (dep[s, w], head[s, h])]
    torch.autograd.backward(picked, [torch.from_numpy(d_states.dep), torch.from_numpy(d_states.head)])
    assert numpy.allclose(d_dep, dep.grad.numpy(), atol=1e-6)
    assert numpy.allclose(d_head, head.grad.numpy(), atol=1e-6)
    assert len(set(arcs.heads.tolist())) < len(arcs.heads)  # some head row is picked more than once


@pytest.fixture
def small_parser(ud_sentences):
    """A blank pipeline's `gdcws_parser` (no dropout anywhere, so train mode is deterministic),
    initialized on 8 UD sentences with their entities (Universal NER's), and their examples on gold words."""
    from dataclasses import replace

    fix_random_seed(0)
    nlp = spacy.blank("zh")
    parser = nlp.add_pipe("gdcws_parser", config={"model": SMALL})
    uner = list(read_iob2(ROOT / "assets" / "uner_zh" / "zh_gsdsimp-ud-dev.iob2"))[:8]
    golds = [sentence_to_doc(nlp.vocab, replace(s, meta={**s.meta, "entities": u.meta["entities"]}))
             for s, u in zip(ud_sentences[:8], uner)]
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in g], spaces=[False] * len(g)), g) for g in golds]
    nlp.initialize(lambda: examples)
    # the biaffine weights start at zero (Dozat & Manning): with them, no gradient reaches the projections
    with torch.no_grad():
        for biaffine in (_net(parser).arc_attn, _net(parser).label_attn):
            biaffine.weight.normal_(0.0, 0.1)
    return parser, examples


def _net(parser):
    return parser.model.shims[0].net


def _one_graph_loss(parser, examples: List[Example]) -> torch.Tensor:
    """The parser's loss as one torch graph: the scoring call, the relation call at the gold arcs
    on the scoring call's own projections, the four cross-entropies and the entity CRF."""
    batch = parser.batch(examples)
    net = _net(parser)
    arcs, dep, head, upos, xpos, ents, steps = net(*(torch.from_numpy(a) for a in (batch.feats, batch.chars, batch.lengths)))
    gold = gold_arcs(batch.gold)
    s, w, h = (torch.from_numpy(a) for a in (gold.sentences, gold.words, gold.heads))
    ones = torch.ones(len(s), 1)
    labels = net(torch.cat([dep[s, w], ones], 1), torch.cat([head[s, h], ones], 1), task="label")
    heads, _, upos_gold, xpos_gold, ents_gold = (torch.from_numpy(g) for g in batch.gold)
    return (functional.cross_entropy(arcs.flatten(0, 1), heads.flatten(), ignore_index=IGNORE)
            + functional.cross_entropy(labels, torch.from_numpy(gold.labels))
            + functional.cross_entropy(upos.flatten(0, 1), upos_gold.flatten(), ignore_index=IGNORE)
            + functional.cross_entropy(xpos.flatten(0, 1), xpos_gold.flatten(), ignore_index=IGNORE)
            + _crf(parser, ents, steps, ents_gold, batch.lengths))


def _crf(parser, ents, steps, gold, lengths):
    tags = parser.label_data["ents"]
    allowed, first = (torch.from_numpy(a) for a in allowed_steps(tags))
    return partial_nll(ents, steps, gold, torch.from_numpy(lengths), allowed, first,
                       torch.from_numpy(begin_rows(tags))) / int((gold != IGNORE).sum())


def test_update_joins_the_two_calls_gradients_as_one_autograd_graph(small_parser):
    """`update` runs the model twice (scores, then relations at the gold arcs), computes the loss
    outside torch and backpropagates the relation call's input gradient onto the scoring call's
    projections: every parameter must get the gradient of the loss as one graph."""
    parser, examples = small_parser
    net = _net(parser)
    net.zero_grad(set_to_none=True)
    losses = parser.update(examples, sgd=None)
    joined = {name: p.grad.clone() for name, p in net.named_parameters() if p.grad is not None}
    net.zero_grad(set_to_none=True)
    net.train()
    loss = _one_graph_loss(parser, examples)
    loss.backward()
    graph = {name: p.grad.clone() for name, p in net.named_parameters() if p.grad is not None}
    assert losses[parser.name] == pytest.approx(float(loss.detach()), rel=1e-5)
    assert set(joined) == set(graph) and {"label_attn.weight", "lstm.weight_ih_l0", "ent_steps"} <= set(graph)
    for name in graph:
        assert torch.allclose(joined[name], graph[name], atol=1e-5, rtol=1e-4), name


def test_get_loss_is_updates_loss_and_gradient_and_trains_nothing(small_parser):
    parser, examples = small_parser
    net = _net(parser)
    net.zero_grad(set_to_none=True)
    batch = parser.batch(examples)
    scores = parser.model.predict(batch)
    loss, d_scores = parser.get_loss(examples, scores)
    assert all(p.grad is None for p in net.parameters())  # nothing accumulated
    assert isinstance(d_scores, ParseScores)
    net.eval()
    feats, chars, lengths = (torch.from_numpy(a) for a in (batch.feats, batch.chars, batch.lengths))
    outputs = [o.detach().requires_grad_() for o in net(feats, chars, lengths)]
    arcs, dep, head, upos, xpos, ents, steps = outputs
    gold = gold_arcs(batch.gold)
    s, w, h = (torch.from_numpy(a) for a in (gold.sentences, gold.words, gold.heads))
    ones = torch.ones(len(s), 1)
    labels = net(torch.cat([dep[s, w], ones], 1), torch.cat([head[s, h], ones], 1), task="label")
    heads, _, upos_gold, xpos_gold, ents_gold = (torch.from_numpy(g) for g in batch.gold)
    expected = (functional.cross_entropy(arcs.flatten(0, 1), heads.flatten(), ignore_index=IGNORE)
                + functional.cross_entropy(labels, torch.from_numpy(gold.labels))
                + functional.cross_entropy(upos.flatten(0, 1), upos_gold.flatten(), ignore_index=IGNORE)
                + functional.cross_entropy(xpos.flatten(0, 1), xpos_gold.flatten(), ignore_index=IGNORE)
                + _crf(parser, ents, steps, ents_gold, batch.lengths))
    grads = torch.autograd.grad(expected, outputs)
    assert loss == pytest.approx(float(expected.detach()), rel=1e-5)
    for key, grad in zip(ParseScores._fields, grads):
        assert numpy.allclose(getattr(d_scores, key), grad.numpy(), atol=1e-6), key
    assert d_scores.dep_states.any() and d_scores.head_states.any()
    assert loss == pytest.approx(parser.update(examples, sgd=None)[parser.name], rel=1e-5)  # no dropout in SMALL
