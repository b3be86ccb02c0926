"""What `initialize` reads off the training data in one pass: the words and
their counts, where each word first and last occurs (for block leave-out), the
texts, and the counts of the three decoding priors."""
import warnings
from collections import Counter
from typing import Callable, Dict, Iterable, List, Optional

import numpy
from spacy.training import Example

from spacy_gdcws.data.normalize import CharNormalizer, get_normalizer
from spacy_gdcws.decoding.priors import PairTally, TagTally, transition_counts
from spacy_gdcws.errors import Warnings
from spacy_gdcws.pipeline.loss import gold_gaps
from spacy_gdcws.pipeline.words import check_char_tokens, forced_boundaries


def has_known_spaces(eg: Example) -> bool:
    """False (with W001) for a reference doc with unknown spaces: spaCy would
    feed its gold words instead of characters."""
    if eg.reference.has_unknown_spaces:
        warnings.warn(Warnings.W001, stacklevel=3)
        return False
    return True


class DecodingCounts:
    """The counts of the three decoding priors (gap-label transitions,
    characters' tags, character pairs' boundaries) over gold examples added
    one at a time."""

    def __init__(self, normalizer: Optional[CharNormalizer] = None) -> None:
        self.normalize = (normalizer or get_normalizer("")).text
        self.transitions = numpy.zeros((2, 2))
        self.tags = TagTally()
        self.pairs = PairTally()

    def add(self, eg: Example) -> None:
        gaps = gold_gaps(eg)
        self.transitions += transition_counts([gaps])
        doc = eg.predicted
        forced = forced_boundaries(doc) if len(doc) > 1 else numpy.zeros(0, dtype=bool)
        tokens = [self.normalize(t.text) for t in doc]
        self.tags.add(tokens, gaps[0], gaps[1], forced)
        self.pairs.add(tokens, gaps[0], gaps[1])

    @classmethod
    def of(cls, examples: Iterable[Example], normalizer: Optional[CharNormalizer] = None) -> "DecodingCounts":
        """The counts of the examples with known spaces (characters normalized by `normalizer`)."""
        counts = cls(normalizer)
        for eg in examples:
            if has_known_spaces(eg):
                counts.add(eg)
        return counts


class TrainingData:
    """One pass over the training examples (known spaces only; E014 on a doc
    that is not in characters).

    counts: the words as written (the scorer's OOV dictionary). norm_counts,
    first, last: the words as the model reads them (`normalizer`), for the
    dictionary features and block leave-out. texts: the texts as written.
    """

    def __init__(self, get_examples: Callable[[], Iterable[Example]],
                 normalizer: Optional[CharNormalizer] = None) -> None:
        normalize = (normalizer or get_normalizer("")).text
        self.counts: Counter = Counter()
        self.norm_counts: Counter = Counter()
        # first and last example of each (normalized) word, for block leave-out
        self.first: Dict[str, int] = {}
        self.last: Dict[str, int] = {}
        self.texts: List[str] = []
        self.decoding = DecodingCounts(normalizer)
        for eg in get_examples():
            if not has_known_spaces(eg):
                continue
            check_char_tokens(eg.predicted)
            self.decoding.add(eg)
            words = [t.text for t in eg.reference if not t.is_space]
            self.counts.update(words)
            words = [normalize(w) for w in words]
            self.norm_counts.update(words)
            for word in words:
                self.first.setdefault(word, len(self.texts))
                self.last[word] = len(self.texts)
            self.texts.append(eg.predicted.text)
