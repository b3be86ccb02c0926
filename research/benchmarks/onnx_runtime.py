"""Does ONNX Runtime pay for our segmenters on this CPU? The trained network (`embed >> encoder >>
scorer`) exported to ONNX (float32, and int8: static QDQ quantization of the convolutions, activation
ranges calibrated on dev), run in place of the torch module on the same data path, against torch in
the same process, the contenders taking turns.

    pip install onnxruntime onnx
    python research/benchmarks/onnx_runtime.py --model zh_gdcws --calibration corpus/ud_gsd_more/dev.spacy \\
        --output research/benchmarks/results/onnx_runtime.json

Reports characters per second through `nlp.pipe` on SXU test (median of `--runs` passes per round,
median over rounds) and the SXU test lines whose words differ from torch float32. ONNX Runtime uses
as many intra-op threads as torch, without spinning between runs (its default spinning starves
torch's threads in the same process). The answer on the 2-core machine of 2026-11-26 (docs/speed.md):
no, so the product has no ONNX path (it was `export-onnx` in commit e359a74).
"""
import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from reports import emit  # noqa: E402
INPUT_NAMES = ("chars", "bigrams", "mask", "lexicon", "vectors")


def recorded_batches(nlp: Any, layer: Any, texts: List[str]) -> List[Tuple[numpy.ndarray, ...]]:
    """The padded arrays the network receives on `texts`, every batch."""
    recorded = []
    convert = layer.attrs["convert_inputs"]

    def recording(model: Any, X: Tuple[numpy.ndarray, ...], is_train: bool) -> Any:
        recorded.append(tuple(numpy.asarray(x) for x in X))
        return convert(model, X, is_train)

    layer.attrs["convert_inputs"] = recording
    try:
        for _ in nlp.pipe(texts, batch_size=256):
            pass
    finally:
        layer.attrs["convert_inputs"] = convert
    return recorded


def export(net: Any, inputs: List[str], example: Tuple[numpy.ndarray, ...], path: Path) -> None:
    import torch

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
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(Graph(), args, str(path), dynamo=False, input_names=inputs, output_names=["scores"],
                          dynamic_axes=axes, opset_version=17)


def quantize(src: Path, out: Path, inputs: List[str], batches: List[Tuple[numpy.ndarray, ...]]) -> None:
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter(batches)

        def get_next(self) -> Any:
            batch = next(self.batches, None)
            return None if batch is None else {n: x for n, x in zip(INPUT_NAMES, batch) if n in inputs}

    pre = out.with_suffix(".pre.onnx")
    quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
    # the convolutions only, ranges as the moving average of each batch's (on SXU dev this changed the
    # fewest words of the variants tried: MinMax over all batches, MatMul/Gemm too, symmetric int8)
    quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["Conv"],
                    extra_options={"CalibMovingAverage": True})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--calibration", type=Path, required=True, help="dev .spacy: int8 ranges are calibrated on it")
    parser.add_argument("--sxu-test", type=Path, default=ROOT.parent / "shared" / "corpora" / "sxu" / "test.txt")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()

    import onnxruntime
    import spacy
    import torch
    from spacy.tokens import DocBin

    from spacy_gdcws.pipeline.names import find_segmenter

    nlp = spacy.load(args.model)
    pipe = nlp.get_pipe(find_segmenter(nlp))
    layer = pipe.model.layers[0]
    net = layer.shims[0].net
    texts = ["".join(line.split()) for line in args.sxu_test.read_text(encoding="utf8").splitlines()]
    texts = [t for t in texts if t]
    chars = sum(map(len, texts))
    dev = [doc.text for doc in DocBin().from_disk(args.calibration).get_docs(nlp.vocab)]
    batches = recorded_batches(nlp, layer, dev)
    inputs = [n for n, x in zip(INPUT_NAMES, batches[0]) if x.size]
    torch_forward = layer._func
    contenders = {"torch_fp32": torch_forward}
    with tempfile.TemporaryDirectory() as tmp:
        graphs = {"onnx_fp32": Path(tmp) / "fp32.onnx", "onnx_int8": Path(tmp) / "int8.onnx"}
        export(net, inputs, batches[0], graphs["onnx_fp32"])
        quantize(graphs["onnx_fp32"], graphs["onnx_int8"], inputs, batches)
        for name, path in graphs.items():
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = torch.get_num_threads()
            # ONNX Runtime's threads spin between runs by default: in one process with torch they take
            # the cores from torch's threads (torch measured 2-20x slower once a session had run)
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

            def run(model: Any, X: Tuple[numpy.ndarray, ...], is_train: bool, session: Any = session) -> Any:
                feeds = {n: x for n, x in zip(INPUT_NAMES, X) if n in inputs}
                return numpy.asarray(session.run(None, feeds)[0], dtype=numpy.float32), None

            contenders[name] = run
        words: Dict[str, List[Tuple[str, ...]]] = {}
        speeds: Dict[str, List[float]] = {name: [] for name in contenders}
        for round_no in range(args.rounds):
            for name, func in contenders.items():
                layer._func = func
                if round_no == 0:
                    words[name] = [tuple(t.text for t in doc) for doc in nlp.pipe(texts, batch_size=256)]
                times = []
                for _ in range(args.runs):
                    start = time.perf_counter()
                    sum(len(doc) for doc in nlp.pipe(texts, batch_size=256))
                    times.append(time.perf_counter() - start)
                speeds[name].append(chars / statistics.median(times))
                print(f"round {round_no + 1} {name:11} {speeds[name][-1]:>10,.0f} chars/s", file=sys.stderr)
        layer._func = torch_forward
    report = {
        "command": " ".join(["python"] + sys.argv), "model": args.model, "threads": torch.get_num_threads(),
        "onnxruntime": onnxruntime.__version__, "torch": torch.__version__, "chars": chars, "lines": len(texts),
        "chars_per_second": {name: round(statistics.median(v)) for name, v in speeds.items()},
        "x_torch_fp32": {name: round(statistics.median(a / b for a, b in zip(v, speeds["torch_fp32"])), 3)
                         for name, v in speeds.items()},
        "lines_differing_from_torch_fp32": {name: sum(a != b for a, b in zip(w, words["torch_fp32"]))
                                            for name, w in words.items()},
    }
    emit(report, args.output)


if __name__ == "__main__":
    main()
