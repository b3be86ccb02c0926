"""A PyTorchShim whose optimizer step updates the torch parameters in place.

thinc's `PyTorchShim.finish_update` rebinds `param.data` to a new tensor made
from the optimizer's array after every step. Each new tensor keeps the previous
one alive through the numpy array it wraps, so memory grows with every update
(about 5 MB a step for the CPU model; a 10,000-step run was killed at 12 GB).
Copying the result into the existing storage keeps memory flat.

Prediction runs under `torch.inference_mode` (cheaper than thinc's `no_grad`:
no version counters, no view tracking) and, with `mixed_precision`, autocasts
to bfloat16 on the model's device, GPU or CPU (thinc's default is float16 on
GPU only, whose range can overflow the Gaussian-weighted logits; the model's
softmax runs in float32 either way). On a CPU with AVX512-BF16 or AMX this
about doubles prediction speed; elsewhere it can be slower. Training on CPU
stays float32: gradient scaling is only enabled on GPU (thinc's scaler raises
on CPU).

Saved weights are read as tensors only (`load_weights`: `torch.load(weights_only=True)`,
whatever torch's default): a pipeline's model file never runs code.

`use_params` understands the optimizer's own keys: thinc's version looks for
string keys `pytorch_{id}_{name}`, but `Optimizer.averages` is keyed by
`(shim id, name)`, so with thinc's shim `use_averages = true` silently did
nothing for a PyTorch model (evaluation and `model-best` used the raw weights).
"""
import contextlib
import pickle
import warnings
from io import BytesIO
from typing import Any, Dict, Iterator, List

from thinc.api import ArgsKwargs, Model, Optimizer, torch2xp, xp2torch
from thinc.shims import PyTorchGradScaler, PyTorchShim
from thinc.util import get_torch_default_device

from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.fused_adam import can_fuse, fused_adam_step


class InPlacePyTorchShim(PyTorchShim):
    """PyTorchShim with an in-place `finish_update` (no growth across steps),
    an inference-mode `predict` and a `use_params` that applies the
    optimizer's parameter averages."""

    def __init__(self, model: Any, *, mixed_precision: bool = False, **kwargs: Any) -> None:
        device = kwargs.pop("device", None) or get_torch_default_device()
        if kwargs.get("grad_scaler") is None:
            kwargs["grad_scaler"] = PyTorchGradScaler(enabled=mixed_precision and device.type == "cuda")
        kwargs.setdefault("deserialize_model", load_weights)
        super().__init__(model, mixed_precision=mixed_precision, device=device, **kwargs)
        # the config's setting, and the float module while `net` is its int8 copy (`ml.precision`)
        self.saved_mixed_precision = bool(mixed_precision)
        self.float_net: Any = None

    @property
    def net(self) -> Any:
        """The torch module (thinc keeps it as the shim's private `_model`: read and
        replaced here only, e.g. by its quantised copy)."""
        return self._model

    @net.setter
    def net(self, module: Any) -> None:
        self._model = module

    @property
    def mixed_precision(self) -> bool:
        """Whether prediction autocasts to bfloat16 (and GPU training to float16)."""
        return self._mixed_precision

    @mixed_precision.setter
    def mixed_precision(self, enabled: bool) -> None:
        self._mixed_precision = bool(enabled)

    def begin_update(self, inputs: ArgsKwargs) -> Any:
        """thinc's update; on CPU without its 'CUDA is not available' warning
        (its fp16 autocast is for GPUs only, CPU training stays float32)."""
        if self.device.type == "cuda" or not self._mixed_precision:
            return super().begin_update(inputs)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="CUDA is not available")
            return super().begin_update(inputs)

    def predict(self, inputs: ArgsKwargs) -> Any:
        """Run the module in eval mode under `torch.inference_mode` (thread-safe:
        concurrent predictions never change the module's state)."""
        import torch

        # eval mode stays set until the next update (whose begin_update sets train
        # mode): toggling it back after every call would let one thread's call
        # switch dropout on under another thread's prediction
        if self._model.training:
            self._model.eval()
        with torch.inference_mode():
            with torch.autocast(device_type=self.device.type, dtype=torch.bfloat16, enabled=self._mixed_precision):
                outputs = self._model(*inputs.args, **inputs.kwargs)
        return outputs

    def finish_update(self, optimizer: Optimizer) -> None:
        """One optimizer step over the module's parameters, in place. thinc's Adam
        runs fused over all of them (`fused_adam.fused_adam_step`: the same update,
        the same state in the optimizer); any other optimizer is called per parameter."""
        import torch

        if can_fuse(optimizer):
            if self._grad_scaler.found_inf:  # skip the step if a gradient overflowed
                for torch_data in self._model.parameters():
                    if torch_data.grad is not None:
                        torch_data.grad.zero_()
            else:
                fused_adam_step(optimizer, [((self.id, name), p) for name, p in self._model.named_parameters()])
            self._grad_scaler.update()
            return
        for name, torch_data in self._model.named_parameters():
            if torch_data.grad is None:
                continue
            if not self._grad_scaler.found_inf:  # skip the step if a gradient overflowed
                param, _ = optimizer((self.id, name), torch2xp(torch_data.data), torch2xp(torch_data.grad))
                updated = xp2torch(param, device=torch_data.device)
                if updated.data_ptr() != torch_data.data.data_ptr():
                    with torch.no_grad():
                        torch_data.data.copy_(updated)
            torch_data.grad.zero_()
        self._grad_scaler.update()

    @contextlib.contextmanager
    def use_params(self, params: Dict[Any, Any]) -> Iterator[None]:
        """Temporarily swap in parameter values keyed `(self.id, name)` (the
        optimizer's keys, as in `Optimizer.averages`) or `pytorch_{id}_{name}`
        (thinc's convention); the current values come back afterwards.

        params (Dict[Any, Any]): Arrays by key; keys of other shims are ignored.
        """
        import torch

        prefix = f"pytorch_{self.id}_"
        backup = {}
        with torch.no_grad():
            for name, torch_data in self._model.named_parameters():
                value = params.get((self.id, name), params.get(prefix + name))
                if value is None:
                    continue
                backup[name] = torch_data.detach().clone()
                torch_data.copy_(xp2torch(value, device=torch_data.device).reshape(torch_data.shape))
        try:
            yield
        finally:
            if backup:
                with torch.no_grad():
                    for name, torch_data in self._model.named_parameters():
                        if name in backup:
                            torch_data.copy_(backup[name])


def torch_shims(model: Model) -> List[InPlacePyTorchShim]:
    """Our torch shims under a thinc model, in walk order: one per segmentation net
    (one for a model, one per member of an ensemble); a pretrained transformer's
    own shim (spacy-transformers) is not one of them."""
    return [shim for node in model.walk() for shim in node.shims if isinstance(shim, InPlacePyTorchShim)]


def load_weights(model: Any, state_bytes: bytes, device: Any) -> Any:
    """thinc's deserializer of a torch module's saved state, reading tensors only
    (`torch.load(weights_only=True)`): a state that holds anything else (a pickled
    object, whose code torch < 2.6 would run while loading) is refused (E099)."""
    import torch

    try:
        state = torch.load(BytesIO(state_bytes), map_location=device, weights_only=True)
    except pickle.UnpicklingError as err:
        raise ValueError(Errors.E099.format(error=str(err).splitlines()[0])) from None
    model.load_state_dict(state)
    model.to(device)
    return model
