"""`spacy_gdcws.ChineseCharTokenizer.v1`: spaCy's Chinese "char" tokenizer in linear time.

`spacy.zh.ChineseTokenizer` in "char" mode aligns the characters back to the
text with `spacy.util.get_words_and_spaces`, which slices the rest of the text
(`text[pos:]`) once per character: quadratic in the length of a text. On one
line of 1,000,000 characters it is 13x slower per character than on 100,000
(`research/benchmarks/results/cpu_1m.json`), and every spaCy pipeline on top of it
inherits that. This tokenizer makes exactly the same tokens (tested against
spaCy's) in one pass: one token per non-whitespace character, a single ASCII
space after a character becomes its trailing whitespace, and every other run
of whitespace is one token.
"""
import re
from typing import Callable, List, Tuple

from spacy.lang.zh import ChineseTokenizer, Segmenter
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import registry

from spacy_gdcws.data.char_doc import CharDoc, DocMaker
from spacy_gdcws.errors import Errors

_WHITESPACE = re.compile(r"\s")
_SURROGATE = re.compile("[\ud800-\udfff]")


def char_words_and_spaces(text: str) -> Tuple[List[str], List[bool]]:
    """The words and trailing-space flags of spaCy's "char" segmentation of `text`."""
    if _WHITESPACE.search(text) is None:  # the common case: one token per character
        return list(text), [False] * len(text)
    words: List[str] = []
    spaces: List[bool] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            words.append(text[i:j])
            spaces.append(False)
            i = j
        else:
            words.append(text[i])
            trailing = i + 1 < n and text[i + 1] == " "
            spaces.append(trailing)
            i += 2 if trailing else 1
    return words, spaces


class ChineseCharTokenizer(ChineseTokenizer):
    """`spacy.zh.ChineseTokenizer` fixed to "char" mode, in linear time.
    Serializes like its parent, so pipelines can switch between the two."""

    def __init__(self, vocab) -> None:
        super().__init__(vocab, segmenter=Segmenter.char)
        # builds docs from the characters' ORTH ids (no string hashing per character)
        self._make_doc = DocMaker(vocab, doc_class=CharDoc)

    def __call__(self, text: str) -> Doc:
        """A `CharDoc` of `text`'s characters, which keeps `text` (the segmenter reads
        the batch's characters from it instead of rebuilding it from the tokens)."""
        words, spaces = char_words_and_spaces(text)
        try:
            doc = self._make_doc(words, spaces)
        except UnicodeEncodeError:  # a lone surrogate: not text spaCy can store
            check_unicode(text)
            raise
        doc.input_text = text
        return doc


def check_unicode(text: str) -> None:
    """E066 if `text` holds a lone surrogate: not text that spaCy or a UTF-8 file can store."""
    match = _SURROGATE.search(text)
    if match:
        raise ValueError(Errors.E066.format(position=match.start(), char=f"U+{ord(match.group()):04X}"))


@registry.tokenizers("spacy_gdcws.ChineseCharTokenizer.v1")
def create_char_tokenizer() -> Callable[[Language], ChineseCharTokenizer]:
    """Tokenizer factory for `[nlp.tokenizer]`; pipelines trained with
    `spacy.zh.ChineseTokenizer` (segmenter "char") can load with it:
    `spacy.load(path, config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})`."""

    def factory(nlp: Language) -> ChineseCharTokenizer:
        return ChineseCharTokenizer(nlp.vocab)

    return factory
