"""Character docs' tokens as arrays, read in one pass (no Python loop per character).

A `DocBatch` is a batch of character docs with their arrays (`BatchArrays`: the
docs laid end to end), read once and passed along as an argument: the model's
featurization, the character check, decoding and the loss all read the same
arrays. Everything the data path needs of a doc (ORTH ids, offsets,
whitespace, line breaks, the first code point of each token) comes from the
texts that `char_doc.CharDoc`s keep, a whole batch at once
(`text_batch_arrays`), or else from `Doc.to_array` and the doc's text;
featurization and decoding never create `Token` objects on the hot path.
Words go back into docs built from ORTH ids (`batch_words`,
`char_doc.DocMaker`).
"""
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Dict, Iterable, List, Optional, Sequence

import numpy
from spacy.attrs import IDX, IS_SPACE, LENGTH, ORTH, SPACY
from spacy.strings import get_string_id
from spacy.tokens import Doc

from spacy_gdcws.data.char_doc import char_orths, input_text
from spacy_gdcws.data.ragged import interleaved

_ATTRS = [ORTH, IDX, LENGTH, IS_SPACE, SPACY]
# stands in for the code point of a token of several characters (a whitespace
# run): beyond Unicode, so it never matches a dictionary word's character
MULTI_CHAR_CODE = 0x110000


def control_codes(codes: numpy.ndarray) -> numpy.ndarray:
    """Bool per code point: a control character (Unicode's Cc: U+0000-001F, U+007F-009F), which is
    text's no word (whitespace among them is whitespace, a token of its own anyway)."""
    return (codes <= 0x1F) | ((codes >= 0x7F) & (codes <= 0x9F))


@dataclass
class TokenArrays:
    """Per-token arrays of one doc (n tokens).

    orth (uint64): ORTH ids. idx, length (int64): character offset and length.
    is_space, trailing (bool): whitespace token; token followed by a space.
    codes (int64): the token's code point if it is one character, else
        `MULTI_CHAR_CODE`. first (int64): the code point of its first character.
    breaks (bool): whitespace tokens that end a unit: those that contain a line
        break, and whitespace at the start or end of a line (`unit_breaks`), so
        that an indented line segments as it does without its indent.
    """

    orth: numpy.ndarray
    idx: numpy.ndarray
    length: numpy.ndarray
    is_space: numpy.ndarray
    trailing: numpy.ndarray
    codes: numpy.ndarray
    first: numpy.ndarray
    breaks: numpy.ndarray
    text: str = ""

    def __len__(self) -> int:
        return len(self.orth)

    def normalized(self, normalizer: Any) -> "TokenArrays":
        """The arrays as the model and the decoder read them under a
        `normalize.CharNormalizer`: one-character tokens' code points, first
        code points, ORTH ids and the text mapped character for character (the
        same length, so every offset holds); whitespace, idx and lengths as they are."""
        if not normalizer or not len(self):
            return self
        codes = normalizer.points(self.codes)
        changed = codes != self.codes
        if not changed.any():
            return self
        orth = self.orth.copy()
        orth[changed] = char_orths(codes[changed])
        return replace(self, orth=orth, codes=codes, first=normalizer.points(self.first),
                       text=normalizer.text(self.text))

    @property
    def forced(self) -> numpy.ndarray:
        """Gaps that are boundaries whatever the model says (n - 1,): next to a
        whitespace token or a control character (C0 and C1: no word holds one), or after
        a token with trailing whitespace."""
        apart = self.is_space | control_codes(self.codes)
        return apart[:-1] | apart[1:] | self.trailing[:-1]


def token_arrays(doc: Doc) -> TokenArrays:
    """A doc's tokens as `TokenArrays` (from the text a `CharDoc` keeps, else from its tokens)."""
    text = input_text(doc)
    if text is not None:
        arrays = text_batch_arrays([text])
        if int(arrays.lengths[0]) == len(doc):  # not retokenized since
            return replace(arrays.arrays, text=text)
    return read_token_arrays(doc)


