"""The torch module behind thinc: `PyTorchWrapper_v3`'s forward with a shim
whose optimizer step updates the parameters in place, arrays converted on the
way in and out, and one torch thread in a forked child (`nlp.pipe(n_process > 1)`)."""
import os
from functools import partial
from typing import Any, Callable, Tuple

import numpy
from thinc.api import ArgsKwargs, Model, xp2torch
from thinc.layers.pytorchwrapper import forward as pytorch_forward

from spacy_gdcws.ml.shims import InPlacePyTorchShim


def wrap_torch(net: Any, convert_in: Callable, mixed_precision: bool) -> Model:
    """PyTorchWrapper_v3 around `net`, but with a shim whose optimizer step does not
    leak memory (`shims.InPlacePyTorchShim`); outputs come back as float32 host arrays."""
    register_fork_handler()
    return Model(
        "pytorch",
        pytorch_forward,
        attrs={"convert_inputs": convert_in, "convert_outputs": convert_outputs},
        shims=[InPlacePyTorchShim(net, mixed_precision=mixed_precision)],
        dims={"nI": None, "nO": None},
    )



_FORK_HANDLER = {"registered": False}


def register_fork_handler() -> None:
    """After a fork (`nlp.pipe(n_process > 1)`), the child uses one torch thread:
    torch's OpenMP pool does not survive a fork and the child would hang."""
    if not _FORK_HANDLER["registered"] and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_single_torch_thread)
        _FORK_HANDLER["registered"] = True


def _single_torch_thread() -> None:
    import torch

    torch.set_num_threads(1)


def convert_inputs(model: Model, X: Tuple[numpy.ndarray, ...], is_train: bool) -> Tuple[ArgsKwargs, Callable]:
    """Move the int arrays to the torch device; ids get no gradient."""
    device = model.shims[0].device
    chars, bigrams, mask, lexicon, vectors = (xp2torch(model.ops.asarray(x), device=device) for x in X)
    args = ArgsKwargs(
        args=(chars, bigrams if bigrams.numel() else None, mask, lexicon if lexicon.numel() else None),
        kwargs={"vectors": vectors} if vectors.numel() else {},
    )
    return args, no_input_gradient


def no_input_gradient(d_inputs: Any) -> None:
    """The input gradient of row ids (`convert_inputs`' backprop): none."""
    return None


def convert_outputs(model: Model, X_Ytorch: Tuple[Any, Any], is_train: bool) -> Tuple[numpy.ndarray, Callable]:
    """Gap logits to a float32 host array; gradients back to the device."""
    _, Ytorch = X_Ytorch
    Y = Ytorch.detach().float().cpu().numpy()
    return Y, partial(output_gradient, Ytorch, model.shims[0].device)


def output_gradient(outputs: Any, device: Any, dY: Any) -> ArgsKwargs:
    """What thinc's PyTorch shim backpropagates: the gradients `dY` of the torch `outputs` (one
    tensor and its array, or tuples of both; an output whose gradient is None, or that needs none,
    is left out), as tensors on `device` in each output's dtype."""
    import torch

    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    grads = dY if isinstance(dY, tuple) else (dY,)
    # an output with no gradient to give (None), or none to take (a constant: an absent head's empty scores), is left out
    pairs = [(y, torch.as_tensor(g, device=device, dtype=y.dtype)) for y, g in zip(outputs, grads)
             if g is not None and y.requires_grad]
    return ArgsKwargs(args=(tuple(y for y, _ in pairs),), kwargs={"grad_tensors": tuple(g for _, g in pairs)})
