"""From boundaries to words: what the segmenter's `predict` gives (`Segmentation`), one path
from a batch's decoded gaps to word `Doc`s (or to the words as strings), the in-place merge of
`set_annotations`, and the checks of the character docs that come in."""
from typing import Any, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Union

import numpy
from spacy.tokens import Doc
from spacy.vocab import Vocab

from spacy_gdcws.data.char_doc import DocMaker
from spacy_gdcws.data.doc_arrays import BatchArrays, DocBatch, batch_words, token_arrays
from spacy_gdcws.data.sentences import ONE_SENTENCE
from spacy_gdcws.errors import Errors


def check_char_tokens(docs: Union[Doc, Sequence[Doc]]) -> None:
    """E014 unless every token of the docs that is not whitespace is one
    character (the segmenter merges characters: on words it would do nothing).
    One check over the batch's tokens laid end to end (`DocBatch.arrays`)."""
    docs = DocBatch([docs]) if isinstance(docs, Doc) else DocBatch.of(docs)
    if not docs:
        return
    laid = docs.arrays
    wide = ~laid.arrays.is_space & (laid.arrays.length > 1)
    if wide.any():
        flat = int(numpy.flatnonzero(wide)[0])
        k = int(numpy.searchsorted(laid.starts, flat, side="right")) - 1
        token = docs[k][flat - int(laid.starts[k])]
        raise ValueError(Errors.E014.format(hint="spacy_gdcws.ChineseCharTokenizer.v1", token=token.text, n=len(token)))


class Segmentation(NamedTuple):
    """What `GDSegmenter.predict` gives for a batch: the batch (its docs and their arrays, read
    once) and where words end over its docs laid end to end (bool, one per gap of the laid-out
    tokens: `decoding.decoder.Decoder.flat_boundaries`)."""

    batch: DocBatch
    bounds: numpy.ndarray

    def per_doc(self) -> List[Optional[numpy.ndarray]]:
        """Where words end in each doc (bool per gap; None for docs of fewer than 2 tokens)."""
        out: List[Optional[numpy.ndarray]] = [None] * len(self.batch)
        if not self.batch:
            return out
        laid = self.batch.arrays
        for i, (start, n) in enumerate(zip(laid.starts.tolist(), laid.lengths.tolist())):
            if n >= 2:
                out[i] = self.bounds[start : start + n - 1]
        return out


#: where a doc says its words are set already (`words_doc`): the segmenter leaves it as it is
WORDS_KEY = ("spacy_gdcws", "words")


def has_words(doc: Doc) -> bool:
    """Whether the doc's words are set already (`words_doc`)."""
    return doc.user_data.get(WORDS_KEY) is True


def words_doc(vocab: Vocab, words: Sequence[str], spaces: Optional[Sequence[bool]] = None,
              one_sentence: bool = False) -> Doc:
    """A doc of words you already have, which a pipeline's segmenter leaves as it is: the components
    after it (the tagger and parser) tag and parse these words (as Stanza's `tokenize_pretokenized`,
    UDPipe's presegmented input). `nlp(words_doc(nlp.vocab, ["我", "爱", "北京"]))`.

    vocab (Vocab): The pipeline's vocab (`nlp.vocab`).
    words (Sequence[str]): The words, whitespace words included where the text has them.
    spaces (Optional[Sequence[bool]]): Whether a space follows each word (None: none does, as in
        Chinese text).
    one_sentence (bool): The words are one sentence (no sentence-final word splits them: a CoNLL-U
        sentence); else the parser splits them as it splits any text.
    RETURNS (Doc): The doc.
    """
    doc = Doc(vocab, words=list(words), spaces=list(spaces) if spaces is not None else [False] * len(words))
    doc.user_data[WORDS_KEY] = True
    if one_sentence:
        doc.user_data[ONE_SENTENCE] = True
    return doc


