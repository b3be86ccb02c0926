"""Command-line interface: `python -m spacy_gdcws` / `spacy-gdcws`."""
from . import convert  # noqa: F401  (registers the command)
from ._app import app

__all__ = ["app"]
