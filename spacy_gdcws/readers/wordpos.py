"""word_POS files (e.g. Zhuxian): `word_TAG word_TAG ...`, one sentence per line."""
from pathlib import Path
from typing import Iterator, Union

from spacy_gdcws.readers.base import Sentence, fail, read_lines


def read_wordpos(path: Union[str, Path]) -> Iterator[Sentence]:
    """Yield one Sentence per non-empty line, with the tags as XPOS.

    The tag is what follows the last underscore, so words that contain an
    underscore survive. A token without `_TAG` is an error naming its line.
    """
    for number, text in read_lines(path):
        items = text.split()
        if not items:
            continue
        words, tags = [], []
        for item in items:
            word, sep, tag = item.rpartition("_")
            if not sep or not word or not tag:
                raise fail(path, number, f"token {item!r} is not of the form word_TAG")
            words.append(word)
            tags.append(tag)
        yield Sentence(words=words, tags=tags, line=number)