def read_token_arrays(doc: Doc) -> TokenArrays:
    """Read a doc's tokens into `TokenArrays`."""
    n = len(doc)
    if not n:
        empty = numpy.zeros(0, dtype=numpy.int64)
        none = numpy.zeros(0, dtype=bool)
        return TokenArrays(empty.astype(numpy.uint64), empty, empty, none, none, empty, empty, none)
    arr = doc.to_array(_ATTRS).reshape(n, len(_ATTRS))
    orth = arr[:, 0].astype(numpy.uint64)
    idx = arr[:, 1].astype(numpy.int64)
    length = arr[:, 2].astype(numpy.int64)
    is_space = arr[:, 3].astype(bool)
    trailing = arr[:, 4].astype(bool)
    text = input_text(doc)
    if text is None or len(text) != int(idx[-1] + length[-1] + trailing[-1]):
        text = doc_text(doc, orth, trailing)
    points = numpy.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(numpy.int64)
    first = points[idx] if len(points) else numpy.zeros(n, dtype=numpy.int64)
    codes = numpy.where(length == 1, first, MULTI_CHAR_CODE)
    breaks = numpy.zeros(n, dtype=bool)
    for i in numpy.flatnonzero(is_space):
        piece = text[idx[i] : idx[i] + length[i]]
        breaks[i] = "\n" in piece or "\r" in piece
    return TokenArrays(orth, idx, length, is_space, trailing, codes, first, unit_breaks(breaks, is_space), text)


def unit_breaks(line_breaks: numpy.ndarray, is_space: numpy.ndarray) -> numpy.ndarray:
    """The whitespace tokens that end a unit: those with a line break, and every
    whitespace token of a run that holds one or that begins or ends the tokens
    (a line's leading and trailing whitespace stays out of its unit)."""
    n = len(is_space)
    if not n or not is_space.any():
        return line_breaks
    run_start = is_space.copy()
    run_start[1:] &= ~is_space[:-1]
    run_id = numpy.cumsum(run_start) - 1
    ids = run_id[is_space]
    edge = numpy.zeros(int(run_start.sum()), dtype=bool)
    edge[ids[line_breaks[is_space]]] = True
    edge[run_id[0]] |= bool(is_space[0])
    edge[run_id[-1]] |= bool(is_space[-1])
    out = line_breaks.copy()
    out[is_space] = edge[ids]
    return out


def doc_text(doc: Doc, orth: numpy.ndarray, trailing: numpy.ndarray) -> str:
    """`doc.text` from the tokens' ORTH ids and trailing-space flags (string
    lookups instead of one `Token` object per character)."""
    strings = doc.vocab.strings
    pieces = [strings[o] for o in orth.tolist()]
    for i in numpy.flatnonzero(trailing).tolist():
        pieces[i] += " "
    return "".join(pieces)


# what stands between two docs laid end to end: a line break (a whitespace token
# that is a break, so every gap next to it is forced and the priors see a line edge)
_SEPARATOR = "\n"


@dataclass
class BatchArrays:
    """The `TokenArrays` of several docs laid end to end, a line-break token
    between neighbours, so that gap rules and decoding priors run once per
    batch instead of once per doc. Doc k's token i is flat token
    `starts[k] + i` and its gap j (after token j) is flat gap `starts[k] + j`;
    the two gaps next to each separator belong to no doc (`real_gaps`). An
    empty doc has no token: two separators meet.

    arrays (TokenArrays): The flat arrays; `text` is the texts joined by "\\n".
    lengths (int64): Tokens per doc. starts (int64): Each doc's first flat token.
    """

    arrays: TokenArrays
    lengths: numpy.ndarray
    starts: numpy.ndarray
    # normalized copies by normalizer spec (`normalized`)
    _normalized: Dict[str, "BatchArrays"] = field(default_factory=dict, repr=False, compare=False)

    def normalized(self, normalizer: Any) -> "BatchArrays":
        """The batch as `TokenArrays.normalized` reads it (the same docs, starts
        and lengths), computed once per batch and normalizer."""
        if not normalizer:
            return self
        out = self._normalized.get(normalizer.spec)
        if out is None:
            out = self._normalized[normalizer.spec] = BatchArrays(self.arrays.normalized(normalizer), self.lengths,
                                                                  self.starts)
        return out

    def token_texts(self, k: int) -> List[str]:
        """Doc k's token texts, sliced from the batch's text (no `Token` objects)."""
        start, n = int(self.starts[k]), int(self.lengths[k])
        idx = self.arrays.idx[start : start + n]
        ends = idx + self.arrays.length[start : start + n]
        text = self.arrays.text
        return [text[a:b] for a, b in zip(idx.tolist(), ends.tolist())]

    @cached_property
    def texts(self) -> List[str]:
        """Each doc's text (`doc.text`), sliced from the batch's text."""
        out = []
        arrays = self.arrays
        for start, n in zip(self.starts.tolist(), self.lengths.tolist()):
            if not n:
                out.append("")
                continue
            last = start + n - 1
            end = int(arrays.idx[last] + arrays.length[last]) + int(arrays.trailing[last])
            out.append(arrays.text[int(arrays.idx[start]) : end])
        return out

    @cached_property
    def separators(self) -> numpy.ndarray:
        """Bool (N,): the flat tokens that stand between docs."""
        out = numpy.zeros(len(self.arrays), dtype=bool)
        out[(self.starts + self.lengths)[:-1]] = True
        return out

    @cached_property
    def real_gaps(self) -> numpy.ndarray:
        """Bool (N - 1,): the flat gaps that are a doc's (not next to a separator)."""
        separators = self.separators
        return ~separators[:-1] & ~separators[1:]


