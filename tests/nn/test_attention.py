"""`nn`: Gaussian-masked directional attention, the GD-Transformer's switches and padding."""
import math

import pytest
import torch

from spacy_gdcws.legacy.net import GDTransformerNet
from spacy_gdcws.nn import GDConfig, direction_mask, gaussian_weights
from spacy_gdcws.nn.attention import GaussianDirectionalAttention, attention_mask

SMALL = dict(width=32, depth=2, n_heads=4, d_ff=64, dropout=0.0, char_rows=500, bigram_rows=500,
             bigram_width=16, biaffine_width=32, bigrams=True, char_seeds=2)


def _inputs(lengths, T, seeds=2, seed=0):
    g = torch.Generator().manual_seed(seed)
    chars = torch.randint(0, 500, (len(lengths), T, seeds), generator=g)
    bigrams = torch.randint(0, 500, (len(lengths), T + 1, seeds), generator=g)
    mask = torch.zeros(len(lengths), T, dtype=torch.bool)
    for i, n in enumerate(lengths):
        mask[i, :n] = True
    return chars, bigrams, mask


def _count_params(net):
    return sum(p.numel() for p in net.parameters())


def _out(cfg_changes, seed=0):
    torch.manual_seed(seed)
    net = GDTransformerNet(GDConfig(**{**SMALL, **cfg_changes})).eval()
    chars, bigrams, mask = _inputs([8], 8)
    return net, net(chars, bigrams, mask)


@pytest.mark.parametrize("sigma", [1.0, 2.0, 4.0])
def test_gaussian_weights_are_erfc(sigma):
    G = gaussian_weights(12, sigma)
    for i in range(12):
        for j in range(12):
            expected = math.erfc(abs(i - j) / (sigma * math.sqrt(2)))
            assert G[i, j].item() == pytest.approx(expected, rel=1e-5, abs=1e-7)
    assert torch.all(torch.diagonal(G) == 1.0)


def test_direction_masks_include_the_diagonal():
    fwd = direction_mask(5, "forward")
    bwd = direction_mask(5, "backward")
    for i in range(5):
        for j in range(5):
            assert fwd[i, j].item() == (j <= i)
            assert bwd[i, j].item() == (j >= i)
    assert direction_mask(5, "centre") is None
    with pytest.raises(ValueError):
        direction_mask(5, "sideways")


@pytest.mark.parametrize("direction", ["forward", "centre", "backward"])
def test_masked_and_padded_keys_get_no_weight(direction):
    torch.manual_seed(0)
    attn = GaussianDirectionalAttention(32, 4, 0.0).eval()
    x = torch.randn(2, 7, 32)
    key_mask = torch.ones(2, 7, dtype=torch.bool)
    key_mask[1, 4:] = False
    mask = attention_mask(key_mask, direction_mask(7, direction))
    weights = attn.attention_weights(x, mask, gaussian_weights(7, 2.0))
    assert not torch.isnan(weights).any()
    # real queries never attend to padding
    assert torch.all(weights[1, :, :4, 4:] == 0)
    dirm = direction_mask(7, direction)
    if dirm is not None:
        assert torch.all(weights[0][:, ~dirm] == 0)
    assert torch.allclose(weights[0].sum(-1), torch.ones(4, 7))


@pytest.mark.parametrize("layer_norm", ["post", "pre"])
@pytest.mark.parametrize("fusion", ["sum", "gate"])
def test_padded_batch_equals_docs_alone(layer_norm, fusion):
    torch.manual_seed(0)
    net = GDTransformerNet(GDConfig(**SMALL, layer_norm=layer_norm, fusion=fusion)).eval()
    lengths = [9, 4, 2, 7]
    chars, bigrams, mask = _inputs(lengths, 9)
    # the bigram at position n is the (last char, EOS) one: same ids alone and padded
    batch = net(chars, bigrams, mask)
    assert not torch.isnan(batch).any()
    for i, n in enumerate(lengths):
        alone = net(chars[i : i + 1, :n], bigrams[i : i + 1, : n + 1], mask[i : i + 1, :n])
        assert torch.allclose(batch[i : i + 1, : n - 1], alone, atol=1e-5)


