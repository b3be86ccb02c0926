"""A trained segmenter's network on ONNX Runtime, in float32 or int8 (`pip install 'spacy-gdcws[onnx]'`).

    python -m spacy_gdcws export-onnx training/model-best zh_gdcws_int8 --precision int8 \\
        --calibration corpus/sxu/dev.spacy
    nlp = spacy.load("zh_gdcws_int8")        # onnxruntime, no torch module inside

`export_onnx` writes the trained torch network (`embed >> encoder >> scorer`)
as one ONNX graph and puts it, in place of the torch module, into a copy of
the pipeline: `spacy_gdcws.OnnxSegmenter.v1` keeps the data path of
`spacy_gdcws.CharSegmenter.v1` (features, windows, decoding, the training
words, the n-gram vocabulary, the user dictionary) and only the arithmetic
runs on ONNX Runtime's CPU kernels. With `precision = "int8"` the graph's
convolutions are quantized statically (int8 weights per
output channel, uint8 activations whose ranges are calibrated on the given
docs; ONNX Runtime's QDQ format): on a CPU with AVX-512 VNNI the int8 kernels
do four times the multiply-adds of float32 per instruction. The embedding
tables stay float32. The pipeline predicts only (it cannot be trained or
updated); its words are compared with the source pipeline's on the
calibration docs when it is exported (`OnnxExport.changed_lines`).

Threads: ONNX Runtime's intra-op threads follow torch's setting in the
process (`segment --threads`, `spacy_gdcws.segment.set_threads`; one thread
in a forked `nlp.pipe(n_process > 1)` child) unless the model sets `threads`.
"""
import dataclasses
import hashlib
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy import util
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Config, Model
from thinc.types import Floats2d

from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.forward import feature_settings, segmentation_model
from spacy_gdcws.ml.state import ENSEMBLE_ATTR, QUANTIZED_ATTR

ONNX_ATTR = "onnx_model"
PRECISIONS = ("fp32", "int8")
# the inputs of `featurize`, in its order; the graph takes those the model uses
INPUT_NAMES = ("chars", "bigrams", "mask", "lexicon", "vectors")
ARCHITECTURE = "spacy_gdcws.OnnxSegmenter.v1"


@registry.architectures(ARCHITECTURE)
def build_onnx_segmenter(
    features: Dict[str, Any],
    kind: str,
    n_aux: int = 0,
    window: int = 512,
    batch_chars: int = 16384,
    precision: str = "fp32",
    threads: int = 0,
) -> Model[List[Doc], List[Floats2d]]:
    """The data path of `spacy_gdcws.CharSegmenter.v1` around an ONNX graph of
    a trained network (written by `export_onnx`, saved with the model).

    features (Dict[str, Any]): The embedding's featurization settings (the
        arguments of `ml.forward.feature_settings`: char_rows, char_seeds,
        bigrams, ...), copied from the trained pipeline's `CharEmbed` block.
    kind (str): "gaps" (gap logits) or "tags" (CRF potentials).
    n_aux (int): Auxiliary score columns (HiRED: 1).
    window, batch_chars (int): As in `spacy_gdcws.CharSegmenter.v1`.
    precision (str): "fp32" or "int8": what the saved graph computes in (set
        by the export; it does not convert a graph on load).
    threads (int): ONNX Runtime intra-op threads; 0 = torch's setting in the
        process (`segment --threads`).
    RETURNS (Model[List[Doc], List[Floats2d]]): As `CharSegmenter.v1`; predicts only.
    """
    if precision not in PRECISIONS:
        raise ValueError(Errors.E094.format(precision=precision, options=", ".join(PRECISIONS)))
    if kind not in ("gaps", "tags"):
        raise ValueError(Errors.E095.format(kind=kind))
    if features.get("vectors"):
        raise ValueError(Errors.E096)
    layer = Model(
        "onnx",
        _onnx_forward,
        attrs={ONNX_ATTR: b"", "precision": precision, "threads": int(threads), "inputs": ""},
    )
    return segmentation_model(layer, feature_settings(**features), kind=kind, n_aux=n_aux, window=window,
                              batch_chars=batch_chars)


