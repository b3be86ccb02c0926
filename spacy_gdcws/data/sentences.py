"""Where sentences end: the one table of sentence-final marks (the parser splits a doc of words at
them, `segment` cuts an over-long line after them, `app.pieces`), and, in a doc of words, its
sentences and where its whitespace tokens hang.

A line break always ends a sentence; with `split_at`, a word of those characters (。！？ by
default) ends one too (but in a doc that is one sentence as given, `ONE_SENTENCE`: a CoNLL-U
sentence read as the input), together with the closing quotes and brackets right after it. A run of more
than `max_words` words without either is cut after its last clause mark (，；：) in its second half,
or else at `max_words`, so that the parser's arc scores (words x words) stay bounded on a text with
no punctuation. Whitespace
tokens belong to no sentence's words: they are tagged SPACE and attached to the word before them
(or, at the start of a doc, the word after them), never a head (spaCy's convention); so are tokens of
control and format characters alone (`\x07`, a lone zero-width joiner: `is_blank`), which are no
word either.
"""
import re
import unicodedata
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Sequence

from spacy.attrs import ORTH
from spacy.tokens import Doc

#: the sentence-final words (the parser's default `split_at`, chosen on dev: docs/pos-and-dependencies.md)
SENTENCE_FINAL = frozenset({"。", "！", "？", "!", "?", "…", "……"})
#: closing marks that stay with the sentence they close
CLOSING = frozenset({"”", "’", "」", "』", "）", ")", "》", "\"", "'", "】"})
#: where an over-long sentence is cut, by preference
CLAUSE = frozenset({"，", ",", "；", ";", "：", ":", "、"})
MAX_SENTENCE = 200
#: where a doc says it is one sentence as given (`doc.user_data`; e.g. a sentence of a CoNLL-U file):
#: no sentence-final word ends it (line breaks and `MAX_SENTENCE` still do)
ONE_SENTENCE = ("spacy_gdcws", "one_sentence")
#: a sentence's end in running text: a run of sentence-final marks and the closing marks after it
SENTENCE_END = re.compile("[{}]+[{}]*".format(re.escape("".join(sorted(set("".join(SENTENCE_FINAL))))),
                                             re.escape("".join(sorted(CLOSING)))))


@dataclass
class DocSentences:
    """A doc's sentences as lists of token indices (whitespace tokens left out), and where each
    whitespace token hangs (`space_heads[i]`: a token index, or i itself where a doc has no word)."""

    sentences: List[List[int]]
    space_heads: Dict[int, int]


def split_sentences(doc: Doc, split_at: FrozenSet[str] = SENTENCE_FINAL,
                    max_words: int = MAX_SENTENCE) -> DocSentences:
    """The sentences of one doc of words (see the module's docstring)."""
    texts = doc_texts(doc)
    if doc.user_data.get(ONE_SENTENCE):
        split_at = frozenset()
    sentences: List[List[int]] = []
    current: List[int] = []
    spaces: List[int] = []
    close_pending = False
    for i, text in enumerate(texts):
        if is_blank(text):  # spaCy's `token.is_space`, or control characters alone
            spaces.append(i)
            if "\n" in text or "\r" in text:
                _close(sentences, current)
                current = []
                close_pending = False
            continue
        if close_pending and text not in CLOSING:
            _close(sentences, current)
            current = []
            close_pending = False
        current.append(i)
        if text in split_at:
            close_pending = True
        elif len(current) >= max_words:
            current = _cut(texts, sentences, current, max_words)
    _close(sentences, current)
    return DocSentences(sentences, _space_heads(texts, spaces))


def doc_texts(doc: Doc) -> List[str]:
    """The text of each token, read off the ORTH ids (no `Token` object is made: the parser reads
    every word of every doc)."""
    strings = doc.vocab.strings
    return [strings[orth] for orth in doc.to_array(ORTH).tolist()]


def _cut(texts: Sequence[str], sentences: List[List[int]], current: List[int], max_words: int) -> List[int]:
    """Close the first part of an over-long run of words; RETURNS the rest."""
    cut = len(current)
    for k in range(len(current) - 1, max_words // 2 - 1, -1):
        if texts[current[k]] in CLAUSE:
            cut = k + 1
            break
    sentences.append(current[:cut])
    return current[cut:]


def _close(sentences: List[List[int]], current: List[int]) -> None:
    if current:
        sentences.append(current)


def is_blank(text: str) -> bool:
    """A token that is no word: whitespace (spaCy's `is_space`), or control and format characters
    alone (Unicode categories Cc and Cf: `\x07`, a zero-width joiner on its own)."""
    return text.isspace() or all(unicodedata.category(ch) in ("Cc", "Cf") or ch.isspace() for ch in text)


def _space_heads(texts: Sequence[str], spaces: Sequence[int]) -> Dict[int, int]:
    heads: Dict[int, int] = {}
    if not spaces:
        return heads
    is_space = [is_blank(text) for text in texts]
    previous = -1
    following = [-1] * len(texts)
    nxt = -1
    for i in range(len(texts) - 1, -1, -1):
        following[i] = nxt
        if not is_space[i]:
            nxt = i
    for i in range(len(texts)):
        if is_space[i]:
            # a doc without a word: its first token is its own head, and the others hang on it
            heads[i] = previous if previous >= 0 else (following[i] if following[i] >= 0 else spaces[0])
        else:
            previous = i
    return heads
