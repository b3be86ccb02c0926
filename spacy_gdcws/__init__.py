"""spacy-gdcws: Chinese word segmentation for spaCy.

The `gdcws_segmenter` component merges character tokens into words with a composed
model, `embed >> encoder >> scorer` (ID-CNN-CRF by default; the GD-Transformer of
Duan & Zhao 2020, L-SAN-CRF, BiLSTM-CRF or a pretrained transformer).

Every registration (components, architectures, scorers, readers, the tokenizer, schedules,
loggers, callbacks) is an entry point (pyproject.toml), so `spacy.blank("zh").add_pipe(
"gdcws_segmenter")` and `spacy.load` work without importing this package, and importing it
costs nothing: spaCy, thinc and torch load with the first module that needs them
(`python -m spacy_gdcws --help` starts in a fraction of a second). `spacy_gdcws.GDSegmenter`
is the component's class; `spacy_gdcws.words_doc(nlp.vocab, words)` a doc of words you already have,
which the segmenter leaves as it is (the tagger and parser tag and parse them).
"""
from typing import Any

from spacy_gdcws.about import __version__

__all__ = ["__version__", "GDSegmenter", "words_doc"]


def __getattr__(name: str) -> Any:
    if name == "GDSegmenter":
        from spacy_gdcws.pipeline.segmenter import GDSegmenter

        return GDSegmenter
    if name == "words_doc":
        from spacy_gdcws.pipeline.words import words_doc

        return words_doc
    raise AttributeError(name)
