"""Sentences -> the files the project trains and scores on: DocBins of reference docs, SIGHAN-style
gold lines, the training vocabulary; each written whole or not at all (`io`)."""
from pathlib import Path
from typing import Iterable, List

from spacy_gdcws.io import atomic_write_bytes, atomic_write_text
from spacy_gdcws.readers.base import Sentence


def write_docbin(sentences: Iterable[Sentence], path: Path) -> int:
    """Write sentences as reference docs to a .spacy file (whole or not at all), each with what
    `sentence_to_doc` keeps of its `meta` (its treebank, the parse-in mark, its entities);
    RETURNS the count."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_gdcws.readers.corpus import sentence_to_doc

    nlp = spacy.blank("zh")
    db = DocBin(store_user_data=True)
    n = 0
    for sent in sentences:
        db.add(sentence_to_doc(nlp.vocab, sent))
        n += 1
    atomic_write_bytes(path, db.to_bytes())
    return n


def write_lines(path: Path, lines: Iterable[str]) -> None:
    """Write UTF-8 text, one item per line, creating the folder (whole or not at all)."""
    atomic_write_text(path, "".join(line + "\n" for line in lines))


def gold_lines(sentences: Iterable[Sentence]) -> List[str]:
    """SIGHAN-style gold lines: the words two spaces apart."""
    return ["  ".join(s.words) for s in sentences]


def write_vocabulary(sentences: Iterable[Sentence], path: Path) -> int:
    """Write the sorted set of words, one per line (the scorer's dictionary); RETURNS its size."""
    words = sorted({w for s in sentences for w in s.words})
    write_lines(path, words)
    return len(words)
