"""Command-line interface: `python -m spacy_gdcws` / `spacy-gdcws`."""
from ._app import app

__all__ = ["app"]
