"""Corpus readers: SIGHAN bakeoff files, CoNLL-U / CoNLL-X, word_POS.

Each format module yields `Sentence` records; `corpus.py` turns them into
docs with explicit spaces, splits off dev data and registers the reader.
"""
from .base import Sentence, read_lines
from .conll import read_conll
from .corpus import FORMATS, detect_format, read_sentences, sentence_to_doc, split_dev
from .sighan import read_sighan
from .wordpos import read_wordpos

__all__ = [
    "Sentence",
    "read_lines",
    "read_sighan",
    "read_conll",
    "read_wordpos",
    "FORMATS",
    "detect_format",
    "read_sentences",
    "sentence_to_doc",
    "split_dev",
]
