"""`nn.tag_crf`: the partially labelled linear-chain CRF of the entity tags, against every tag
sequence scored one by one."""
import itertools
import math

import pytest
import torch

from spacy_gdcws.decoding.entities import allowed_steps, begin_rows, entity_tags
from spacy_gdcws.nn.tag_crf import IGNORE, partial_nll, repaired

TAGS = entity_tags(["PER", "LOC"])  # O B-LOC I-LOC B-PER I-PER


def _constraints():
    allowed, first = allowed_steps(TAGS)
    return torch.from_numpy(allowed), torch.from_numpy(first), torch.from_numpy(begin_rows(TAGS))


def _brute(emissions, steps, gold, n, allowed, first):
    """log Z - log Z(sequences that agree with the known tags), over every allowed sequence."""
    def score(seq):
        return sum(float(emissions[i, t]) for i, t in enumerate(seq)) + sum(float(steps[a, b]) for a, b in zip(seq, seq[1:]))

    valid = [seq for seq in itertools.product(range(len(TAGS)), repeat=n)
             if first[seq[0]] and all(allowed[a, b] for a, b in zip(seq, seq[1:]))]
    agree = [seq for seq in valid if all(g == IGNORE or g == t for g, t in zip(gold[:n].tolist(), seq))]
    lse = lambda xs: max(xs) + math.log(sum(math.exp(x - max(xs)) for x in xs))  # noqa: E731
    return lse([score(s) for s in valid]) - lse([score(s) for s in agree])


@pytest.mark.parametrize("seed", range(4))
def test_the_loss_is_the_partial_likelihood_of_every_agreeing_sequence(seed):
    torch.manual_seed(seed)
    allowed, first, begins = _constraints()
    emissions = torch.randn(3, 4, len(TAGS))
    steps = torch.randn(len(TAGS), len(TAGS))
    lengths = torch.tensor([4, 3, 2])
    gold = torch.tensor([[3, 4, 0, 1], [IGNORE, 2, 0, IGNORE], [0, IGNORE, IGNORE, IGNORE]])
    expected = sum(_brute(emissions[b], steps, gold[b], int(lengths[b]), allowed, first) for b in range(3))
    assert float(partial_nll(emissions, steps, gold, lengths, allowed, first, begins)) == pytest.approx(expected, rel=1e-4)


def test_a_sentence_without_known_tags_adds_nothing_and_gradients_flow():
    allowed, first, begins = _constraints()
    emissions = torch.randn(2, 3, len(TAGS), requires_grad=True)
    steps = torch.zeros(len(TAGS), len(TAGS), requires_grad=True)
    gold = torch.tensor([[0, 1, 2], [IGNORE, IGNORE, IGNORE]])
    loss = partial_nll(emissions, steps, gold, torch.tensor([3, 3]), allowed, first, begins)
    loss.backward()
    assert emissions.grad[1].abs().sum() == 0 and emissions.grad[0].abs().sum() > 0 and steps.grad.abs().sum() > 0
    none = partial_nll(emissions, steps, torch.full((2, 3), IGNORE), torch.tensor([3, 3]), allowed, first, begins)
    assert float(none) == 0.0


def test_an_i_tag_that_cannot_follow_is_read_as_a_beginning():
    allowed, first, begins = _constraints()
    gold = torch.tensor([[2, 2, 0, 4, IGNORE, 4]])  # I-LOC first; I-PER after O; I-PER after an unknown word
    assert repaired(gold, allowed, first, begins).tolist() == [[1, 2, 0, 3, IGNORE, 4]]
