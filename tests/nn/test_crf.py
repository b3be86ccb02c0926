"""`nn.crf` and `data.bmes`: the BMES CRF's forward algorithm and Viterbi against brute force, on the host and in torch."""
import itertools

import numpy
import pytest
import torch

from spacy_gdcws.data.bmes import AFTER, BEFORE, S_TAG
from spacy_gdcws.decoding.crf import crf_boundaries
from spacy_gdcws.nn.crf import (
    allowed_steps,
    boundaries_to_tags,
    log_partition,
    tags_to_boundaries,
    viterbi_tags,
)
from spacy_gdcws.pipeline.loss import crf_loss


def _paths(n, gaps):
    """Every tag sequence of length n that is BMES-valid and meets the gap constraints."""
    for tags in itertools.product(range(4), repeat=n):
        if not BEFORE[tags[0]] or not AFTER[tags[-1]]:
            continue
        ok = all(AFTER[a] == BEFORE[b] for a, b in zip(tags, tags[1:]))
        ok = ok and all(g < 0 or AFTER[tags[i]] == g for i, g in enumerate(gaps))
        if ok:
            yield tags


def _path_score(psi, tags):
    prev = S_TAG
    total = 0.0
    for t, tag in enumerate(tags):
        total += float(psi[t, prev, tag])
        prev = tag
    return total


@pytest.mark.parametrize("gaps", [[-1, -1, -1], [1, -1, -1], [-1, 0, -1], [0, 1, 0], [1, 1, 1]])
def test_log_partition_equals_brute_force(gaps):
    torch.manual_seed(len(gaps) + sum(gaps))
    psi = torch.randn(1, 4, 4, 4)
    allowed = allowed_steps(torch.tensor([gaps]), 4)
    got = float(log_partition(psi, allowed, torch.tensor([4]))[0])
    scores = [_path_score(psi[0], p) for p in _paths(4, gaps)]
    assert got == pytest.approx(float(numpy.logaddexp.reduce(scores)), abs=1e-4)


@pytest.mark.parametrize("seed", range(8))
def test_viterbi_equals_brute_force_and_is_valid(seed):
    torch.manual_seed(seed)
    gaps = [[-1, -1, -1], [-1, 1, -1]][seed % 2]
    psi = torch.randn(1, 4, 4, 4) * 3
    tags = viterbi_tags(psi, allowed_steps(torch.tensor([gaps]), 4), torch.tensor([4]))[0].tolist()
    best = max(_paths(4, gaps), key=lambda p: _path_score(psi[0], p))
    assert tuple(tags) == best
    assert tags in [list(p) for p in _paths(4, gaps)]


def test_padded_batch_equals_rows_alone():
    torch.manual_seed(1)
    psi = torch.randn(3, 6, 4, 4)
    gaps = torch.full((3, 5), -1)
    gaps[1, 2] = 1
    lengths = torch.tensor([6, 4, 1])
    together = log_partition(psi, allowed_steps(gaps, 6), lengths)
    tags = viterbi_tags(psi, allowed_steps(gaps, 6), lengths)
    for i, n in enumerate(lengths.tolist()):
        alone = log_partition(psi[i : i + 1, :n], allowed_steps(gaps[i : i + 1, : n - 1], n), lengths[i : i + 1])
        assert float(together[i]) == pytest.approx(float(alone[0]), abs=1e-4)
        alone_tags = viterbi_tags(psi[i : i + 1, :n], allowed_steps(gaps[i : i + 1, : n - 1], n), lengths[i : i + 1])
        assert tags[i, :n].tolist() == alone_tags[0].tolist()
    assert tags[2, 0].item() == S_TAG  # one character: a word alone


