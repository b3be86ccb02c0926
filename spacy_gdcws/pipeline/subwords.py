"""`gdcws_subwords`: a search granularity, jieba's `cut_for_search` on spaCy's words.

A search index wants each word and the shorter words inside it (中华人民共和国 → 中华, 华人,
人民, 人民共和国, 共和, 共和国: jieba's `cut_for_search` looks at 2 and 3 characters only, this at
every length). The component runs after the segmenter and lists, for every word of
the doc, the dictionary words inside it: the segmenter's user dictionary (force, prefer
and combine words) and its general lexicon (or the shipped one, as granularity "coarse"
reads), found by the same tables and on the same normalized characters as the decoder's
matching, so a traditional word finds simplified entries and the other way round. Tokens
and `doc.text` are unchanged.

Where they go: a spaCy `Span` is made of whole tokens, so a word's inner words cannot be
spans of the word doc (a span group would need the very token boundaries that the words
must not have). They are character offsets, `doc._.subwords` (the extension's name is the
component's `attr`): a list of `(start_char, end_char)` in text order (by start, then
length), each strictly inside one token; `doc.text[start:end]` is the sub-word. They are
stored in `doc.user_data`, so `DocBin(store_user_data=True)` and pickling keep them.
"""
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import IDX, LENGTH
from spacy.language import Language
from spacy.tokens import Doc

from spacy_gdcws.data.normalize import CharNormalizer
from spacy_gdcws.decoding.user_dict import WORD_MODES, UserDictionary
from spacy_gdcws.pipeline.names import find_segmenter


def inner_spans(doc: Doc, dictionaries: Sequence[UserDictionary], normalizer: CharNormalizer) -> List[Tuple[int, int]]:
    """(start_char, end_char) of every word of two or more characters of `dictionaries` (their
    force, prefer and combine words) that lies strictly inside one token of `doc`, found as the decoder finds them (the
    dictionaries' tables, on normalized code points); ordered by start, then by length."""
    if len(doc) == 0:
        return []
    codes = normalizer.points(numpy.frombuffer(doc.text.encode("utf-32-le"), dtype="<u4").astype(numpy.int64))
    spans = doc.to_array([IDX, LENGTH]).astype(numpy.int64)
    starts, ends = spans[:, 0], spans[:, 0] + spans[:, 1]
    found = set()
    for dictionary in dictionaries:
        for start, end, word in dictionary.snapshot().occurrences(codes, ("hard", "prefer", "combine")):
            if end - start < 2 or dictionary.words.get(word) not in WORD_MODES:  # a forced split is no word
                continue
            k = int(numpy.searchsorted(starts, start, side="right")) - 1
            if end <= ends[k] and end - start < ends[k] - starts[k]:
                found.add((start, end))
    return sorted(found)


# where a doc keeps its sub-words: user_data under this key and the attribute's name, as one flat
# list of offsets (what msgpack, DocBin and n_process > 1 carry as they are)
_USER_DATA = "gdcws_subwords"


def register_subwords(attr: str = "subwords") -> None:
    """`Doc._.<attr>`: the sub-words as a list of (start_char, end_char) tuples, the same type in
    process, after a `DocBin` and from `nlp.pipe(n_process=2)` (a plain extension came back as a
    tuple of tuples or a list of lists there); None where the doc has none recorded."""

    def getter(doc: Doc) -> Optional[List[Tuple[int, int]]]:
        flat = doc.user_data.get((_USER_DATA, attr))
        return None if flat is None else [(int(flat[i]), int(flat[i + 1])) for i in range(0, len(flat), 2)]

    def setter(doc: Doc, spans: Optional[Iterable[Tuple[int, int]]]) -> None:
        doc.user_data[(_USER_DATA, attr)] = None if spans is None else [int(x) for span in spans for x in span]

    Doc.set_extension(attr, getter=getter, setter=setter)


class SubwordFinder:
    """The dictionary words inside each word of a doc (see the module's docstring)."""

    def __init__(self, nlp: Language, name: str = "gdcws_subwords", attr: str = "subwords",
                 segmenter: Optional[str] = None) -> None:
        self.nlp = nlp
        self.name = name
        self.attr = attr
        self.segmenter = segmenter
        if not Doc.has_extension(attr):
            register_subwords(attr)

    def dictionaries(self) -> Tuple[List[UserDictionary], CharNormalizer]:
        """The user dictionary and the general lexicon (as granularity "coarse" reads it), and
        the model's normalization; asked at each call (the user dictionary may change)."""
        decoder = self.nlp.get_pipe(find_segmenter(self.nlp, self.segmenter)).decoder
        return [decoder.user_dict, decoder.coarse_dict()], decoder.normalizer

    def __call__(self, doc: Doc) -> Doc:
        dictionaries, normalizer = self.dictionaries()
        doc._.set(self.attr, inner_spans(doc, dictionaries, normalizer))
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        dictionaries, normalizer = self.dictionaries()
        for doc in stream:
            doc._.set(self.attr, inner_spans(doc, dictionaries, normalizer))
            yield doc


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