# one session per (graph, threads, process): sessions are thread-safe, but a
# forked child must not use its parent's thread pool
_SESSIONS: Dict[Tuple[str, int, int], Any] = {}
_SESSIONS_LOCK = threading.Lock()


def _session(layer: Model) -> Any:
    graph = layer.attrs[ONNX_ATTR]
    if not graph:
        raise ValueError(Errors.E097)
    try:
        import onnxruntime
    except ImportError as err:
        raise ImportError(Errors.E098) from err
    threads = layer.attrs["threads"] or _torch_threads()
    key = (hashlib.sha256(graph).hexdigest(), threads, os.getpid())
    with _SESSIONS_LOCK:
        session = _SESSIONS.get(key)
        if session is None:
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            session = _SESSIONS[key] = onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
    return session


def _torch_threads() -> int:
    try:
        import torch
    except ImportError:
        return 0
    return torch.get_num_threads()


def _onnx_forward(model: Model, X: Tuple[numpy.ndarray, ...], is_train: bool) -> Tuple[numpy.ndarray, Any]:
    if is_train:
        raise ValueError(Errors.E099)
    names = model.attrs["inputs"].split(",")
    feeds = {name: array for name, array in zip(INPUT_NAMES, X) if name in names}
    scores = _session(model).run(None, feeds)[0]
    return numpy.asarray(scores, dtype=numpy.float32), _predict_only


def _predict_only(_: Any) -> Any:
    raise ValueError(Errors.E099)


@dataclasses.dataclass
class OnnxExport:
    """What `export_onnx` made: the pipeline, and its words against the source's
    on the calibration docs (lines whose words differ, of all lines)."""

    nlp: Language
    changed_lines: int
    lines: int


def export_onnx(nlp: Language, calibration: Sequence[str], *, precision: str = "fp32", threads: int = 0,
                segmenter: Optional[str] = None) -> OnnxExport:
    """A copy of `nlp` whose segmenter's network runs on ONNX Runtime.

    nlp (Language): A trained pipeline whose segmenter is `spacy_gdcws.CharSegmenter.v1`.
    calibration (Sequence[str]): Texts (e.g. the dev file's): int8 ranges are
        calibrated on them, and the new pipeline's words are compared with
        `nlp`'s on them.
    precision (str): "fp32" or "int8".
    threads (int): Saved in the model (0 = follow torch's setting).
    RETURNS (OnnxExport): The new pipeline and the lines whose words changed.
    """
    import torch

    from spacy_gdcws.segment import find_segmenter

    if precision not in PRECISIONS:
        raise ValueError(Errors.E094.format(precision=precision, options=", ".join(PRECISIONS)))
    if not calibration:
        raise ValueError(Errors.E100)
    name = find_segmenter(nlp, segmenter)
    pipe = nlp.get_pipe(name)
    source = nlp.config["components"][name]["model"]
    if source.get("@architectures") != "spacy_gdcws.CharSegmenter.v1" or pipe.model.attrs.get(ENSEMBLE_ATTR) \
            or pipe.model.attrs.get(QUANTIZED_ATTR):
        raise ValueError(Errors.E101.format(architecture=source.get("@architectures")))
    net = pipe.model.layers[0].shims[0]._model
    features = dict(net.embed.features)
    batches = _recorded_inputs(nlp, pipe, net, calibration)
    inputs = [n for n, x in zip(INPUT_NAMES, batches[0]) if x.size]
    graph = _export_graph(net, inputs, batches[0], torch)
    if precision == "int8":
        graph = _quantize(graph, inputs, batches)
    config = Config(nlp.config).copy()
    config["components"][name]["model"] = {
        "@architectures": ARCHITECTURE,
        "kind": pipe.model.attrs["output"],
        "n_aux": int(getattr(net.encoder, "has_aux", False)),
        "window": source.get("window", 512),
        "batch_chars": source.get("batch_chars", 16384),
        "precision": precision,
        "threads": threads,
        "features": features,
    }
    out = util.load_model_from_config(config, auto_fill=False, validate=True)
    out.from_bytes(nlp.to_bytes(exclude=[name]), exclude=[name])
    new_pipe = out.get_pipe(name)
    new_pipe.from_bytes(pipe.to_bytes(exclude=["model", "vocab"]), exclude=["model", "vocab"])
    for key in list(new_pipe.model.attrs):  # the n-gram vocabulary and the dictionaries
        if key in pipe.model.attrs and key != QUANTIZED_ATTR:
            new_pipe.model.attrs[key] = pipe.model.attrs[key]
    layer = new_pipe.model.layers[0]
    layer.attrs[ONNX_ATTR] = graph
    layer.attrs["inputs"] = ",".join(inputs)
    new_pipe.train_words = pipe.train_words
    new_pipe.general_words = pipe.general_words
    changed = sum(a != b for a, b in zip(_words(nlp, calibration), _words(out, calibration)))
    return OnnxExport(out, changed, len(calibration))