def test_invalid_bmes_never_decoded_even_when_favoured():
    """Potentials that favour M after S and B at the end still decode to a valid sequence."""
    rng = numpy.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(1, 9))
        psi = torch.from_numpy(rng.normal(size=(1, n, 4, 4)).astype("f") * 5)
        psi[0, :, S_TAG, 1] += 20.0  # S -> M: invalid
        psi[0, -1, :, 0] += 20.0  # B at the end: invalid
        tags = viterbi_tags(psi, allowed_steps(torch.full((1, max(n - 1, 0)), -1), n), torch.tensor([n]))[0].tolist()
        assert BEFORE[tags[0]] and AFTER[tags[-1]]
        assert all(AFTER[a] == BEFORE[b] for a, b in zip(tags, tags[1:]))


def test_tags_and_boundaries_round_trip():
    gaps = torch.tensor([[1, 0, 0, 1, 1, 0]])
    tags = boundaries_to_tags(gaps)
    assert tags.tolist() == [[3, 0, 1, 2, 3, 0, 2]]  # S B M E S B E
    assert tags_to_boundaries(tags).long().tolist() == gaps.tolist()


def test_crf_loss_is_the_gold_negative_log_likelihood_and_its_gradient():
    rng = numpy.random.default_rng(3)
    scores = [rng.normal(size=(4, 16)).astype("f"), rng.normal(size=(3, 17)).astype("f")]
    labels = [numpy.array([1.0, 0.0, 1.0], dtype="f"), numpy.array([0.0, 1.0], dtype="f")]
    mask = [numpy.array([True, True, False]), numpy.array([True, True])]
    forced = [numpy.zeros(3, dtype=bool), numpy.array([False, True])]
    loss, grads = crf_loss(scores, labels, mask, forced, normalizer=2.0)
    expected = 0.0
    for s, lab, m, f in zip(scores, labels, mask, forced):
        n = len(s)
        psi = s[:, :16].reshape(n, 4, 4)
        free = [1 if fi else -1 for fi in f]
        gold = [1 if fi else (int(li) if mi else -1) for fi, li, mi in zip(f, lab, m)]
        log_z = numpy.logaddexp.reduce([_path_score(psi, p) for p in _paths(n, free)])
        log_gold = numpy.logaddexp.reduce([_path_score(psi, p) for p in _paths(n, gold)])
        expected += (log_z - log_gold) / 2.0
    assert loss == pytest.approx(expected, abs=1e-4)
    assert grads[1].shape == (3, 17) and not grads[1][:, 16].any()
    # finite differences on one potential
    eps = 1e-2
    bumped = [s.copy() for s in scores]
    bumped[0][2, 5] += eps
    loss2, _ = crf_loss(bumped, labels, mask, forced, normalizer=2.0)
    assert (loss2 - loss) / eps == pytest.approx(float(grads[0][2, 5]), abs=2e-3)


def test_crf_boundaries_respect_forced_gaps():
    scores = [numpy.zeros((5, 16), dtype="f")]
    scores[0][:, [0 * 4 + 1, 1 * 4 + 1, 0 * 4 + 2, 1 * 4 + 2]] += 5.0  # favour one long word
    forced = [numpy.array([False, True, False, False])]
    (bounds,) = crf_boundaries(scores, forced)
    assert bounds.tolist() == [False, True, False, False]


@pytest.mark.parametrize("kind", ["random", "rounded", "zeros"])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_packed_viterbi_equals_viterbi_tags(kind, dtype):
    """The host decoder (`packed_viterbi`: the 8 allowed steps, docs packed
    without padding) gives `viterbi_tags`' labelling, constraints and ties
    included (rounded and zero potentials tie often), for docs laid end to end
    with a separator row between them."""
    from spacy_gdcws.data.bmes import STEP_NEXT, STEP_PREV, packed_viterbi

    rng = numpy.random.default_rng(7)
    for _ in range(40):
        lengths = rng.integers(1, 12, size=int(rng.integers(1, 7)))
        length = int(lengths.max())
        psi = rng.standard_normal((len(lengths), length, 4, 4))
        psi = {"random": psi, "rounded": numpy.round(psi), "zeros": numpy.zeros_like(psi)}[kind].astype(dtype)
        gaps = rng.integers(-1, 2, size=(len(lengths), max(length - 1, 0)))
        tags = viterbi_tags(torch.from_numpy(psi), allowed_steps(torch.from_numpy(gaps), length), torch.from_numpy(lengths))
        want = tags_to_boundaries(tags).numpy()
        starts = numpy.concatenate([[0], numpy.cumsum(lengths + 1)[:-1]])
        steps = numpy.zeros((int(starts[-1] + lengths[-1]), 8), dtype=dtype)
        flat_gaps = numpy.ones(len(steps) - 1, dtype=numpy.int64)  # separators' gaps: forced, must not matter
        for row, (start, n) in enumerate(zip(starts.tolist(), lengths.tolist())):
            steps[start : start + n] = psi[row, :n][:, STEP_PREV, STEP_NEXT]
            flat_gaps[start : start + n - 1] = gaps[row, : n - 1]
        got = packed_viterbi(steps, flat_gaps, lengths, starts)
        for row, (start, n) in enumerate(zip(starts.tolist(), lengths.tolist())):
            assert got[start : start + n - 1].tolist() == want[row, : n - 1].tolist()
            assert not got[start + n - 1 : start + n].any()  # the separator's gap