def doc_words(doc: Doc) -> List[str]:
    """The words of a doc, whitespace tokens left out."""
    return [t.text for t in doc if not t.is_space]


def forced_boundaries(doc: Doc) -> numpy.ndarray:
    """Gaps that are boundaries whatever the model says: next to a whitespace
    token, or after a token with trailing whitespace (`TokenArrays.forced`)."""
    return token_arrays(doc).forced


class WordDocs:
    """Cuts a decoded batch into words and builds word docs, keeping one
    `DocMaker` (word ids) per vocab."""

    def __init__(self) -> None:
        self._maker: Any = None

    def docs(self, docs: Sequence[Doc], laid: BatchArrays, bounds: numpy.ndarray) -> List[Doc]:
        """New docs of words (no retokenization): the text is the input's
        exactly, and `user_data`, `cats`, the context and span groups are carried
        over; a doc of fewer than 2 tokens comes back as is."""
        words, spaces, first, end = batch_words(laid, bounds)
        make_doc = self._doc_maker(docs[0].vocab)
        return [doc if b - a == len(doc) else new_words_doc(doc, words[a:b], spaces[a:b], make_doc)
                for doc, a, b in zip(docs, first.tolist(), end.tolist())]

    @staticmethod
    def words(laid: BatchArrays, bounds: numpy.ndarray) -> List[List[str]]:
        """The words of each doc as strings, whitespace left out (no `Doc` built)."""
        words, _, first, end = batch_words(laid, bounds)
        return [[w for w in words[a:b] if not w.isspace()] for a, b in zip(first.tolist(), end.tolist())]

    def _doc_maker(self, vocab: Any) -> DocMaker:
        if self._maker is None or self._maker.vocab is not vocab:
            self._maker = DocMaker(vocab)
        return self._maker


def new_words_doc(doc: Doc, words: List[str], spaces: List[bool], make_doc: DocMaker) -> Doc:
    """A new doc of `words` (which cover `doc`'s text exactly, as `batch_words`
    cuts them) that carries over `doc`'s `user_data`, `cats`, context and span groups
    (by character offsets, expanded to whole words). `make_doc`: a `DocMaker`
    of the doc's vocab."""
    new = make_doc(words, spaces, user_data=doc.user_data)
    new.cats = doc.cats
    new._context = doc._context  # nlp.pipe(as_tuples=True) reads the context back from the Doc
    for key, group in doc.spans.items():
        new.spans[key] = [new.char_span(span.start_char, span.end_char, label=span.label,
                                        kb_id=span.kb_id, alignment_mode="expand") for span in group]
    return new


def merge_words(doc: Doc, boundaries: numpy.ndarray) -> None:
    """Merge runs of tokens between boundaries, all in one retokenization.

    boundaries (numpy.ndarray): Bool (len(doc) - 1,), True = a word ends at gap j.
    """
    ends = numpy.flatnonzero(boundaries) + 1
    starts = numpy.concatenate([[0], ends])
    stops = numpy.concatenate([ends, [len(doc)]])
    multi = numpy.flatnonzero(stops - starts > 1)
    if not len(multi):
        return
    with doc.retokenize() as retokenizer:
        for i in multi:
            retokenizer.merge(doc[int(starts[i]) : int(stops[i])])


# the most character tokens a batch of `GDSegmenter.pipe` holds, unless one doc is longer
BATCH_CHARS = 100_000


def doc_batches(stream: Iterable[Doc], size: int, max_chars: int) -> Iterator[List[Doc]]:
    """Lists of consecutive docs of `stream`: at most `size` docs, and no more tokens (character
    tokens: about the characters) than `max_chars` unless a list is one doc."""
    batch: List[Doc] = []
    chars = 0
    for doc in stream:
        n = len(doc)  # character tokens: about the characters, without building the text
        if batch and (len(batch) >= size or chars + n > max_chars):
            yield batch
            batch, chars = [], 0
        batch.append(doc)
        chars += n
    if batch:
        yield batch

