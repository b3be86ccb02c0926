"""`ml.fused_adam`: thinc's Adam over all of a module's parameters at once,
against thinc's own per-parameter step."""
import copy

import numpy
import pytest
import torch
from thinc.api import SGD, Adam, RAdam, torch2xp, xp2torch

from spacy_gdcws.ml import fused_adam
from spacy_gdcws.ml.fused_adam import can_fuse, fused_adam_step
from spacy_gdcws.ml.shims import InPlacePyTorchShim


def _net():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Embedding(50, 8), torch.nn.Linear(8, 3))


def _backward(net, x):
    (net(x).pow(2).sum() * 3).backward()


def _thinc_step(optimizer, net):
    for name, p in net.named_parameters():
        w, _ = optimizer((1, name), torch2xp(p.data), torch2xp(p.grad))
        p.data.copy_(xp2torch(w))
        p.grad.zero_()


def _fused_step(optimizer, net):
    fused_adam_step(optimizer, [((1, name), p) for name, p in net.named_parameters()])


def _train_pair(net, net_opt, other, other_opt, steps, seed, size, fused):
    """Both nets on the same random batches: `net` by thinc's step, `other` by the
    fused step at the steps where `fused(step)`, by thinc's at the others."""
    rng = torch.Generator().manual_seed(seed)
    for step in range(steps):
        x = torch.randint(0, 50, (size,), generator=rng)
        _backward(net, x)
        _backward(other, x)
        _thinc_step(net_opt, net)
        (_fused_step if fused(step) else _thinc_step)(other_opt, other)


@pytest.mark.parametrize("settings", [
    {"L2": 0.0, "grad_clip": 1.0},
    {"L2": 1e-3, "grad_clip": 0.0, "L2_is_weight_decay": True},
    {"L2": 1e-3, "grad_clip": 10.0, "L2_is_weight_decay": False},
])
def test_fused_step_is_thincs_step(settings):
    """Weights, moments, averages and update counts as thinc's Adam leaves them
    (clipping that triggers and that does not, both kinds of L2), to rounding."""
    net = _net()
    fused_net = copy.deepcopy(net)
    kwargs = dict(learn_rate=0.01, beta1=0.9, beta2=0.98, eps=1e-8, use_averages=True, **settings)
    thinc_opt, fused_opt = Adam(**kwargs), Adam(**kwargs)
    _train_pair(net, thinc_opt, fused_net, fused_opt, steps=5, seed=1, size=7, fused=lambda step: True)
    for (name, a), (_, b) in zip(net.named_parameters(), fused_net.named_parameters()):
        key = (1, name)
        assert torch.allclose(a, b, atol=1e-6), name
        assert numpy.allclose(thinc_opt.mom1[key], fused_opt.mom1[key], atol=1e-6)
        assert numpy.allclose(thinc_opt.mom2[key], fused_opt.mom2[key], atol=1e-7)
        assert fused_opt.averages[key].shape == thinc_opt.averages[key].shape
        assert numpy.allclose(thinc_opt.averages[key], fused_opt.averages[key], atol=1e-6)
        assert not b.grad.any()
    assert dict(fused_opt.nr_update) == dict(thinc_opt.nr_update)


def test_state_is_the_optimizers_and_can_switch_mid_run():
    """The moments are the optimizer's own arrays: thinc's step after fused ones
    (and the other way round) continues the same run."""
    net, other = _net(), _net()
    a, b = Adam(learn_rate=0.01), Adam(learn_rate=0.01)
    _train_pair(net, a, other, b, steps=6, seed=2, size=5, fused=lambda step: step % 2 == 0)
    for (_, p), (_, q) in zip(net.named_parameters(), other.named_parameters()):
        assert torch.allclose(p, q, atol=1e-6)


def test_only_thincs_adam_is_fused():
    assert can_fuse(Adam(0.001))
    assert not can_fuse(RAdam(0.001))
    assert not can_fuse(SGD(0.001))


def test_tiny_moments_are_flushed_to_zero(monkeypatch):
    """Moments below TINY become zero every FLUSH_EVERY updates (no subnormal floats)."""
    monkeypatch.setattr(fused_adam, "FLUSH_EVERY", 2)
    net = _net()
    optimizer = Adam(learn_rate=0.01)
    params = [((1, name), p) for name, p in net.named_parameters()]
    _backward(net, torch.tensor([1, 2]))
    fused_adam_step(optimizer, params)
    key = (1, "0.weight")
    optimizer.mom1[key][:] = 1e-39
    optimizer.mom2[key][:] = 1e-39
    _backward(net, torch.tensor([1, 2]))
    fused_adam_step(optimizer, params)
    untouched = numpy.ones(50, dtype=bool)
    untouched[[1, 2]] = False
    assert not optimizer.mom1[key].reshape(50, 8)[untouched].any()
    assert not optimizer.mom2[key].reshape(50, 8)[untouched].any()


def test_shim_finish_update_uses_the_fused_step(monkeypatch):
    calls = []
    monkeypatch.setattr("spacy_gdcws.ml.shims.fused_adam_step", lambda opt, params: calls.append(len(params)))
    shim = InPlacePyTorchShim(_net())
    shim.finish_update(Adam(0.001))
    assert calls == [3]
