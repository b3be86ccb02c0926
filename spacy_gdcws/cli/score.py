"""`score`: the SIGHAN scorer, in Python (and the official perl script if given)."""
import json
from pathlib import Path

import typer

from ..sighan import score_files
from ._app import app


@app.command("score")
def score_cli(
    dictionary: Path = typer.Argument(..., exists=True, help="Training vocabulary, one word per line"),
    gold: Path = typer.Argument(..., exists=True, help="Gold segmentation"),
    test: Path = typer.Argument(..., exists=True, help="Segmentation to score, line-aligned with gold"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of the script's summary"),
) -> None:
    """Score a segmentation like `perl score DICT GOLD TEST` (same figures, same digits)."""
    result = score_files(dictionary, gold, test)
    typer.echo(json.dumps(result.to_dict(), indent=2) if as_json else result.summary())
