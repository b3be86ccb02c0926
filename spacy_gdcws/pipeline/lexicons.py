"""The general lexicons shipped in the package (`spacy_gdcws/lexicons/`, with their licences),
and the registered function that names one for `[initialize.components.segmenter]
general_lexicon`, so that `init-config general` trains from an installed wheel:

    [initialize.components.segmenter.general_lexicon]
    @misc = "spacy_gdcws.general_lexicon.v1"
    path = ${paths.lexicon}

`paths.lexicon = null` reads the shipped jieba word list; a path reads that file instead.
"""
import functools
from pathlib import Path
from typing import FrozenSet, Optional, Protocol, Set, Union

from spacy.util import registry

from spacy_gdcws.decoding.dictionary_files import read_user_dict
from spacy_gdcws.shipped import JIEBA_WORDS


@registry.misc("spacy_gdcws.general_lexicon.v1")
def general_lexicon(path: Optional[Union[str, Path]]) -> Path:
    """The word list of the general lexicon: `path`, or the shipped jieba words when it is
    None. The file is read by the segmenter's `initialize` (`read_user_dict`: jieba's
    `word freq [tag]` lines, HanLP's, or one word per line)."""
    return JIEBA_WORDS if path is None else Path(path)


def lexicon_words(path: Union[str, Path], min_freq: int = 0) -> FrozenSet[str]:
    """The words of two or more characters of a word list (`read_user_dict`'s formats) whose
    frequency, where the file gives one, is at least `min_freq`."""
    return frozenset(w for w, _, freq in read_user_dict(path) if len(w) > 1 and (freq is None or freq >= min_freq))


@functools.lru_cache(maxsize=1)
def shipped_general_words() -> FrozenSet[str]:
    """The shipped general lexicon's words (read once per process)."""
    return lexicon_words(JIEBA_WORDS)


class HasGeneralWords(Protocol):
    """What `coarse_words` reads of a segmenter."""

    general_words: Set[str]


def coarse_words(segmenter: HasGeneralWords) -> Set[str]:
    """The words granularity "coarse" merges into: the segmenter's general lexicon, or, for a
    model without one, the shipped one (a function, not a lambda: a segmenter pickles)."""
    return segmenter.general_words or shipped_general_words()
