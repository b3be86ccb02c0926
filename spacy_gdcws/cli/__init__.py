"""Command-line interface: `python -m spacy_gdcws` / `spacy-gdcws`."""
from spacy_gdcws.cli import (  # noqa: F401  (register the commands)
    baselines,
    convert,
    ensemble,
    evaluate,
    evaluate_ud,
    init_config,
    ner,
    package_meta,
    prepare,
    score,
    seal,
    segment,
    segment_corpus,
    tune,
    unpack,
)
from spacy_gdcws.cli._app import app, reflow_help, run

reflow_help(app)

__all__ = ["app", "run"]
