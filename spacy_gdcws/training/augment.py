"""Pseudo-words: unknown two-character words made up in training.

Most out-of-vocabulary words of new text are two Han characters whose
bigram the training data never had. Block leave-out (`holdout_folds`) hides a
rare word's bigram and dictionary match from the model in training, but not
its two characters: the model can still learn that these two characters side
by side make a word, and a new pair of known characters then gets less than
its due. A pseudo-word is a rare two-character training word with its
characters replaced by a first character and a second character drawn from
two other two-character words of the training vocabulary: a pair that is, as
a rule, new to the model, in a place where a word stands. The model meets a
fresh such word each time, with gold boundaries around it, so it can only
learn what makes two characters a word from the characters themselves.

Unknown single-character words are the same story one character shorter: a
character the training data has only inside longer words, standing alone.
A pseudo-character is a rare single-character training word replaced by a
character that the training vocabulary has only inside longer words.

Training only (`GDSegmenter` settings `pseudo_words`, `pseudo_chars`); they are
drawn anew at each update (numpy's global RNG, seeded by spaCy) and never
reach the vocabulary, the dictionary features or the decoding counts, which
`initialize` takes from the real training data.
"""
from typing import Iterable, List, Mapping, Optional

import numpy
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from spacy_gdcws.data.features import (
    HAN_CLASS,
    SOURCE_TEXT_KEY,
    char_class,
    source_text,
)

# the words that may be replaced: two Han characters, at most this frequent in training
MAX_WORD_COUNT = 5
# lexemes a scratch vocab of augmented reference docs holds before a fresh one replaces it
SCRATCH_LEXEMES = 100_000


def is_han(word: str) -> bool:
    """Whether a word is Han characters only (not numerals)."""
    return all(char_class(c) == HAN_CLASS for c in word)


def is_han_pair(word: str) -> bool:
    """Whether a word is two Han characters (not numerals)."""
    return len(word) == 2 and is_han(word)


class PseudoWords:
    """Where pseudo-words come from: the first and second characters of the
    training vocabulary's two-character Han words (one draw per word type, so
    the characters come from words as varied as unknown words are), and which
    words they may stand in for (two Han characters, at most `MAX_WORD_COUNT`
    occurrences in training: rare words, whose places are where unknown words
    turn up); likewise for single characters: `chars` are the Han characters
    that occur in training words but never as a word of their own, and
    `replaceable_chars` the single-character Han words with at most
    `MAX_WORD_COUNT` occurrences."""

    __slots__ = ("firsts", "seconds", "replaceable", "chars", "replaceable_chars", "_scratch")

    def __init__(
        self,
        firsts: Iterable[str],
        seconds: Iterable[str],
        replaceable: Iterable[str],
        chars: Iterable[str] = (),
        replaceable_chars: Iterable[str] = (),
    ) -> None:
        self.firsts = numpy.asarray(list(firsts), dtype=object)
        self.seconds = numpy.asarray(list(seconds), dtype=object)
        self.replaceable = frozenset(replaceable)
        self.chars = numpy.asarray(list(chars), dtype=object)
        # nothing to draw from: nothing to replace
        self.replaceable_chars = frozenset(replaceable_chars) if len(self.chars) else frozenset()
        self._scratch: Optional[Vocab] = None

    def scratch_vocab(self) -> Vocab:
        """Where the augmented reference docs keep their words. A pseudo-word is a new
        string, and a `Doc` adds every new word to its vocab for good: in the pipeline's
        vocab that grew by ~175,000 lexemes per 1,500 steps of the main job (#50). Only the
        loss reads these docs (their token boundaries), so they live in a vocab of their
        own, replaced by a fresh one past `SCRATCH_LEXEMES`."""
        if self._scratch is None or len(self._scratch) > SCRATCH_LEXEMES:
            self._scratch = Vocab()
        return self._scratch

    @classmethod
    def from_counts(cls, counts: Mapping[str, int]) -> Optional["PseudoWords"]:
        """From the training words' frequencies; None if there are no
        two-character Han words to draw from."""
        pairs = sorted(w for w in counts if is_han_pair(w))
        if not pairs:
            return None
        rare = (w for w in pairs if counts[w] <= MAX_WORD_COUNT)
        singles = {w for w in counts if len(w) == 1 and is_han(w)}
        inside = sorted({c for w in counts if len(w) > 1 and is_han(w) for c in w} - singles)
        rare_singles = (w for w in singles if counts[w] <= MAX_WORD_COUNT)
        return cls((w[0] for w in pairs), (w[1] for w in pairs), rare, inside, rare_singles)

    def draw(self, n: int) -> List[str]:
        """n pseudo-words."""
        i = numpy.random.randint(len(self.firsts), size=n)
        j = numpy.random.randint(len(self.seconds), size=n)
        return [a + b for a, b in zip(self.firsts[i], self.seconds[j])]

    def draw_chars(self, n: int) -> List[str]:
        """n pseudo-characters."""
        return list(self.chars[numpy.random.randint(len(self.chars), size=n)])

    def apply(self, eg: Example, rate: float, char_rate: float = 0.0) -> Example:
        """The example with each replaceable two-character word of its
        reference replaced by a pseudo-word with probability `rate`, and each
        replaceable single-character word by a pseudo-character with
        probability `char_rate` (the example itself if none is). The new docs
        keep the text's length and every token boundary; the predicted doc
        records the original text (`SOURCE_TEXT_KEY`), so block leave-out
        still finds the doc's training block."""
        spots = []  # (start, length, probability)
        for t in eg.reference:
            if rate > 0.0 and t.text in self.replaceable:
                spots.append((t.idx, 2, rate))
            elif char_rate > 0.0 and t.text in self.replaceable_chars:
                spots.append((t.idx, 1, char_rate))
        if not spots:
            return eg
        chosen = [spot for spot, u in zip(spots, numpy.random.random_sample(len(spots))) if u < spot[2]]
        if not chosen:
            return eg
        pairs = [start for start, length, _ in chosen if length == 2]
        singles = [start for start, length, _ in chosen if length == 1]
        chars = list(eg.reference.text)
        for start, word in zip(pairs, self.draw(len(pairs))):
            chars[start : start + 2] = word
        if singles:
            for start, char in zip(singles, self.draw_chars(len(singles))):
                chars[start] = char
        text = "".join(chars)
        predicted = _respell(eg.predicted, text)
        predicted.user_data[SOURCE_TEXT_KEY] = source_text(eg.predicted)
        return Example(predicted, _respell(eg.reference, text, self.scratch_vocab()))


def _respell(doc: Doc, text: str, vocab: Optional[Vocab] = None) -> Doc:
    """A doc with the same tokens and spaces as `doc` over a text of the same length (in
    `vocab`, default the doc's)."""
    words = [text[t.idx : t.idx + len(t)] for t in doc]
    return Doc(vocab if vocab is not None else doc.vocab, words=words, spaces=[bool(t.whitespace_) for t in doc])
