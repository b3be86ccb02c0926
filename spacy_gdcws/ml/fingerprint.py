"""The fingerprint of a model's structure, which every component keeps in its saved cfg and checks
on load before a weight is read: a model that the pipeline's config.cfg builds differently (an
edited architecture line) is refused instead of loading weights into the wrong shapes."""
import dataclasses
import hashlib

from thinc.api import Model

from spacy_gdcws.ml.shims import InPlacePyTorchShim

_VOLATILE = {"training"}  # torch module state that is not structure
_OWN = ("spacy_gdcws.", "torch.nn.")  # the modules whose settings make the fingerprint


def model_fingerprint(model: Model) -> str:
    """SHA-256 of the model's structure: the kind and the scalar and dataclass settings (widths,
    dilations, sigma, switches) of each of our torch modules and torch's layers inside them, and
    the thinc model's window.

    model (Model): A component's model.
    RETURNS (str): The hex digest.
    """
    parts = []
    for node in model.walk():
        # our torch modules only: a pretrained transformer's shim (spacy-transformers)
        # builds its model when it loads, and is checked by its own files
        for shim in node.shims:
            if not isinstance(shim, InPlacePyTorchShim):
                continue
            for name, module in shim.net.named_modules():
                kind = type(module)
                if not kind.__module__.startswith(_OWN):  # a pretrained transformer describes itself in its own files
                    continue
                settings = {k: repr(v) for k, v in vars(module).items() if not k.startswith("_") and k not in _VOLATILE
                            and (isinstance(v, (bool, int, float, str, tuple, list)) or dataclasses.is_dataclass(v))}
                parts.append(f"{name} {kind.__name__} {sorted(settings.items())!r}")
        if "window" in node.attrs:
            parts.append(f"window {node.attrs['window']}")
    return hashlib.sha256("\n".join(parts).encode("utf8")).hexdigest()
