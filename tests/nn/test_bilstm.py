"""`run_bilstm`: the padded training path computes what the packed one (the code before it) does,
gradients included."""
import pytest
import torch

from spacy_gdcws.nn.bilstm import BiLSTMEncoder, packed_bilstm, padded_bilstm, run_bilstm


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("rows_per_run", [1, 2, 12])
def test_padded_equals_packed(depth: int, rows_per_run: int) -> None:
    torch.manual_seed(depth)
    lstm = torch.nn.LSTM(12, 8, depth, bidirectional=True, batch_first=True)
    lengths = torch.tensor([3, 7, 1, 5, 7])
    x = torch.randn(5, 7, 12, requires_grad=True)
    expected = packed_bilstm(lstm, x, lengths)
    loss = (expected * torch.linspace(-1, 1, 16)).sum()
    expected_grads = torch.autograd.grad(loss, [x, lstm.weight_hh_l0_reverse, getattr(lstm, f"bias_ih_l{depth - 1}")])
    got = padded_bilstm(lstm, x, lengths, rows_per_run=rows_per_run)
    assert torch.allclose(got, expected, atol=1e-6)
    assert not got[2, 1:].any() and not got[0, 3:].any()
    loss = (got * torch.linspace(-1, 1, 16)).sum()
    got_grads = torch.autograd.grad(loss, [x, lstm.weight_hh_l0_reverse, getattr(lstm, f"bias_ih_l{depth - 1}")])
    for g, e in zip(got_grads, expected_grads):
        assert torch.allclose(g, e, atol=1e-5)


def test_run_bilstm_takes_the_padded_path_in_training_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import spacy_gdcws.nn.bilstm as bilstm

    calls = []
    monkeypatch.setattr(bilstm, "padded_bilstm", lambda *a, **k: calls.append("padded") or packed_bilstm(*a[:3]))
    lstm = torch.nn.LSTM(4, 3, 1, bidirectional=True, batch_first=True)
    x, lengths = torch.randn(2, 3, 4), torch.tensor([3, 2])
    lstm.eval()
    run_bilstm(lstm, x, lengths)
    assert calls == []
    lstm.train()
    run_bilstm(lstm, x, lengths)
    assert calls == ["padded"]


def test_dropout_between_layers_only_in_training() -> None:
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(6, 4, 2, bidirectional=True, batch_first=True, dropout=0.5)
    x, lengths = torch.randn(3, 5, 6), torch.tensor([5, 4, 2])
    lstm.eval()
    assert torch.allclose(padded_bilstm(lstm, x, lengths), packed_bilstm(lstm, x, lengths), atol=1e-6)
    lstm.train()
    torch.manual_seed(1)
    assert not torch.allclose(padded_bilstm(lstm, x, lengths), padded_bilstm(lstm, x, lengths))


def test_encoder_same_alone_and_padded_in_training() -> None:
    torch.manual_seed(0)
    encoder = BiLSTMEncoder(8, depth=2, dropout=0.0).train()
    emb = torch.randn(2, 6, 8)
    mask = torch.tensor([[1] * 6, [1, 1, 1, 0, 0, 0]], dtype=torch.bool)
    both = encoder(emb, mask).left
    alone = encoder(emb[1:, :3], mask[1:, :3]).left
    assert torch.allclose(both[1, :3], alone[0], atol=1e-6)
