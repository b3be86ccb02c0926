"""Where sentences end in a doc of words, and where its whitespace tokens hang.

A line break always ends a sentence; with `split_at`, a word of those characters (。！？ by
default) ends one too, together with the closing quotes and brackets right after it. Whitespace
tokens belong to no sentence's words: they are tagged SPACE and attached to the word before them
(or, at the start of a doc, the word after them), never a head (spaCy's convention).
"""
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Sequence

from spacy.tokens import Doc

#: the sentence-final words the main job splits at (chosen on dev: docs/pos-and-dependencies.md)
SENTENCE_FINAL = frozenset({"。", "！", "？", "!", "?", "…", "……"})
#: closing marks that stay with the sentence they close
CLOSING = frozenset({"”", "’", "」", "』", "）", ")", "》", "\"", "'", "】"})


@dataclass
class DocSentences:
    """A doc's sentences as lists of token indices (whitespace tokens left out), and where each
    whitespace token hangs (`space_heads[i]`: a token index, or i itself where a doc has no word)."""

    sentences: List[List[int]]
    space_heads: Dict[int, int]


def split_sentences(doc: Doc, split_at: FrozenSet[str] = SENTENCE_FINAL) -> DocSentences:
    """The sentences of one doc of words (see the module's docstring)."""
    sentences: List[List[int]] = []
    current: List[int] = []
    spaces: List[int] = []
    close_pending = False
    for token in doc:
        if token.is_space:
            spaces.append(token.i)
            if "\n" in token.text or "\r" in token.text:
                _close(sentences, current)
                current = []
                close_pending = False
            continue
        text = token.text
        if close_pending and text not in CLOSING:
            _close(sentences, current)
            current = []
            close_pending = False
        current.append(token.i)
        if text in split_at:
            close_pending = True
    _close(sentences, current)
    return DocSentences(sentences, _space_heads(doc, spaces))


def _close(sentences: List[List[int]], current: List[int]) -> None:
    if current:
        sentences.append(current)


def _space_heads(doc: Doc, spaces: Sequence[int]) -> Dict[int, int]:
    heads: Dict[int, int] = {}
    if not spaces:
        return heads
    is_space = [t.is_space for t in doc]
    previous = -1
    following = [-1] * len(doc)
    nxt = -1
    for i in range(len(doc) - 1, -1, -1):
        following[i] = nxt
        if not is_space[i]:
            nxt = i
    for i in range(len(doc)):
        if is_space[i]:
            heads[i] = previous if previous >= 0 else (following[i] if following[i] >= 0 else i)
        else:
            previous = i
    return heads