def batch_words(laid: BatchArrays, bounds: numpy.ndarray):
    """The words of docs laid end to end, cut at `bounds` (bool (N - 1,) over
    the flat gaps; the gaps next to separators are cut whatever it says).

    RETURNS (Tuple[List[str], List[bool], numpy.ndarray, numpy.ndarray]): the
        words of all docs in order, whether a space follows each, and each
        doc's first word and end (words[first[k]:end[k]] are doc k's).
    """
    arrays = laid.arrays
    n = len(arrays)
    if not n:
        none = numpy.zeros(len(laid.lengths), dtype=numpy.int64)
        return [], [], none, none
    separators = laid.separators
    cut = separators[:-1] | separators[1:]
    if n > 1:
        cut |= numpy.asarray(bounds, dtype=bool)
    ends = numpy.flatnonzero(cut) + 1
    first = numpy.concatenate([[0], ends])
    last = numpy.concatenate([ends, [n]]) - 1
    keep = ~separators[first]
    first, last = first[keep], last[keep]
    begin = arrays.idx[first]
    end = arrays.idx[last] + arrays.length[last]
    text = arrays.text
    words = [text[a:b] for a, b in zip(begin.tolist(), end.tolist())]
    doc_first = numpy.searchsorted(first, laid.starts)
    doc_end = numpy.searchsorted(first, laid.starts + laid.lengths)
    return words, arrays.trailing[last].tolist(), doc_first, doc_end


def batch_arrays(arrays: list) -> BatchArrays:
    """Lay several docs' `TokenArrays` end to end (`BatchArrays`; at least one doc)."""
    lengths = numpy.fromiter((len(a) for a in arrays), dtype=numpy.int64, count=len(arrays))
    starts = numpy.zeros(len(arrays), dtype=numpy.int64)
    numpy.cumsum(lengths[:-1] + 1, out=starts[1:])
    text = _SEPARATOR.join(a.text for a in arrays)
    text_lengths = numpy.fromiter((len(a.text) for a in arrays), dtype=numpy.int64, count=len(arrays))
    text_starts = numpy.zeros(len(arrays), dtype=numpy.int64)
    numpy.cumsum(text_lengths[:-1] + 1, out=text_starts[1:])

    def cat(field: str, separator: numpy.ndarray) -> numpy.ndarray:
        return numpy.concatenate(interleaved([getattr(a, field) for a in arrays], separator))

    one = lambda value, dtype: numpy.full(1, value, dtype=dtype)  # noqa: E731
    # the separator's own idx is its doc's text length: the offset below moves it onto the "\n"
    idx_pieces = interleaved([a.idx for a in arrays], None)
    idx_pieces[1::2] = [one(n, numpy.int64) for n in text_lengths[:-1].tolist()]
    idx = numpy.concatenate(idx_pieces) + numpy.repeat(text_starts, lengths + 1)[: int(lengths.sum()) + len(arrays) - 1]
    flat = TokenArrays(
        orth=cat("orth", one(0, numpy.uint64)),
        idx=idx,
        length=cat("length", one(1, numpy.int64)),
        is_space=cat("is_space", one(True, bool)),
        trailing=cat("trailing", one(False, bool)),
        codes=cat("codes", one(MULTI_CHAR_CODE, numpy.int64)),
        first=cat("first", one(MULTI_CHAR_CODE, numpy.int64)),
        breaks=cat("breaks", one(True, bool)),
        text=text,
    )
    return BatchArrays(flat, lengths, starts)


