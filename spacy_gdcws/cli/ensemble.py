"""`ensemble`: combine trained pipelines into one whose segmenter averages their gap logits."""
from pathlib import Path
from typing import List, Optional

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app
from spacy_gdcws.io import check_outputs


@app.command("ensemble")
def ensemble_cli(
    output: Path = typer.Argument(..., help="Where to save the ensemble pipeline"),
    models: List[str] = typer.Argument(..., help="Two or more trained pipelines (names or paths), same training data"),
    segmenter: Optional[str] = typer.Option(None, "--segmenter", help="Name of the segmenter (default: the first gdcws_segmenter)"),
) -> None:
    """Save one pipeline whose segmenter averages the gap logits of the given
    pipelines' segmenters (members trained on the same data, e.g. with other
    seeds). The tokenizer, other components and decoding settings come from the
    first pipeline; choose the ensemble's decoding weights with `tune-decoding`.
    Inference costs one forward pass per member."""
    from spacy_gdcws.app.ensemble import build_ensemble
    from spacy_gdcws.app.segment import load_pipeline, save_pipeline

    check_outputs({"OUTPUT": output}, {f"MODEL {i + 1}": m for i, m in enumerate(models)}, folders=("OUTPUT",))
    nlp = build_ensemble([load_pipeline(model) for model in models], segmenter)
    save_pipeline(nlp, output)
    msg.good(f"Ensemble of {len(models)} segmenters -> {output}")
