"""spacy-gdcws: Chinese word segmentation for spaCy.

The `gdcws_segmenter` component merges character tokens into words with a composed
model, `embed >> encoder >> scorer` (ID-CNN-CRF by default; the GD-Transformer of
Duan & Zhao 2020, L-SAN-CRF, BiLSTM-CRF or a pretrained transformer).

Importing the package registers the component, architecture, scorer, schedule,
readers and tokenizer. The same registrations are declared as entry points, so
`spacy.blank("zh").add_pipe("gdcws_segmenter")` and `spacy.load` work without
importing this package.
"""
from spacy_gdcws.about import __version__

try:  # keep `spacy_gdcws.nn` importable where spaCy is not installed
    import spacy  # noqa: F401
except ImportError:  # pragma: no cover
    pass
else:
    from spacy_gdcws import legacy, ml, readers  # noqa: F401
    from spacy_gdcws.data import tokenizer  # noqa: F401
    from spacy_gdcws.eval import scorer  # noqa: F401
    from spacy_gdcws.ml import ensemble  # noqa: F401
    from spacy_gdcws.parse import component, corpus, factory as parse_factory, model  # noqa: F401
    from spacy_gdcws.pipeline import factory, lexicons, subwords  # noqa: F401
    from spacy_gdcws.pipeline.segmenter import GDSegmenter
    from spacy_gdcws.training import loggers, memory, schedules  # noqa: F401

__all__ = ["__version__", "GDSegmenter"]
