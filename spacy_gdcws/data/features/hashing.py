"""Hashed rows of characters and bigrams (several seeds per key), of words' texts (the parser's
features), and character classes."""
import unicodedata
import zlib
from functools import lru_cache
from typing import Sequence

import numpy

from spacy_gdcws.data.key_index import mix64

MASK64 = numpy.uint64(0xFFFFFFFFFFFFFFFF)
_SEED_STEP = numpy.uint64(0x9E3779B97F4A7C15)
_BIGRAM_MUL = numpy.uint64(0xC2B2AE3D27D4EB4F)
BOS = numpy.uint64(0x5F3759DF5F3759DF)
EOS = numpy.uint64(0x1B873593CC9E2D51)
# keys that stand in for characters / bigrams outside the n-gram vocabulary
# (plus the character class, or the pair of classes: see `char_classes`)
UNK_CHAR = numpy.uint64(0x2545F4914F6CDD1D)
UNK_BIGRAM = numpy.uint64(0x4F1BBCDCBFA54A6B)
N_CLASSES = 9  # char_classes' 8 classes and the unit edge (BOS / EOS)
EDGE_CLASS = 8
_HAN_NUMERALS = frozenset("〇○零一二三四五六七八九十百千万亿两廿卅")
HAN_CLASS = 2  # `char_class` of a Han character that is not a numeral


@lru_cache(maxsize=65536)
def char_class(text: str) -> int:
    """Coarse class of a token (by its first character): 0 whitespace,
    1 Chinese numeral, 2 other Han character, 3 digit (any script or width),
    4 other letter (Latin, kana, ...), 5 punctuation, 6 symbol, 7 other."""
    if not text or text.isspace():
        return 0
    c = text[0]
    if c in _HAN_NUMERALS:
        return 1
    cp = ord(c)
    if 0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x3134F or 0xF900 <= cp <= 0xFAFF:
        return HAN_CLASS
    category = unicodedata.category(c)
    return {"N": 3, "L": 4, "P": 5, "S": 6}.get(category[0], 7)


def char_classes(tokens: Sequence[str]) -> numpy.ndarray:
    """`char_class` of every token, as uint64 (n,)."""
    return numpy.fromiter((char_class(t) for t in tokens), dtype=numpy.uint64, count=len(tokens))


def hash_rows(keys: numpy.ndarray, n_rows: int, n_seeds: int) -> numpy.ndarray:
    """Map uint64 keys to `n_seeds` table rows each: shape keys.shape + (n_seeds,)."""
    salts = _SEED_STEP * numpy.arange(1, n_seeds + 1, dtype=numpy.uint64)
    with numpy.errstate(over="ignore"):
        salted = numpy.asarray(keys, dtype=numpy.uint64)[..., None] + salts  # every seed at once
        return (mix64(salted) % numpy.uint64(n_rows)).astype(numpy.int64)


def bigram_key(left: numpy.ndarray, right: numpy.ndarray) -> numpy.ndarray:
    """uint64 key of the bigrams (left[i], right[i])."""
    with numpy.errstate(over="ignore"):
        return mix64(left.astype(numpy.uint64) * _BIGRAM_MUL) ^ right.astype(numpy.uint64)


_CLASS_OF = numpy.full(0x110000, -1, dtype=numpy.int8)


def char_classes_from_codes(first: numpy.ndarray, is_space: numpy.ndarray) -> numpy.ndarray:
    """`char_classes` from each token's first code point and whitespace flag
    (`doc_arrays.TokenArrays`): one table lookup; a character's class is
    computed once per process."""
    if not len(first):
        return numpy.zeros(0, dtype=numpy.uint64)
    # whitespace (and the separators between docs, beyond Unicode) is class 0 anyway
    first = numpy.where(is_space, 32, numpy.asarray(first, dtype=numpy.int64))
    classes = _CLASS_OF[first]
    if (classes < 0).any():
        new = numpy.unique(first[classes < 0])
        _CLASS_OF[new] = numpy.fromiter((char_class(chr(int(c))) for c in new), dtype=numpy.int8, count=len(new))
        classes = _CLASS_OF[first]
    classes = classes.astype(numpy.uint64)
    classes[is_space] = 0
    return classes


_NGRAM_MUL = numpy.uint64(0x100000001B3)


def code_keys(windows: numpy.ndarray) -> numpy.ndarray:
    """uint64 keys of rows of code points (m, L)."""
    key = numpy.zeros(windows.shape[0], dtype=numpy.uint64)
    with numpy.errstate(over="ignore"):
        for j in range(windows.shape[1]):
            key = mix64(key * _NGRAM_MUL + windows[:, j].astype(numpy.uint64))
    return key


#: rows reserved at the top of every table of the parser's features: 0 = padding, 1 = unknown
#: (word dropout's row, a word not in the lexicon)
RESERVED = 2


def text_row(text: str, rows: int) -> int:
    """The row of a text (a word, a character) in a table of `rows` rows, past the `RESERVED`
    ones: CRC-32 of its UTF-8 bytes (the same in every process and on every machine)."""
    return RESERVED + zlib.crc32(text.encode("utf8")) % (rows - RESERVED)
