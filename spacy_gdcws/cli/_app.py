import typer

app = typer.Typer(name="spacy-gdcws", help="GD-Transformer Chinese word segmentation for spaCy", no_args_is_help=True)
