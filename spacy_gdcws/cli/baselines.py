"""`train-pkuseg`: the pkuseg baseline retrained on a converted corpus."""
from pathlib import Path

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app
from spacy_gdcws.io import check_outputs


@app.command("train-pkuseg", hidden=True)
def train_pkuseg_cli(
    train: Path = typer.Argument(..., exists=True, dir_okay=False, help="Training docs (.spacy) with gold words"),
    dev: Path = typer.Argument(..., exists=True, dir_okay=False, help="Dev docs (.spacy), pkuseg's monitoring file"),
    output: Path = typer.Argument(..., file_okay=False, help="Model folder (for spacy_pkuseg.pkuseg or spaCy's pkuseg_model)"),
    iterations: int = typer.Option(20, "--iterations", "-n", help="Training iterations"),
) -> None:
    """Retrain spacy-pkuseg on exactly the sentences our segmenter trains on (needs
    the \\[baselines] extra). The folder loads with spacy_pkuseg.pkuseg(OUTPUT) and as
    [initialize.tokenizer] pkuseg_model of spaCy's zh tokenizer."""
    from spacy_gdcws.app.baselines import train_pkuseg

    check_outputs({"OUTPUT": output}, {"TRAIN": train, "DEV": dev}, folders=("OUTPUT",))
    seconds = train_pkuseg(train, dev, output, iterations)
    msg.good(f"pkuseg trained in {seconds:.0f} s -> {output}")