# str.isspace() per code point (no whitespace lies beyond U+3000)
_SPACE_LIMIT = 0x3001
_IS_SPACE = numpy.array([chr(c).isspace() for c in range(_SPACE_LIMIT)], dtype=bool)
def text_batch_arrays(texts: Sequence[str]) -> BatchArrays:
    """The `BatchArrays` of the docs that `tokenizer.ChineseCharTokenizer`
    makes of `texts`, straight from the texts in one vectorised pass (what
    `batch_arrays` of each doc's `token_arrays` gives, without reading the docs).

    The rule: a character that is not whitespace is a token; a single " "
    after one is its trailing space; every other run of whitespace is a token.
    """
    text = _SEPARATOR.join(texts)
    points = numpy.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(numpy.int64)
    n_chars = len(points)
    text_lengths = numpy.fromiter((len(t) for t in texts), dtype=numpy.int64, count=len(texts))
    separator = numpy.zeros(n_chars, dtype=bool)
    separator[(numpy.cumsum(text_lengths + 1) - 1)[:-1]] = True
    space = _IS_SPACE[numpy.minimum(points, _SPACE_LIMIT - 1)] & (points < _SPACE_LIMIT) & ~separator
    char = ~space & ~separator
    # a " " right after a character is that character's trailing space
    absorbed = numpy.zeros(n_chars, dtype=bool)
    absorbed[1:] = (points[1:] == 32) & char[:-1]
    run = space & ~absorbed
    run_start = run.copy()
    run_start[1:] &= ~run[:-1]
    starts_at = numpy.flatnonzero(char | separator | run_start)  # each token's first character
    n_tokens = len(starts_at)
    next_start = numpy.append(starts_at[1:], n_chars)
    trailing = numpy.zeros(n_tokens, dtype=bool)
    inside = starts_at + 1 < n_chars
    trailing[inside] = absorbed[starts_at[inside] + 1]
    length = next_start - starts_at - trailing
    is_separator = separator[starts_at]
    is_space = space[starts_at] | is_separator
    first = numpy.where(is_separator, MULTI_CHAR_CODE, points[starts_at])
    codes = numpy.where(length == 1, first, MULTI_CHAR_CODE)
    line_break = numpy.concatenate([[0], numpy.cumsum(space & ((points == 10) | (points == 13)))])
    breaks = unit_breaks(is_separator | (is_space & (line_break[starts_at + length] > line_break[starts_at])), is_space)
    orth = numpy.zeros(n_tokens, dtype=numpy.uint64)
    single = ~is_separator & (length == 1)
    orth[single] = char_orths(points[starts_at[single]])
    for i in numpy.flatnonzero(length > 1).tolist():  # whitespace runs
        orth[i] = get_string_id(text[starts_at[i] : starts_at[i] + length[i]])
    flat = TokenArrays(orth, starts_at, length, is_space, trailing, codes, first, breaks, text)
    separators = numpy.flatnonzero(is_separator)
    doc_starts = numpy.concatenate([[0], separators + 1])
    doc_lengths = numpy.append(separators, n_tokens) - doc_starts
    return BatchArrays(flat, doc_lengths, doc_starts)


class DocBatch(tuple):
    """A batch of docs and their `BatchArrays`, read once, when first asked for.

    The batch is what the segmenter passes to its model and to its decoder, so
    that featurization, the character check, decoding and the loss read the
    docs once. A tuple of the docs (any code that takes a list of docs takes
    it); the docs must not be retokenized while the batch is in use.
    """

    def __new__(cls, docs: Iterable[Doc]) -> "DocBatch":
        batch = super().__new__(cls, docs)
        batch._arrays: Optional[BatchArrays] = None
        return batch

    @classmethod
    def of(cls, docs: Iterable[Doc]) -> "DocBatch":
        """`docs` if it is a `DocBatch` already (its arrays are kept), else a new one."""
        return docs if isinstance(docs, DocBatch) else cls(docs)

    @property
    def arrays(self) -> BatchArrays:
        """The docs laid end to end (at least one doc): from the texts of `CharDoc`s
        whose tokens are still the tokenizer's in one vectorised pass
        (`text_batch_arrays`), else token by token (`token_arrays`)."""
        if self._arrays is None:
            self._arrays = read_batch_arrays(self)
        return self._arrays

    def forced(self, i: int) -> numpy.ndarray:
        """Doc i's gaps that are boundaries whatever the model says (`TokenArrays.forced`)."""
        start, n = int(self.arrays.starts[i]), int(self.arrays.lengths[i])
        return self.arrays.arrays.forced[start : start + max(n - 1, 0)]


def read_batch_arrays(docs: Sequence[Doc]) -> BatchArrays:
    """The `BatchArrays` of docs (at least one), read in one pass where every doc is a
    `CharDoc` that the tokenizer's rule still describes."""
    texts: List[Optional[str]] = [input_text(doc) for doc in docs]
    if all(t is not None for t in texts):
        batch = text_batch_arrays(texts)
        sizes = numpy.fromiter((len(doc) for doc in docs), dtype=numpy.int64, count=len(docs))
        if numpy.array_equal(batch.lengths, sizes):  # else retokenized since: read the tokens
            return batch
    return batch_arrays([read_token_arrays(doc) for doc in docs])
