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
from spacy.attrs import IDX, LENGTH, ORTH, SPACY
from spacy.strings import get_string_id
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from spacy_gdcws.data.doc_arrays import doc_text
from spacy_gdcws.data.features import HAN_CLASS, SOURCE_TEXT_KEY, char_class
from spacy_gdcws.errors import Errors

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


def check_rate(name: str, value: float) -> float:
    """A checked respelling rate of the segmenter (`pseudo_words` E039, `pseudo_chars` E040): 0 <= rate < 1."""
    if not 0.0 <= value < 1.0:
        raise ValueError((Errors.E039 if name == "pseudo_words" else Errors.E040).format(value=value))
    return value


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

    __slots__ = ("firsts", "seconds", "replaceable", "chars", "replaceable_chars", "_scratch", "_orths", "_char_orths")

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
        # the replaceable words' ORTH ids (spaCy's string hashes), sorted: matched against a doc's ORTH array
        self._orths = _sorted_orths(self.replaceable)
        self._char_orths = _sorted_orths(self.replaceable_chars)

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

    def respelled(self, eg: Example, rate: float, char_rate: float = 0.0) -> Doc:
        """The example's predicted doc with each replaceable two-character word of
        its reference replaced by a pseudo-word with probability `rate`, and each
        replaceable single-character word by a pseudo-character with probability
        `char_rate` (the predicted doc itself if none is). The new doc keeps the
        text's length and every token, so the example's gold gaps hold for it
        (what training uses: no reference is rebuilt); it records the original
        text (`SOURCE_TEXT_KEY`), so block leave-out still finds the doc's
        training block. The words are found on the reference's ORTH array (no
        `Token` objects)."""
        return self._respelled(eg, rate, char_rate)[0]

    def apply(self, eg: Example, rate: float, char_rate: float = 0.0) -> Example:
        """`respelled` as an example: the new predicted doc with the reference
        respelled alike (in the scratch vocab), or the example itself if no word
        is replaced. The same draws as `respelled`."""
        predicted, text, arrays = self._respelled(eg, rate, char_rate)
        if predicted is eg.predicted:
            return eg
        return Example(predicted, _respell(eg.reference, text, self.scratch_vocab(), arrays))

    def _respelled(self, eg: Example, rate: float, char_rate: float):
        reference = eg.reference
        orth = reference.to_array(ORTH)
        pair = _member(orth, self._orths) if rate > 0.0 else numpy.zeros(len(orth), dtype=bool)
        single = _member(orth, self._char_orths) & ~pair if char_rate > 0.0 else numpy.zeros(len(orth), dtype=bool)
        spot = numpy.flatnonzero(pair | single)
        if not len(spot):
            return eg.predicted, None, None
        # one draw per spot, in token order, against its word's rate
        chosen = spot[numpy.random.random_sample(len(spot)) < numpy.where(pair[spot], rate, char_rate)]
        if not len(chosen):
            return eg.predicted, None, None
        arrays = reference.to_array([IDX, LENGTH, SPACY])
        starts = arrays[:, 0].astype(numpy.int64)
        pairs = starts[chosen[pair[chosen]]].tolist()
        singles = starts[chosen[~pair[chosen]]].tolist()
        text = doc_text(reference, orth, arrays[:, 2].astype(bool))
        chars = list(text)
        for start, word in zip(pairs, self.draw(len(pairs))):
            chars[start : start + 2] = word
        if singles:
            for start, char in zip(singles, self.draw_chars(len(singles))):
                chars[start] = char
        new_text = "".join(chars)
        predicted = _respell(eg.predicted, new_text)
        predicted.user_data[SOURCE_TEXT_KEY] = eg.predicted.user_data.get(SOURCE_TEXT_KEY, text)
        return predicted, new_text, arrays


def _sorted_orths(words: Iterable[str]) -> numpy.ndarray:
    return numpy.unique(numpy.fromiter((get_string_id(w) for w in words), dtype=numpy.uint64))


def _member(orth: numpy.ndarray, sorted_orths: numpy.ndarray) -> numpy.ndarray:
    """Which of `orth` are in `sorted_orths` (bool, one binary search per token)."""
    if not len(sorted_orths) or not len(orth):
        return numpy.zeros(len(orth), dtype=bool)
    at = numpy.minimum(numpy.searchsorted(sorted_orths, orth), len(sorted_orths) - 1)
    return sorted_orths[at] == orth


def _respell(doc: Doc, text: str, vocab: Optional[Vocab] = None, arrays: Optional[numpy.ndarray] = None) -> Doc:
    """A doc with the same tokens and spaces as `doc` over a text of the same length (in
    `vocab`, default the doc's); `arrays`: the doc's IDX, LENGTH and SPACY columns, if read."""
    if arrays is None:
        arrays = doc.to_array([IDX, LENGTH, SPACY])
    ends = (arrays[:, 0] + arrays[:, 1]).tolist()
    words = [text[a:b] for a, b in zip(arrays[:, 0].tolist(), ends)]
    return Doc(vocab if vocab is not None else doc.vocab, words=words, spaces=arrays[:, 2].astype(bool).tolist())
