"""Tree decoding: Eisner (projective) and Chu-Liu-Edmonds (any tree), one root word, against
every tree of small sentences."""
import itertools

import numpy
import pytest

from spacy_gdcws.decoding.trees import chu_liu_edmonds, decode_trees, eisner, eisner_batch, is_tree


def _best_by_enumeration(scores: numpy.ndarray, projective: bool) -> float:
    n = scores.shape[0]
    best = -numpy.inf
    for heads in itertools.product(range(n + 1), repeat=n):
        h = numpy.array(heads)
        if any(h[i] == i + 1 for i in range(n)) or not is_tree(h, projective):
            continue
        best = max(best, float(scores[numpy.arange(n), h].sum()))
    return best


def _random_scores(rng, n):
    scores = rng.normal(size=(n, n + 1))
    scores[numpy.arange(n), numpy.arange(1, n + 1)] = -1e9
    return scores


@pytest.mark.parametrize("projective,decode", [(True, eisner), (False, chu_liu_edmonds)])
def test_the_decoders_find_the_best_tree(projective, decode):
    rng = numpy.random.default_rng(0)
    for _ in range(150):
        n = int(rng.integers(1, 7))
        scores = _random_scores(rng, n)
        heads = decode(scores)
        assert is_tree(heads, projective)
        assert scores[numpy.arange(n), heads].sum() == pytest.approx(_best_by_enumeration(scores, projective))


def test_eisner_on_a_padded_batch_equals_one_sentence_at_a_time():
    rng = numpy.random.default_rng(1)
    scores = rng.normal(size=(12, 9, 10))
    lengths = rng.integers(1, 10, size=12)
    for b, heads in enumerate(eisner_batch(scores, lengths)):
        m = int(lengths[b])
        alone = eisner(scores[b, :m, : m + 1].copy())
        own = scores[b, :m, : m + 1]
        assert own[numpy.arange(m), heads].sum() == pytest.approx(own[numpy.arange(m), alone].sum())


def test_is_tree():
    assert is_tree(numpy.array([0, 1, 2]))
    assert not is_tree(numpy.array([0, 0, 2]))  # two root words
    assert not is_tree(numpy.array([0, 3, 2]))  # a cycle
    assert is_tree(numpy.array([3, 0, 2, 2]), projective=False)
    assert not is_tree(numpy.array([0, 4, 1, 1]), projective=True)  # 2->4 crosses 1->3
    assert is_tree(numpy.array([0, 4, 1, 1]), projective=False)


def test_decode_trees_keeps_a_greedy_tree_and_repairs_the_rest():
    scores = numpy.full((2, 3, 4), -10.0)
    # sentence 0: word 1 root, 2 and 3 under it (a tree already)
    scores[0, 0, 0] = scores[0, 1, 1] = scores[0, 2, 1] = 0.0
    # sentence 1: every word wants the root
    scores[1, :, 0] = 0.0
    scores[1, 1, 1] = scores[1, 2, 1] = -1.0
    for projective in (True, False):
        first, second = decode_trees(scores, numpy.array([3, 3]), projective)
        assert first.tolist() == [0, 1, 1]
        assert is_tree(second, projective) and second.tolist() == [0, 1, 1]


def test_the_compiled_eisner_gives_the_numpy_trees():
    """`eisner_jit` (numba, where installed) against `eisner_batch`: the same trees, tie-breaking too, on
    random scores and on scores with ties; without numba `compiled_eisner` is None and decoding uses numpy."""
    pytest.importorskip("numba")
    from spacy_gdcws.decoding.eisner_jit import compiled_eisner

    kernel = compiled_eisner()
    assert kernel is not None
    rng = numpy.random.default_rng(2)
    for tied in (False, True):
        scores = rng.normal(size=(20, 12, 13))
        if tied:
            scores = numpy.round(scores)  # many equal scores: the split each picks must agree
        lengths = rng.integers(1, 13, size=20)
        for b, heads in enumerate(eisner_batch(scores.copy(), lengths)):
            m = int(lengths[b])
            compiled = kernel(numpy.ascontiguousarray(scores[b, :m, : m + 1], dtype=numpy.float64), m)
            assert compiled.tolist() == heads.tolist()


def test_without_numba_decoding_falls_back_to_numpy(monkeypatch):
    """Where numba is not installed, `compiled_eisner` is None and `decode_trees` repairs with numpy."""
    import sys

    from spacy_gdcws.decoding import eisner_jit

    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.setitem(eisner_jit._COMPILED, "tried", False)
    monkeypatch.setitem(eisner_jit._COMPILED, "eisner", None)
    assert eisner_jit.compiled_eisner() is None
    scores = numpy.zeros((1, 3, 4))
    scores[0, :, 0] = 1.0  # every word wants the root: repaired
    heads = decode_trees(scores, numpy.array([3]), True)[0]
    assert is_tree(heads, True)
