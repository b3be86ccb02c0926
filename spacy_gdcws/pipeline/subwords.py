"""`gdcws_subwords`: a search granularity, jieba's `cut_for_search` on spaCy's words.

A search index wants each word and the shorter words inside it (中华人民共和国 → 中华, 华人,
人民, 人民共和国, 共和, 共和国: jieba's `cut_for_search` looks at 2 and 3 characters only, this at
2 to `MAX_SUBWORD`). The component runs after the segmenter and lists, for every word of
the doc, the dictionary words inside it: the segmenter's user dictionary (force, prefer
and combine words) and its general lexicon (or the shipped one, as granularity "coarse"
reads), looked up on normalized characters, so a traditional word finds simplified
entries. Tokens and `doc.text` are unchanged.

Where they go: a spaCy `Span` is made of whole tokens, so a word's inner words cannot be
spans of the word doc (a span group would need the very token boundaries that the words
must not have). They are character offsets, `doc._.subwords` (the extension's name is the
component's `attr`): a list of `(start_char, end_char)` in text order (by start, then
length), each strictly inside one token; `doc.text[start:end]` is the sub-word. They are
stored in `doc.user_data`, so `DocBin(store_user_data=True)` and pickling keep them.
"""
from typing import Callable, Container, Iterable, Iterator, List, Mapping, Optional, Tuple

import numpy
from spacy.language import Language
from spacy.tokens import Doc

from spacy_gdcws.data.normalize import CharNormalizer
from spacy_gdcws.decoding.user_dict import WORD_MODES
from spacy_gdcws.pipeline.names import find_segmenter

# sub-words longer than this are not looked up (the general lexicon's longest words are shorter)
MAX_SUBWORD = 8


def inner_words(word: str, vocabulary: Container[str], max_len: int = MAX_SUBWORD) -> List[Tuple[int, int]]:
    """(start, end) of every substring of `word` of 2 to `max_len` characters, shorter than
    the word, that is in `vocabulary`; ordered by start, then by length."""
    found: List[Tuple[int, int]] = []
    n = len(word)
    for start in range(n - 1):
        for end in range(start + 2, min(n, start + max_len) + 1):
            if end - start < n and word[start:end] in vocabulary:
                found.append((start, end))
    return found


def normalized(text: str, normalizer: Optional[CharNormalizer]) -> str:
    """`text` with the model's character normalization (the user dictionary's matching)."""
    if not normalizer or not text:
        return text
    codes = numpy.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(numpy.int64)
    return numpy.asarray(normalizer.points(codes), dtype="<u4").tobytes().decode("utf-32-le")


class SubwordFinder:
    """The dictionary words inside each word of a doc (see the module's docstring)."""

    def __init__(self, nlp: Language, name: str = "gdcws_subwords", attr: str = "subwords",
                 segmenter: Optional[str] = None) -> None:
        self.nlp = nlp
        self.name = name
        self.attr = attr
        self.segmenter = segmenter
        if not Doc.has_extension(attr):
            Doc.set_extension(attr, default=None)

    def vocabulary(self) -> Tuple["_Vocabulary", Optional[CharNormalizer]]:
        """The words to look for (read at each call: the user dictionary may change)."""
        from spacy_gdcws.pipeline.segmenter import _coarse_words

        segmenter = self.nlp.get_pipe(find_segmenter(self.nlp, self.segmenter))
        user_words = segmenter.decoder.user_dict.words
        return _Vocabulary(user_words, _coarse_words(segmenter)), segmenter.decoder.normalizer

    def __call__(self, doc: Doc) -> Doc:
        vocabulary, normalizer = self.vocabulary()
        return self._annotate(doc, vocabulary, normalizer)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        vocabulary, normalizer = self.vocabulary()
        for doc in stream:
            yield self._annotate(doc, vocabulary, normalizer)

    def _annotate(self, doc: Doc, vocabulary: "_Vocabulary", normalizer: Optional[CharNormalizer]) -> Doc:
        spans: List[Tuple[int, int]] = []
        for token in doc:
            if len(token) > 2:  # a word of two characters has no inner word of two
                offset = token.idx
                spans.extend((offset + s, offset + e) for s, e in inner_words(normalized(token.text, normalizer), vocabulary))
        doc._.set(self.attr, spans)
        return doc


class _Vocabulary:
    """Membership in the user dictionary's words or the lexicon's, without copying either."""

    __slots__ = ("user", "lexicon")

    def __init__(self, user: Mapping[str, str], lexicon: Container[str]) -> None:
        self.user = user
        self.lexicon = lexicon

    def __contains__(self, word: object) -> bool:
        return self.user.get(word) in WORD_MODES or word in self.lexicon


@Language.factory("gdcws_subwords", default_config={"attr": "subwords", "segmenter": None})
def make_subwords(nlp: Language, name: str, attr: str, segmenter: Optional[str]) -> Callable[[Doc], Doc]:
    """`nlp.add_pipe("gdcws_subwords", after="segmenter")`: `doc._.subwords` (or `attr`),
    the dictionary and lexicon words inside each word, as character offsets."""
    return SubwordFinder(nlp, name, attr, segmenter)


def subword_texts(doc: Doc, attr: str = "subwords") -> List[str]:
    """The sub-words of a doc as strings (its text's characters, not the normalized ones)."""
    return [doc.text[start:end] for start, end in (doc._.get(attr) or [])]


def search_words(doc: Doc, attr: str = "subwords") -> List[str]:
    """jieba's `cut_for_search` order: each word's sub-words (by start, then length), then the
    word itself; whitespace tokens left out."""
    spans = doc._.get(attr) or []
    out: List[str] = []
    i = 0
    for token in doc:
        end_char = token.idx + len(token)
        while i < len(spans) and spans[i][0] < end_char:
            out.append(doc.text[spans[i][0]:spans[i][1]])
            i += 1
        if not token.is_space:
            out.append(token.text)
    return out


def add_search(nlp: Language, attr: str = "subwords") -> str:
    """Add `gdcws_subwords` right after the segmenter unless the pipeline has one; RETURNS
    its name."""
    for name, pipe in nlp.pipeline:
        if isinstance(pipe, SubwordFinder):
            return name
    segmenter = find_segmenter(nlp)
    nlp.add_pipe("gdcws_subwords", after=segmenter, config={"attr": attr, "segmenter": segmenter})
    return "gdcws_subwords"