def _words(nlp: Language, texts: Iterable[str]) -> List[Tuple[str, ...]]:
    return [tuple(t.text for t in doc) for doc in nlp.pipe(texts, batch_size=256)]


def _recorded_inputs(nlp: Language, pipe: Any, net: Any, texts: Sequence[str]) -> List[Tuple[numpy.ndarray, ...]]:
    """The padded arrays that the net receives on `texts` (every batch), in `featurize`'s order."""
    recorded: List[Tuple[numpy.ndarray, ...]] = []
    layer = pipe.model.layers[0]
    convert = layer.attrs["convert_inputs"]

    def recording(model: Model, X: Tuple[numpy.ndarray, ...], is_train: bool) -> Any:
        recorded.append(tuple(numpy.asarray(x) for x in X))
        return convert(model, X, is_train)

    layer.attrs["convert_inputs"] = recording
    try:
        for _ in nlp.pipe(texts, batch_size=256):
            pass
    finally:
        layer.attrs["convert_inputs"] = convert
    return recorded


def _export_graph(net: Any, inputs: List[str], example: Tuple[numpy.ndarray, ...], torch: Any) -> bytes:
    """The net as ONNX bytes, batch and length dynamic (opset 17)."""
    import warnings

    class Graph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, *args: Any) -> Any:
            given = dict(zip(inputs, args))
            return self.net(given["chars"], given.get("bigrams"), given["mask"], given.get("lexicon"))

    args = tuple(torch.from_numpy(x) for n, x in zip(INPUT_NAMES, example) if n in inputs)
    axes = {n: {0: "batch", 1: "length1" if n == "bigrams" else "length"} for n in inputs}
    axes["scores"] = {0: "batch", 1: "length"}
    net.eval()
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = Path(tmp) / "net.onnx"
        with torch.no_grad():
            torch.onnx.export(Graph(), args, str(path), dynamo=False, input_names=inputs, output_names=["scores"],
                              dynamic_axes=axes, opset_version=17)
        return path.read_bytes()


def _quantize(graph: bytes, inputs: List[str], batches: List[Tuple[numpy.ndarray, ...]]) -> bytes:
    """Static int8 quantization (QDQ) of the graph's convolutions (where the
    arithmetic is), activation ranges calibrated on the recorded batches as the
    moving average of each batch's range (the extremes of one batch widen every
    step: on SXU dev it changed the words of 2.3% of lines against 3.4% with the
    overall extremes and MatMul / Gemm quantized too; `docs/speed.md`)."""
    try:
        from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
        from onnxruntime.quantization.shape_inference import quant_pre_process
    except ImportError as err:
        raise ImportError(Errors.E098) from err

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter(batches)

        def get_next(self) -> Optional[Dict[str, numpy.ndarray]]:
            batch = next(self.batches, None)
            if batch is None:
                return None
            return {n: x for n, x in zip(INPUT_NAMES, batch) if n in inputs}

    with tempfile.TemporaryDirectory() as tmp:
        src, pre, out = (Path(tmp) / f for f in ("net.onnx", "pre.onnx", "int8.onnx"))
        src.write_bytes(graph)
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["Conv"],
                        extra_options={"CalibMovingAverage": True})
        return out.read_bytes()
