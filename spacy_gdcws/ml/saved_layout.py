"""Loading a segmentation model's bytes, whichever layout saved them.

Until 2026-11-27 a segmentation model was one wrapper node over its torch layer, with every
setting and resource in the wrapper's attrs (`ngram_vocab`, `normalizer`, `window`, ...). It is now
the wrapper over a `featurize` and a `windows` layer (`ml.forward`), so thinc's `from_bytes`, which
loads node by node in walk order, would refuse the old bytes ("mismatched structure").
`load_model_bytes` lays old bytes out as the model is now (each layer its part of the wrapper's
attrs; the n-gram vocabulary and the character map into the featurize layer's `resources`) and
then loads them as thinc does. Bytes of the present layout load unchanged.
"""
from typing import Any, Dict, Iterator, List

import srsly
from thinc.api import Model
from thinc.util import convert_recursive, is_xp_array

from spacy_gdcws.ml.resources import RESOURCES, SETTINGS

_WINDOW_ATTRS = ("window", "batch_chars", "output", "n_scores", "pack_gap")


def load_model_bytes(model: Model, data: bytes) -> Model:
    """`model.from_bytes(data)`, for bytes of the present layout or of the one before it."""
    msg = srsly.msgpack_loads(data)
    if isinstance(msg, dict) and "nodes" in msg:
        msg = upgraded(model, msg)
    msg = convert_recursive(is_xp_array, model.ops.asarray, msg)
    return model.from_dict(msg)


def upgraded(model: Model, msg: Dict[str, List[Any]]) -> Dict[str, List[Any]]:
    """`msg` (a model's `to_dict`) laid out as `model` is now, where an old layout saved it;
    otherwise `msg` itself (thinc reports a structure that matches neither)."""
    nodes = list(model.walk())
    old = list(_old_walk(model))
    if len(msg["nodes"]) == len(nodes) or len(msg["nodes"]) != len(old) or len(old) == len(nodes):
        return msg
    old_index = {id(node): j for j, node in enumerate(old)}
    new_index = {id(node): i for i, node in enumerate(nodes)}
    parent = {id(layer): node for node in nodes if _is_segmentation(node) for layer in node.layers}
    out: Dict[str, List[Any]] = {"nodes": [], "attrs": [], "params": [], "shims": []}
    for i, node in enumerate(nodes):
        if id(node) in old_index:
            j = old_index[id(node)]
            info = dict(msg["nodes"][j])
            info["index"] = i
            info["refs"] = {name: None if ref is None else new_index[id(old[ref])]
                            for name, ref in info.get("refs", {}).items()}
            out["nodes"].append(info)
            # the old wrapper's attrs go to its two layers
            out["attrs"].append({} if _is_segmentation(node) else msg["attrs"][j])
            out["params"].append(msg["params"][j])
            out["shims"].append(msg["shims"][j])
        else:
            wrapper_attrs = msg["attrs"][old_index[id(parent[id(node)])]]
            out["nodes"].append({"index": i, "name": node.name, "dims": {}, "refs": {}})
            out["attrs"].append(_featurize_attrs(node, wrapper_attrs) if RESOURCES in node.attrs
                                else _windows_attrs(wrapper_attrs))
            out["params"].append({})
            out["shims"].append([])
    return out


def _is_segmentation(node: Model) -> bool:
    """A segmentation model of the present layout: featurize, then windows."""
    return len(node.layers) == 2 and RESOURCES in node.layers[0].attrs and node.layers[1].name == "windows"


def _old_walk(model: Model) -> Iterator[Model]:
    """The nodes in thinc's breadth-first order as the old layout had them: a segmentation
    model's children were its torch layer alone."""
    queue = [model]
    seen = set()
    for node in queue:
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        queue.extend(node.layers[1].layers if _is_segmentation(node) else node.layers)


def _featurize_attrs(node: Model, old: Dict[str, bytes]) -> Dict[str, bytes]:
    """The featurize layer's attrs from the old wrapper's: its settings as saved (the n-gram
    vocabulary's switch is the config's: the old attr of that name held the vocabulary), the
    n-gram vocabulary and the character map as its resources."""
    settings = dict(node.attrs[SETTINGS])
    for key in settings:
        if key in old and key != "ngram_vocab":
            settings[key] = srsly.msgpack_loads(old[key])
    vocab = old.get("ngram_vocab") if settings.get("ngram_vocab") else None
    recorded = old.get("ngram_vocab_recorded")
    resources = {
        "ngram_vocab": vocab,
        "ngram_vocab_recorded": bool(srsly.msgpack_loads(recorded)) if recorded is not None else False,
        "normalizer": old.get("normalizer"),  # absent: the map of the spec, as the model was built
    }
    return {SETTINGS: srsly.msgpack_dumps(settings), RESOURCES: srsly.msgpack_dumps(resources)}


def _windows_attrs(old: Dict[str, bytes]) -> Dict[str, bytes]:
    """The windows layer's attrs from the old wrapper's (models saved before packing did not pack)."""
    attrs = {key: old[key] for key in _WINDOW_ATTRS if key in old}
    attrs.setdefault("pack_gap", srsly.msgpack_dumps(0))
    return attrs
