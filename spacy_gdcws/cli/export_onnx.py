"""`export-onnx`: save a copy of a trained pipeline whose segmenter's network runs on ONNX Runtime."""
from pathlib import Path
from typing import List, Optional

import spacy
import typer
from spacy.tokens import DocBin
from wasabi import msg

from spacy_gdcws.cli._app import app
from spacy_gdcws.io import check_outputs
from spacy_gdcws.ml.onnx import export_onnx


def calibration_texts(path: Path, vocab: object) -> List[str]:
    """The texts of a DocBin (.spacy) or the non-empty lines of a text file."""
    if path.suffix == ".spacy":
        return [doc.text for doc in DocBin().from_disk(path).get_docs(vocab)]
    from spacy_gdcws.segment import read_text_lines

    return [line for line in read_text_lines(path) if line.strip()]


@app.command("export-onnx")
def export_onnx_cli(
    model: str = typer.Argument(..., help="Trained pipeline (name or path) with a spacy_gdcws.CharSegmenter.v1 segmenter"),
    output: Path = typer.Argument(..., help="Where to save the exported pipeline"),
    calibration: Path = typer.Option(..., "--calibration", exists=True,
                                     help="Dev texts (.spacy or one text per line): int8 ranges are calibrated and the words compared on them"),
    precision: str = typer.Option("int8", "--precision", help="fp32 or int8"),
    threads: int = typer.Option(0, "--threads", help="ONNX Runtime threads saved in the model (0: follow `segment --threads`)"),
    segmenter: Optional[str] = typer.Option(None, "--segmenter", help="Name of the segmenter (default: the first gdcws_segmenter)"),
) -> None:
    """Export the segmenter's network (embed >> encoder >> scorer) to ONNX, in float32 or
    statically quantized int8, and save a pipeline that runs it on ONNX Runtime
    (`pip install 'spacy-gdcws[onnx]'`); everything else (features, decoding, dictionaries)
    is the source pipeline's. Prints on how many calibration lines its words differ."""
    check_outputs({"OUTPUT": output}, {"MODEL": model, "--calibration": calibration}, folders=("OUTPUT",))
    nlp = spacy.load(model)
    try:
        result = export_onnx(nlp, calibration_texts(calibration, nlp.vocab), precision=precision, threads=threads,
                             segmenter=segmenter)
    except (ValueError, ImportError) as err:
        msg.fail(str(err), exits=1)
    result.nlp.to_disk(output)
    share = result.changed_lines / max(1, result.lines)
    msg.good(f"{precision} ONNX segmenter -> {output}: words differ from {model} on {result.changed_lines} of "
             f"{result.lines} calibration lines ({share:.2%})")
