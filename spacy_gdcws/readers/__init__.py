"""Corpus readers: SIGHAN bakeoff files, CoNLL-U / CoNLL-X, word_POS, IOB2 NER (Universal NER).

Each format module yields `Sentence` records; `corpus.py` turns them into
docs with explicit spaces, splits off dev data and registers the reader.
"""
from spacy_gdcws.readers.base import Sentence, read_lines
from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.readers.iob2 import read_iob2
from spacy_gdcws.readers.corpus import (
    FORMATS,
    detect_format,
    read_sentences,
    sentence_to_doc,
    split_dev,
)
from spacy_gdcws.readers.sighan import read_sighan
from spacy_gdcws.readers.wordpos import read_wordpos

__all__ = [
    "Sentence",
    "read_lines",
    "read_sighan",
    "read_conll",
    "read_wordpos",
    "read_iob2",
    "FORMATS",
    "detect_format",
    "read_sentences",
    "sentence_to_doc",
    "split_dev",
]
