"""`decoding.entities`: the best IOB2 tag sequence of each sentence under IOB2's constraints, all
sentences at once, against every sequence tried one by one; and its chunks."""
import itertools

import numpy
import pytest

from spacy_gdcws.decoding.entities import allowed_steps, best_tags, entity_tags, tag_spans


def test_the_tags_and_their_constraints():
    tags = entity_tags(["PER", "LOC"])
    assert tags == ["O", "B-LOC", "I-LOC", "B-PER", "I-PER"]
    allowed, first = allowed_steps(tags)
    assert first.tolist() == [True, True, False, True, False]
    assert allowed[tags.index("B-LOC"), tags.index("I-LOC")] and allowed[tags.index("I-LOC"), tags.index("I-LOC")]
    assert not allowed[tags.index("O"), tags.index("I-LOC")] and not allowed[tags.index("B-PER"), tags.index("I-LOC")]
    assert allowed[:, tags.index("O")].all() and allowed[:, tags.index("B-PER")].all()


@pytest.mark.parametrize("seed", range(5))
def test_the_batch_viterbi_is_the_best_allowed_sequence_of_each_sentence(seed):
    tags = entity_tags(["PER", "LOC"])
    allowed, first = allowed_steps(tags)
    rng = numpy.random.default_rng(seed)
    n_sents, n_words, k = 6, 5, len(tags)
    log_probs = numpy.log(rng.dirichlet(numpy.ones(k), size=(n_sents, n_words)))
    lengths = rng.integers(1, n_words + 1, n_sents)
    got = best_tags(log_probs, lengths, allowed, first)
    for b in range(n_sents):
        n = int(lengths[b])
        valid = [seq for seq in itertools.product(range(k), repeat=n)
                 if first[seq[0]] and all(allowed[x, y] for x, y in zip(seq, seq[1:]))]
        best = max(valid, key=lambda seq: sum(log_probs[b, i, t] for i, t in enumerate(seq)))
        assert got[b, :n].tolist() == list(best)
        assert (got[b, n:] == -1).all()


def test_an_empty_batch_and_chunks():
    tags = entity_tags(["ORG"])
    allowed, first = allowed_steps(tags)
    assert best_tags(numpy.zeros((0, 0, 3)), numpy.zeros(0, dtype=int), allowed, first).shape == (0, 0)
    assert tag_spans([1, 2, 0, 1, 1, 2], tags) == [(0, 2, "ORG"), (3, 4, "ORG"), (4, 6, "ORG")]
    assert tag_spans([], tags) == []
