"""Dictionary features: which training words start or end at each character (with leave-out of a doc's own block in training), the word counts and the blocks."""
from typing import (
    Container,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy
from spacy.strings import get_string_id

from spacy_gdcws.data.features.hashing import _NGRAM_MUL, code_keys
from spacy_gdcws.data.key_index import KeyIndex, mix64


class WordCounts:
    """Read-only word -> training frequency mapping for `lexicon_holdout`.

    Not a dict on purpose: thinc serializes every msgpack-able model attr into
    the model's bytes, and the counts are only needed in training (they are
    recomputed by `initialize`). Picklable, so `nlp.pipe(n_process=...)` works.

    local_folds (Optional[Mapping[str, int]]): With block leave-out
        (`HoldoutFolds`), the block of each word whose training occurrences
        all lie in one block.
    """

    __slots__ = ("_counts", "_local_folds")

    def __init__(self, counts: Mapping[str, int], local_folds: Optional[Mapping[str, int]] = None) -> None:
        self._counts = dict(counts)
        self._local_folds = dict(local_folds) if local_folds else {}

    def get(self, word: str, default: int = 0) -> int:
        return self._counts.get(word, default)

    def fold_of(self, word: str) -> int:
        """The block all of `word`'s training occurrences lie in, or -1."""
        return self._local_folds.get(word, -1)

    def values(self) -> Iterable[int]:
        return self._counts.values()

    def __len__(self) -> int:
        return len(self._counts)


class HoldoutFolds:
    """Contiguous blocks of the training docs, for block leave-out.

    Leave-one-out over single docs shows the model far fewer unknown words
    and in-word bigrams than new text brings: rare words cluster in the
    articles about their topic. With `k` blocks of the training docs in file
    order, training hides from a doc every word / n-gram whose training
    occurrences all lie in the doc's own block, as a held-out stretch of text
    would see them (SXU: 10.6% of in-word bigrams unknown, against 15.1% on
    dev and 4.0% with leave-one-doc-out).

    A doc is found by its text (a 64-bit hash); texts not seen by
    `from_texts` get block -1 (plain leave-one-out). Training-only, like
    `WordCounts`: not saved with the model.
    """

    __slots__ = ("k", "_blocks")

    def __init__(self, k: int, blocks: Mapping[int, int]) -> None:
        self.k = k
        self._blocks = dict(blocks)

    @classmethod
    def from_texts(cls, texts: Sequence[str], k: int) -> "HoldoutFolds":
        """Cut the texts, in order, into k blocks of (nearly) equal numbers of
        docs; a text that occurs more than once keeps its first block."""
        blocks: Dict[int, int] = {}
        for i, text in enumerate(texts):
            blocks.setdefault(text_key(text), cls.block_of_index(i, len(texts), k))
        return cls(k, blocks)

    @staticmethod
    def block_of_index(i: int, n: int, k: int) -> int:
        """The block of the i-th of n docs (the rule `from_texts` uses)."""
        return i * k // max(n, 1)

    def fold(self, text: str) -> int:
        """The block of a training doc's text, or -1 if it is not one."""
        return self._blocks.get(text_key(text), -1)

    def __len__(self) -> int:
        return len(self._blocks)


# Doc.user_data key: the training text a doc was made from (`augment.PseudoWords`)
SOURCE_TEXT_KEY = "gdcws_source_text"


def source_text(doc, text: Optional[str] = None) -> str:
    """The training text a doc stands for: its own (`text`, if already read),
    or the one it was made from in training (`SOURCE_TEXT_KEY`), which
    `HoldoutFolds` knows."""
    source = doc.user_data.get(SOURCE_TEXT_KEY)
    if source is not None:
        return source
    return doc.text if text is None else text


def text_key(text: str) -> int:
    """A stable 64-bit key of a text (spaCy's string hash)."""
    return get_string_id(text)


def lexicon_features(tokens: Sequence[str], lexicon: Container[str], max_len: int,
                     holdout_counts: Optional[Union[Mapping[str, int], WordCounts]] = None,
                     fold: int = -1) -> numpy.ndarray:
    """Which lexicon words start and end at each token (pkuseg-style
    dictionary features; the lexicon is the training vocabulary, so they are
    closed-test legal).

    tokens (Sequence[str]): The doc's token texts (characters).
    lexicon (AbstractSet[str]): The words.
    max_len (int): Longest word length looked up (lengths 2..max_len).
    holdout_counts (Optional[Mapping[str, int]]): Training frequencies; when
        given (training only), a word is hidden if all its training
        occurrences may lie in this very text (frequency <= occurrences of the
        string here): leave-one-out, so that the model sees such words as it
        will see unknown words at test time.
    RETURNS (numpy.ndarray): float32 (n, 2 * (max_len - 1)): column n - 2 is 1
        where a word of n characters starts at the token, column
        max_len - 1 + n - 2 where one ends there.
    """
    n_tokens = len(tokens)
    width = max_len - 1
    out = numpy.zeros((n_tokens, 2 * width), dtype=numpy.float32)
    text = "".join(tokens)
    single = len(text) == n_tokens  # every token one character: slice the string
    for size in range(2, max_len + 1):
        k = size - 2
        for i in range(n_tokens - size + 1):
            piece = text[i : i + size] if single else "".join(tokens[i : i + size])
            if piece in lexicon:
                if holdout_counts is not None and _held_out(holdout_counts, piece, text, fold):
                    continue
                out[i, k] = 1.0
                out[i + size - 1, width + k] = 1.0
    return out


def _held_out(counts: Union[Mapping[str, int], WordCounts], word: str, text: str, fold: int) -> bool:
    """Whether training hides a dictionary word from `text` (see `lexicon_features`)."""
    if fold >= 0 and isinstance(counts, WordCounts) and counts.fold_of(word) == fold:
        return True
    return counts.get(word, 0) <= text.count(word)



def window_matches(codes: numpy.ndarray, size: int, table: KeyIndex) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """The start of every window of `size` code points whose key (`code_keys`) is in the
    sorted `table`, and each one's index in it (a doc shorter than `size` has none)."""
    if len(codes) < size:
        empty = numpy.zeros(0, dtype=numpy.int64)
        return empty, empty
    found, idx = table.find(code_keys(numpy.lib.stride_tricks.sliding_window_view(codes, size)))
    starts = numpy.flatnonzero(found)
    return starts, idx[starts]


class LexiconIndex:
    """The dictionary as sorted 64-bit keys of each word's code points, one
    table per length, for `lexicon_features` by array lookups.

    It gives `lexicon_features(tokens, words, max_len)` exactly (barring a
    64-bit key collision) for docs of one-character tokens; a token of several
    characters (a whitespace run, `doc_arrays.MULTI_CHAR_CODE`) matches no word.
    Prediction uses it; training with `lexicon_holdout` needs each word's
    counts and keeps `lexicon_features`.
    """

    __slots__ = ("max_len", "_tables")

    def __init__(self, words: Iterable[str], max_len: int) -> None:
        self.max_len = max_len
        by_length: Dict[int, List[List[int]]] = {}
        for word in words:
            if 2 <= len(word) <= max_len:
                by_length.setdefault(len(word), []).append([ord(c) for c in word])
        rows = {size: numpy.asarray(r, dtype=numpy.int64) for size, r in by_length.items()}
        empty = numpy.zeros(0, dtype=numpy.uint64)
        # per window size: one table of the keys of the words of that size and of every
        # proper prefix (of that size) of a longer word, and which of the two each key is:
        # a window that begins no longer word is not extended (`features`)
        self._tables: Dict[int, Tuple[KeyIndex, numpy.ndarray, numpy.ndarray]] = {}
        for size in range(2, max_len + 1):
            whole = numpy.unique(code_keys(rows[size])) if size in rows else empty
            longer = [code_keys(r[:, :size]) for n, r in rows.items() if n > size]
            prefixes = numpy.unique(numpy.concatenate(longer)) if longer else empty
            keys = numpy.union1d(whole, prefixes)
            if len(keys):
                self._tables[size] = (KeyIndex(keys), numpy.isin(keys, whole), numpy.isin(keys, prefixes))

    def features(self, codes: numpy.ndarray) -> numpy.ndarray:
        """float32 (n, 2 * (max_len - 1)) as `lexicon_features` gives them.

        Windows grow one character at a time from every position, their keys
        extended as `code_keys` builds them; a window goes on growing only while
        it is the prefix of a longer dictionary word, so most positions stop
        after two characters."""
        n_tokens = len(codes)
        width = self.max_len - 1
        out = numpy.zeros((n_tokens, 2 * width), dtype=numpy.float32)
        starts = numpy.arange(n_tokens, dtype=numpy.int64)
        values = numpy.asarray(codes).astype(numpy.uint64)
        key = mix64(values)  # `code_keys` of each 1-character window
        for size in range(2, self.max_len + 1):
            room = starts + size <= n_tokens
            starts, key = starts[room], key[room]
            with numpy.errstate(over="ignore"):
                key = mix64(key * _NGRAM_MUL + values[starts + size - 1])
            table = self._tables.get(size)
            if table is None:  # no word of this size or longer
                break
            index, is_word, is_prefix = table
            found, idx = index.find(key)
            hit = starts[found & is_word[idx]]
            out[hit, size - 2] = 1.0
            out[hit + size - 1, width + size - 2] = 1.0
            more = found & is_prefix[idx]
            starts, key = starts[more], key[more]
            if not len(starts):
                break
        return out
