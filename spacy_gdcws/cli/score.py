"""`score`: the SIGHAN scorer, in Python (and the official perl script if given)."""
import json
from pathlib import Path

import typer

from spacy_gdcws.cli._app import app, fail
from spacy_gdcws.errors import Errors


@app.command("score")
def score_cli(
    dictionary: Path = typer.Argument(..., exists=True, dir_okay=False, help="Training vocabulary, one word per line"),
    gold: Path = typer.Argument(..., exists=True, dir_okay=False, help="Gold segmentation"),
    test: Path = typer.Argument(..., exists=True, dir_okay=False, help="Segmentation to score, line-aligned with gold"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of the script's summary"),
    digits: int = typer.Option(3, "--digits", help="Decimals in the summary (the perl script prints 3)"),
) -> None:
    """Score a segmentation like `perl score DICT GOLD TEST` (same figures, same digits
    by default). Files that are not line-aligned, or whose lines hold other
    characters than the gold's, are an error (the perl script scores them silently)."""
    from spacy_gdcws.eval.sighan import score_files

    if not 1 <= digits <= 10:
        fail(Errors.E050.format(value=digits))
    result = score_files(dictionary, gold, test)
    typer.echo(json.dumps(result.to_dict(), indent=2) if as_json else result.summary(digits))
