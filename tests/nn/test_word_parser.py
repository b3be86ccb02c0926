"""`nn.word_parser`: the biaffine layer's chunked pair scores against its full score matrix."""
import pytest
import torch

from spacy_gdcws.nn.word_parser import Biaffine


@pytest.mark.parametrize("chunk", [1, 3, 256])
@pytest.mark.parametrize("bias", [(True, True), (True, False)])
def test_pairs_are_the_full_matrix_at_the_pairs_and_have_its_gradient(chunk, bias):
    """`Biaffine.pairs` scores N given (dependent, head) pairs `chunk` at a time with the bias
    columns already in its inputs; it must give the entries of `forward`'s (B, O, I, J) matrix at
    those pairs, and the same gradient for the inputs and the weight."""
    torch.manual_seed(0)
    bias_x, bias_y = bias
    layer = Biaffine(5, n_out=4, bias_x=bias_x, bias_y=bias_y)
    with torch.no_grad():
        layer.weight.normal_()
    x, y = torch.randn(2, 6, 5, requires_grad=True), torch.randn(2, 7, 5, requires_grad=True)
    full = layer(x, y)  # (2, 4, 6, 7)
    b, i, j = torch.tensor([0, 0, 1, 1, 1, 0, 1]), torch.tensor([0, 5, 2, 2, 3, 1, 4]), torch.tensor([1, 0, 6, 3, 3, 1, 0])
    expected = full[b, :, i, j]  # (N, O)
    ones = lambda t: torch.ones(t.shape[0], 1)  # noqa: E731
    px = torch.cat([x[b, i], ones(b)], 1) if bias_x else x[b, i]
    py = torch.cat([y[b, j], ones(b)], 1) if bias_y else y[b, j]
    got = layer.pairs(px, py, chunk=chunk)
    assert got.shape == (len(b), 4)
    assert torch.allclose(got, expected, atol=1e-5)
    d_out = torch.randn_like(got)
    grads = torch.autograd.grad(got, (x, y, layer.weight), d_out)
    expected_grads = torch.autograd.grad(expected, (x, y, layer.weight), d_out)
    for g, e in zip(grads, expected_grads):
        assert torch.allclose(g, e, atol=1e-4)


def test_no_pairs_give_an_empty_score_table():
    layer = Biaffine(3, n_out=2)
    assert layer.pairs(torch.zeros(0, 4), torch.zeros(0, 4)).shape == (0, 2)