def test_switches_change_the_model_as_named():
    base = GDTransformerNet(GDConfig(**SMALL))
    names = {p.direction for p in base.pipelines.values()}
    assert names == {"forward", "centre", "backward"}
    no_centre = GDTransformerNet(GDConfig(**SMALL, centre=False))
    assert set(no_centre.pipelines) == {"forward", "backward"}
    only_fwd = GDTransformerNet(GDConfig(**SMALL, centre=False, backward=False))
    assert set(only_fwd.pipelines) == {"forward"}
    with pytest.raises(ValueError, match="E003"):
        GDConfig(**SMALL, forward=False, centre=False, backward=False)
    no_ffn = GDTransformerNet(GDConfig(**{**SMALL, "d_ff": 0}))
    assert all(layer.ffn is None for p in no_ffn.pipelines.values() for layer in p.layers)
    no_hired = GDTransformerNet(GDConfig(**SMALL, hired=False))
    assert not hasattr(no_hired.encoder, "hired_scorer") and hasattr(base.encoder, "hired_scorer")
    assert _count_params(no_hired) < _count_params(base)
    no_bigrams = GDTransformerNet(GDConfig(**{**SMALL, "bigrams": False}))
    assert not hasattr(no_bigrams.embed, "bigram_embed") and hasattr(base.embed, "bigram_embed")
    gate = GDTransformerNet(GDConfig(**SMALL, fusion="gate"))
    assert hasattr(gate.encoder.fusion, "gate_f") and not hasattr(base.encoder.fusion, "gate_f")
    pre = GDTransformerNet(GDConfig(**SMALL, layer_norm="pre"))
    assert isinstance(pre.pipelines["forward"].readout, torch.nn.LayerNorm)


@pytest.mark.parametrize(
    "change",
    [{"gaussian": False}, {"directional": False}, {"positions": False}, {"highway_in": False}, {"sigma": 4.0},
     {"gaussian_mode": "bias"}],
)
def test_behaviour_switches_change_the_output(change):
    _, base = _out({})
    _, changed = _out(change)
    assert base.shape == changed.shape
    assert not torch.allclose(base, changed)


def test_output_columns():
    _, out = _out({})
    assert out.shape == (1, 7, 2)  # final scorer + HiRED (Highway-O)
    _, out = _out({"highway_out": False})
    assert out.shape == (1, 7, 1)
    _, out = _out({"hired": False})
    assert out.shape == (1, 7, 1)


def test_forward_pipeline_only_sees_the_past():
    """Changing a later character never changes the forward pipeline's earlier states."""
    torch.manual_seed(0)
    net = GDTransformerNet(GDConfig(**{**SMALL, "bigrams": False}, centre=False, backward=False, hired=False)).eval()
    chars, _, mask = _inputs([8], 8)
    pipe = net.pipelines["forward"]
    emb = net.embed(chars, None)
    m = attention_mask(mask, direction_mask(8, "forward"))
    g = gaussian_weights(8, 2.0)
    h1 = pipe(emb, m, g)
    emb2 = emb.clone()
    emb2[0, 6] += 1.0
    h2 = pipe(emb2, m, g)
    assert torch.allclose(h1[0, :6], h2[0, :6], atol=1e-6)
    assert not torch.allclose(h1[0, 6:], h2[0, 6:])


def test_gaussian_bias_makes_attention_local():
    """With `logits + log G` a key 12 sigma away gets (almost) no weight; with the
    paper's `logits * G` its logit tends to 0, not to -inf, and it keeps weight."""
    torch.manual_seed(0)
    x = torch.randn(1, 30, 32)
    mask = attention_mask(torch.ones(1, 30, dtype=torch.bool), None)
    from spacy_gdcws.nn.attention import log_gaussian_weights

    local = GaussianDirectionalAttention(32, 4, 0.0, gaussian_bias=True).eval()
    q, k, _ = local._project(x)
    w_local = local._weights(q, k, mask, log_gaussian_weights(30, 1.0))
    w_paper = GaussianDirectionalAttention(32, 4, 0.0).eval()._weights(q, k, mask, gaussian_weights(30, 1.0))
    assert w_local[0, :, 0, 12:].sum(-1).max().item() < 1e-6
    assert w_paper[0, :, 0, 12:].sum(-1).min().item() > 0.1
    with pytest.raises(ValueError, match="E052"):
        GDConfig(**SMALL, gaussian_mode="add")
