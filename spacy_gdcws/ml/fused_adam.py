"""thinc's Adam step over all of a torch module's parameters at once.

thinc's `Optimizer.__call__` updates one parameter array per call: a Python
call, a host round trip through thinc's array types and a scalar Cython loop
for each of the module's parameters, every step (about a fifth of a `fast.cfg`
training step on 2 CPU cores, #50). `fused_adam_step` computes the same update
(thinc's per-parameter gradient clipping, its bias-corrected Adam, weight
decay and parameter averages, and `nr_update` per key) with torch's fused
Adam kernel and its multi-tensor `_foreach` operations on the parameters' own
device.

The state stays the optimizer's: the moments and averages are the arrays in
`optimizer.mom1`, `mom2` and `averages` (created as thinc creates them), seen
by torch without a copy (`torch.as_tensor`: numpy's buffer, CuPy's CUDA array
interface). A run can switch between this step and thinc's at any step, and
`optimizer.averages` still serves `use_params` and `model-best`. One
difference, on purpose: moments below 1e-30 are set to zero (`_flush_tiny`),
so that they never become subnormal floats, which make each pass over them
ten times slower.
"""
from collections import defaultdict
from typing import Any, Dict, List, Sequence, Tuple

from thinc.api import Optimizer, torch2xp

Key = Tuple[int, str]
# moments below TINY are set to zero every FLUSH_EVERY updates (`_flush_tiny`): a
# moment decays from TINY into the subnormal range (< 1.2e-38) in no fewer than
# about 170 updates (beta1 = 0.9), so it never gets there
TINY = 1e-30
FLUSH_EVERY = 50


def can_fuse(optimizer: Any) -> bool:
    """Whether `fused_adam_step` computes exactly what `optimizer` would: thinc's
    own `Optimizer` class in Adam mode (not RAdam, not plain SGD)."""
    return (
        type(optimizer) is Optimizer
        and not optimizer.use_radam
        and optimizer.b1 > 0.0
        and optimizer.b2 > 0.0
    )


def _state(store: Dict[Key, Any], key: Key, param: Any, shape: Tuple[int, ...]) -> Any:
    """The optimizer's state array for `key` as a tensor sharing its memory,
    created as thinc creates it (float32 zeros of `shape`) when missing."""
    import torch

    if key not in store:
        store[key] = torch2xp(torch.zeros(shape, dtype=torch.float32, device=param.device))
    return torch.as_tensor(store[key], device=param.device).view(-1)


def fused_adam_step(optimizer: Optimizer, params: Sequence[Tuple[Key, Any]]) -> None:
    """Update `params` (key, torch parameter with a gradient) in place as
    `optimizer(key, weights, gradient)` would, one kernel per operation for all
    of them; the gradients are zeroed.

    optimizer (Optimizer): thinc's Adam (`can_fuse`).
    params (Sequence[Tuple[Key, Any]]): the optimizer's keys and torch parameters.
    """
    import torch

    live = [(key, p) for key, p in params if p.grad is not None and p.grad.numel() > 0]
    if not live:
        return
    # thinc counts updates per key; parameters updated the same number of times share a bias correction
    groups: Dict[int, List[Tuple[Key, Any]]] = defaultdict(list)
    for key, p in live:
        optimizer.nr_update[key] += 1
        groups[optimizer.nr_update[key]].append((key, p))
    with torch.no_grad():
        for nr_upd, members in groups.items():
            _step_group(optimizer, nr_upd, members)


def _step_group(optimizer: Optimizer, nr_upd: int, members: List[Tuple[Key, Any]]) -> None:
    import torch

    weights = [p.data.view(-1) for _, p in members]
    grads = [p.grad.view(-1) for _, p in members]
    if optimizer.L2 != 0 and not optimizer.L2_is_weight_decay:
        torch._foreach_add_(grads, weights, alpha=float(optimizer.L2))
    if optimizer.grad_clip:
        _clip_each(grads, float(optimizer.grad_clip))
    mom1 = [_state(optimizer.mom1, key, p, (p.numel(),)) for key, p in members]
    mom2 = [_state(optimizer.mom2, key, p, (p.numel(),)) for key, p in members]
    b1, b2, eps = float(optimizer.b1), float(optimizer.b2), float(optimizer.eps)
    fix2 = 1.0 - b2**nr_upd
    # torch's fused Adam divides by sqrt(m2) / sqrt(fix2) + eps where thinc divides by
    # sqrt(m2) + eps and scales the rate by sqrt(fix2): the same step with eps * ... / sqrt(fix2)
    steps = [torch.tensor(float(nr_upd), device=w.device) for w in weights]
    torch._fused_adam_(weights, grads, mom1, mom2, [], steps, lr=float(optimizer.learn_rate), beta1=b1,
                       beta2=b2, weight_decay=0.0, eps=eps / fix2**0.5, amsgrad=False, maximize=False)
    if optimizer.L2 != 0 and optimizer.L2_is_weight_decay:
        torch._foreach_mul_(weights, 1.0 - float(optimizer.learn_rate) * float(optimizer.L2))
    if optimizer.averages is not None:
        decay = min((1.0 + nr_upd) / (10.0 + nr_upd), 0.9999)
        averages = [_state(optimizer.averages, key, p, tuple(p.shape)) for key, p in members]
        # thinc: ema -= (1 - decay) * (ema - weights)
        torch._foreach_lerp_(averages, weights, 1.0 - decay)
    torch._foreach_zero_(grads)
    if nr_upd % FLUSH_EVERY == 0:
        _flush_tiny(mom1 + mom2)


def _clip_each(grads: List[Any], clip: float) -> None:
    """thinc's clipping: each gradient whose norm is at least `clip` is scaled to norm `clip`."""
    import torch

    norms = torch.stack(torch._foreach_norm(grads))
    if norms.device.type == "cpu":
        # on the host, scale only the gradients that need it
        over = [(g, clip / n) for g, n in zip(grads, norms.tolist()) if n >= clip]
        if over:
            torch._foreach_mul_([g for g, _ in over], [s for _, s in over])
    else:
        scales = torch.where(norms >= clip, clip / norms, torch.ones_like(norms))
        torch._foreach_mul_(grads, list(scales.unbind()))


def _flush_tiny(arrays: List[Any]) -> None:
    """Zero the moments' entries below `TINY`. The moments of rows that get no
    gradient (most of an embedding table's, each step) decay geometrically into
    subnormal floats, on which every CPU operation is about ten times slower
    (measured: 29.6 ms against 2.6 ms for the same three passes over 4.5M
    floats); such an entry moves its weight by less than 1e-15 a step."""
    for array in arrays:
        array.masked_fill_(array.abs() < TINY, 0.0)
