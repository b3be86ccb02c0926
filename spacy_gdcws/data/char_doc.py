"""The docs our tokenizer makes, and docs built from ORTH ids.

`CharDoc` is a `Doc` that keeps the text it was made from (`input_text`): the
segmenter reads a batch's characters from those texts in one vectorised pass
(`doc_arrays.text_batch_arrays`) instead of one `Doc.to_array` per doc, and no
table beside the docs is needed to find them. Everything else about it is a
`Doc`'s: a copy, a slice or an unpickled `CharDoc` is a plain `Doc`, read from
its tokens.
"""
import copyreg
from typing import List, Optional

import numpy
from spacy.strings import get_string_id
from spacy.tokens import Doc
from spacy.tokens.doc import pickle_doc


class CharDoc(Doc):
    """A `Doc` of character tokens that keeps the text it was made from.

    input_text (str): the text, exactly (`doc.text` gives the same string, but
        builds a `Token` per token to do so). Set by the tokenizer that made the
        doc; the tokens it describes are the tokenizer's until the doc is
        retokenized (readers check the number of tokens).
    """

    __slots__ = ("input_text",)


# pickled like any Doc (spaCy registers its pickler for the exact type only)
copyreg.pickle(CharDoc, pickle_doc)


def input_text(doc: Doc) -> Optional[str]:
    """The text a `CharDoc` was made from (None for any other doc)."""
    return getattr(doc, "input_text", None)


# spaCy's ORTH id (string hash) of each one-character string, 0 = not computed yet
_ORTH_OF = numpy.zeros(0x110000, dtype=numpy.uint64)


def char_orths(points: numpy.ndarray) -> numpy.ndarray:
    """ORTH ids (uint64) of one-character strings, by code point; each
    character's hash is computed once per process."""
    orth = _ORTH_OF[points]
    missing = orth == 0
    if missing.any():
        new = numpy.unique(points[missing])
        _ORTH_OF[new] = numpy.fromiter((get_string_id(chr(int(c))) for c in new), dtype=numpy.uint64, count=len(new))
        orth = _ORTH_OF[points]
    return orth


class DocMaker:
    """`Doc(vocab, words=..., spaces=...)` from the words' ORTH ids, each
    word's id kept once seen (at most `max_words`; then the cache starts
    over), so building a doc hashes no string it has met before.

    Strings a memory zone added are gone when it ends: a doc whose ids the
    vocab no longer knows is built from its strings and the cache starts over.

    doc_class (type): `Doc`, or `CharDoc` for the tokenizer's docs.
    """

    def __init__(self, vocab, max_words: int = 1_000_000, doc_class: type = Doc) -> None:
        self.vocab = vocab
        self.max_words = max_words
        self.doc_class = doc_class
        self._orths: dict = {}

    def __call__(self, words: List[str], spaces: List[bool], **kwargs) -> Doc:
        orths = self._orths
        try:
            ids = [orths[w] for w in words]
        except KeyError:
            new = set(words).difference(orths)
            if len(orths) + len(new) > self.max_words:
                orths.clear()
                new = set(words)
            add = self.vocab.strings.add
            for word in new:
                orths[word] = add(word)
            ids = [orths[w] for w in words]
        try:
            return self.doc_class(self.vocab, words=ids, spaces=spaces, **kwargs)
        except KeyError:
            orths.clear()
            return self.doc_class(self.vocab, words=words, spaces=spaces, **kwargs)