def _packed(psi, gaps, lengths):
    """Rows of a padded batch laid end to end: (N, 4, 4) potentials, gap-before constraints, first flags."""
    from spacy_gdcws.nn.crf import packed_allowed_steps

    flat, before, first = [], [], []
    for i, n in enumerate(lengths.tolist()):
        flat.append(psi[i, :n])
        before.extend([-1] + gaps[i, : n - 1].tolist())
        first.extend([True] + [False] * (n - 1))
    first_t = torch.tensor(first)
    return torch.cat(flat), packed_allowed_steps(torch.tensor(before), first_t), first_t


@pytest.mark.parametrize("chunk", [1, 2, 3, 16])
def test_packed_log_partition_equals_padded(chunk):
    """Docs laid end to end without padding, reduced in chunks of any size, give
    each doc's `log_partition` and the same gradient (lengths 1 to 40: zero, one
    and several chunks)."""
    from spacy_gdcws.nn.crf import packed_log_partition

    rng = numpy.random.default_rng(chunk)
    lengths = torch.tensor([1, 2, 17, 40, 5, 16])
    length = int(lengths.max())
    psi = torch.from_numpy(rng.normal(0, 3, (len(lengths), length, 4, 4)).astype("f")).requires_grad_(True)
    gaps = torch.from_numpy(rng.integers(-1, 2, (len(lengths), length - 1)))
    want = log_partition(psi, allowed_steps(gaps, length), lengths)
    want.sum().backward()
    flat = torch.cat([psi.detach()[i, :n] for i, n in enumerate(lengths.tolist())]).requires_grad_(True)
    _, allowed, _ = _packed(psi.detach(), gaps, lengths)
    got = packed_log_partition(flat, allowed, lengths, chunk=chunk)
    got.sum().backward()
    assert torch.allclose(got, want, atol=1e-3)
    want_grad = torch.cat([psi.grad[i, :n] for i, n in enumerate(lengths.tolist())])
    assert torch.allclose(flat.grad, want_grad, atol=1e-5)


def test_packed_path_score_is_the_partition_of_fixed_gaps():
    """With every gap fixed one tag sequence is left: its summed potentials are log Z."""
    from spacy_gdcws.nn.crf import packed_log_partition, packed_path_score

    rng = numpy.random.default_rng(5)
    lengths = torch.tensor([1, 6, 3])
    gaps = torch.from_numpy(rng.integers(0, 2, (3, 5)))
    psi = torch.from_numpy(rng.normal(0, 2, (3, 6, 4, 4)).astype("f"))
    flat, allowed, first = _packed(psi, gaps, lengths)
    tags = torch.cat([boundaries_to_tags(gaps[i : i + 1, : n - 1])[0] for i, n in enumerate(lengths.tolist())])
    doc_of_token = torch.repeat_interleave(torch.arange(3), lengths)
    path = packed_path_score(flat, tags, first, doc_of_token, 3)
    assert torch.allclose(path, packed_log_partition(flat, allowed, lengths), atol=1e-4)
