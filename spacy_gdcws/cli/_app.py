"""The typer application that every subcommand registers on."""
import typer

app = typer.Typer(
    name="spacy-gdcws",
    help="GD-Transformer Chinese word segmentation for spaCy",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def main() -> None:
    """Convert corpora, segment text, score segmentations."""
