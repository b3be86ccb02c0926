"""The typer application that every subcommand registers on."""
import re
import sys
from typing import NoReturn

import typer

app = typer.Typer(
    name="spacy-gdcws",
    help="GD-Transformer Chinese word segmentation for spaCy",
    no_args_is_help=True,
    add_completion=False,
)

# a coded message of this package, spaCy or thinc: a code in brackets, then the message
_CODED = re.compile(r"^\[[EW]\d{3,}\]")


@app.callback()
def main() -> None:
    """Convert corpora, segment text, score segmentations."""


def fail(message: str) -> NoReturn:
    """Report a user error in one line on stderr and exit with status 1."""
    print(f"✘ {message}", file=sys.stderr)
    raise SystemExit(1)


def run() -> None:
    """The command line: a coded error (a mistake in the input, the arguments or
    a model file) is one line on stderr and exit status 1, not a traceback."""
    try:
        app()
    except (ValueError, OSError, KeyError) as e:
        text = str(e.args[0]) if e.args else str(e)
        if not _CODED.match(text):
            raise
        print(f"✘ {text}", file=sys.stderr)
        sys.exit(1)
