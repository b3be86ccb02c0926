"""spacy-gdcws: Chinese word segmentation for spaCy with the GD-Transformer.

Importing the package registers the component, architecture, scorer, schedule,
readers and tokenizer. The same registrations are declared as entry points, so
`spacy.blank("zh").add_pipe("gdcws_segmenter")` and `spacy.load` work without
importing this package.
"""
from .about import __version__

try:  # keep `spacy_gdcws.nn` importable where spaCy is not installed
    import spacy  # noqa: F401
except ImportError:  # pragma: no cover
    pass
else:
    from . import architectures, ensemble, models, readers, schedules, scorer, segmenter, tokenizer  # noqa: F401
    from .segmenter import GDSegmenter

__all__ = ["__version__", "GDSegmenter"]
