"""A character doc's tokens as arrays, read in one pass (no Python loop per character).

Everything the data path needs of a doc (ORTH ids, offsets, whitespace,
line breaks, the first code point of each token) comes from `Doc.to_array`
and the doc's text, so featurization and decoding never create `Token`
objects on the hot path.
"""
import weakref
from dataclasses import dataclass

import numpy
from spacy.attrs import IDX, IS_SPACE, LENGTH, ORTH, SPACY
from spacy.tokens import Doc

_ATTRS = [ORTH, IDX, LENGTH, IS_SPACE, SPACY]
# stands in for the code point of a token of several characters (a whitespace
# run): beyond Unicode, so it never matches a dictionary word's character
MULTI_CHAR_CODE = 0x110000


@dataclass
class TokenArrays:
    """Per-token arrays of one doc (n tokens).

    orth (uint64): ORTH ids. idx, length (int64): character offset and length.
    is_space, trailing (bool): whitespace token; token followed by a space.
    codes (int64): the token's code point if it is one character, else
        `MULTI_CHAR_CODE`. first (int64): the code point of its first character.
    breaks (bool): whitespace tokens that contain a line break.
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

    @property
    def forced(self) -> numpy.ndarray:
        """Gaps that are boundaries whatever the model says (n - 1,): next to a
        whitespace token, or after a token with trailing whitespace."""
        return self.is_space[:-1] | self.is_space[1:] | self.trailing[:-1]


# each doc's arrays while the doc lives: the model's featurization and the
# segmenter's decoding read them once (a retokenized doc, whose number of
# tokens changed, is read again)
_CACHE: "weakref.WeakKeyDictionary[Doc, TokenArrays]" = weakref.WeakKeyDictionary()


# the text each doc was made from, where its tokenizer says (ours does)
_TEXTS: "weakref.WeakKeyDictionary[Doc, str]" = weakref.WeakKeyDictionary()


def remember_text(doc: Doc, text: str) -> None:
    """Record the text a doc was just made from (`doc.text` costs a `Token` per token)."""
    _TEXTS[doc] = text


def token_arrays(doc: Doc) -> TokenArrays:
    """A doc's tokens as `TokenArrays` (read once per doc and kept while it lives)."""
    cached = _CACHE.get(doc)
    if cached is not None and len(cached) == len(doc):
        return cached
    arrays = _CACHE[doc] = read_token_arrays(doc)
    return arrays


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
    text = _TEXTS.get(doc)
    if text is None or len(text) != int(idx[-1] + length[-1] + trailing[-1]):
        text = doc_text(doc, orth, trailing)
    points = numpy.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(numpy.int64)
    first = points[idx] if len(points) else numpy.zeros(n, dtype=numpy.int64)
    codes = numpy.where(length == 1, first, MULTI_CHAR_CODE)
    breaks = numpy.zeros(n, dtype=bool)
    for i in numpy.flatnonzero(is_space):
        piece = text[idx[i] : idx[i] + length[i]]
        breaks[i] = "\n" in piece or "\r" in piece
    return TokenArrays(orth, idx, length, is_space, trailing, codes, first, breaks, text)


def doc_text(doc: Doc, orth: numpy.ndarray, trailing: numpy.ndarray) -> str:
    """`doc.text` from the tokens' ORTH ids and trailing-space flags (string
    lookups instead of one `Token` object per character)."""
    strings = doc.vocab.strings
    pieces = [strings[o] for o in orth.tolist()]
    for i in numpy.flatnonzero(trailing).tolist():
        pieces[i] += " "
    return "".join(pieces)


def words_and_spaces(doc: Doc, arrays: TokenArrays, boundaries: numpy.ndarray):
    """The words (and whether a space follows each) of a character doc cut at `boundaries`.

    boundaries (numpy.ndarray): Bool (n - 1,), True = a word ends at gap j.
    RETURNS (Tuple[List[str], List[bool]]): for `Doc(vocab, words=..., spaces=...)`.
    """
    ends = numpy.flatnonzero(boundaries) + 1
    starts = numpy.concatenate([[0], ends])
    last = numpy.concatenate([ends, [len(arrays)]]) - 1
    begin = arrays.idx[starts]
    end = arrays.idx[last] + arrays.length[last]
    text = arrays.text
    return [text[a:b] for a, b in zip(begin.tolist(), end.tolist())], arrays.trailing[last].tolist()


def interleaved(pieces: list, separator) -> list:
    """`pieces` with `separator` between neighbours (for one `numpy.concatenate`)."""
    out = [separator] * (2 * len(pieces) - 1)
    out[::2] = pieces
    return out


def ragged_positions(lengths: numpy.ndarray):
    """Row and column of every element of rows of `lengths` laid end to end:
    RETURNS (rows, cols), int64 (sum(lengths),), for scattering into a padded array."""
    rows = numpy.repeat(numpy.arange(len(lengths)), lengths)
    cols = numpy.arange(int(lengths.sum())) - numpy.repeat(numpy.cumsum(lengths) - lengths, lengths)
    return rows, cols


# what stands between two docs laid end to end: a line break (a whitespace token
# that is a break, so every gap next to it is forced and the priors see a line edge)
_SEPARATOR = "\n"


@dataclass
class BatchArrays:
    """The `TokenArrays` of several docs laid end to end, a line-break token
    between neighbours, so that gap rules and decoding priors run once per
    batch instead of once per doc. Doc k's token i is flat token
    `starts[k] + i` and its gap j (after token j) is flat gap `starts[k] + j`;
    the two gaps next to each separator belong to no doc (`real_gaps`).

    arrays (TokenArrays): The flat arrays; `text` is the texts joined by "\\n".
    lengths (int64): Tokens per doc. starts (int64): Each doc's first flat token.
    """

    arrays: TokenArrays
    lengths: numpy.ndarray
    starts: numpy.ndarray

    def split_gaps(self, values: numpy.ndarray) -> list:
        """Per-doc views (n_k - 1,) of a flat per-gap array."""
        return [values[s : s + n - 1] for s, n in zip(self.starts.tolist(), self.lengths.tolist())]

    def join_gaps(self, per_doc: list, fill: float = 0.0) -> numpy.ndarray:
        """A flat per-gap array from per-doc ones (n_k - 1,), `fill` at the separators' gaps."""
        pad = numpy.full(2, fill, dtype=numpy.asarray(per_doc[0]).dtype)
        return numpy.concatenate(interleaved(per_doc, pad))

    @property
    def real_gaps(self) -> numpy.ndarray:
        """Bool (N - 1,): the flat gaps that are a doc's (not next to a separator)."""
        real = numpy.ones(max(len(self.arrays) - 1, 0), dtype=bool)
        ends = (self.starts + self.lengths)[:-1]
        real[ends - 1] = False
        real[ends] = False
        return real


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
