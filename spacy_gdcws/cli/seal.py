"""`seal`: the checksums of every file of a saved pipeline (the project seals what it packages)."""
from pathlib import Path

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app
from spacy_gdcws.errors import Errors


@app.command("seal")
def seal_cli(
    pipeline: Path = typer.Argument(..., help="A saved pipeline folder (with config.cfg)"),
) -> None:
    """Write PIPELINE/pipeline_checksums.json: the SHA-256 of each of its files (but meta.json and
    README.md, which `spacy package` rewrites). Its segmenter checks them when it loads."""
    from spacy_gdcws.pipeline.serialize import seal_pipeline

    if not (pipeline / "config.cfg").is_file():
        raise ValueError(Errors.E127.format(path=pipeline))
    seal_pipeline(pipeline)
    msg.good(f"Sealed {pipeline}")
