"""What `initialize` reads off the training data in one pass: the words and
their counts, where each word first and last occurs (for block leave-out), the
texts, and the counts of the three decoding priors."""
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

import numpy
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Model

from spacy_gdcws.data.features import HoldoutFolds, WordCounts, source_text
from spacy_gdcws.data.normalize import CharNormalizer, get_normalizer
from spacy_gdcws.decoding.decoder import Decoder
from spacy_gdcws.decoding.priors import PairTally, TagTally, tag_pmi, transition_counts
from spacy_gdcws.errors import Errors, Warnings
from spacy_gdcws.ml.resources import SETTINGS, feature_layers, give_training_state
from spacy_gdcws.pipeline.loss import gold_gaps
from spacy_gdcws.pipeline.words import check_char_tokens, forced_boundaries
from spacy_gdcws.training.augment import PseudoWords


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
        self.normalize = (normalizer if normalizer is not None else get_normalizer("")).text
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


@dataclass
class Blocks:
    """Block leave-out over the training texts (`TrainingData.blocks`).

    folds: each text's block. local: each (normalized) word whose first and last
    occurrence lie in one block, with that block (training hides it from that
    block's docs). tag_counts: the characters' tag counts without each block.
    """

    folds: HoldoutFolds
    local: Dict[str, int]
    tag_counts: List[Dict[str, List[float]]]


class HeldOutPriors:
    """The tag prior of each block of the training data counted without the block
    (`held_out_priors`): called with a training doc, its block's (None for a doc of
    no block)."""

    def __init__(self, blocks: Blocks) -> None:
        self.folds = blocks.folds
        self.priors = [tag_pmi(counts) for counts in blocks.tag_counts]

    def __call__(self, doc: Doc) -> Optional[Tuple[Dict[str, int], numpy.ndarray]]:
        block = self.folds.fold(source_text(doc))
        return self.priors[block] if block >= 0 else None


class TrainingData:
    """One pass over the training examples (known spaces only; E014 on a doc
    that is not in characters).

    counts: the words as written (the scorer's OOV dictionary). norm_counts,
    first, last: the words as the model reads them (`normalizer`), for the
    dictionary features and block leave-out. texts: the texts as written.
    """

    def __init__(self, get_examples: Callable[[], Iterable[Example]],
                 normalizer: Optional[CharNormalizer] = None) -> None:
        normalize = (normalizer if normalizer is not None else get_normalizer("")).text
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

    @classmethod
    def read(cls, get_examples: Callable[[], Iterable[Example]],
             normalizer: Optional[CharNormalizer] = None) -> "TrainingData":
        """The training data, E019 if it holds no text with known spaces."""
        data = cls(get_examples, normalizer)
        if not data.texts:
            raise ValueError(Errors.E019)
        return data

    def blocks(self, k: int) -> Optional[Blocks]:
        """Block leave-out over `k` contiguous blocks of the texts (None unless k >= 2)."""
        if k < 2:
            return None
        n = len(self.texts)

        def block(i: int) -> int:
            return HoldoutFolds.block_of_index(i, n, k)

        local = {w: block(i) for w, i in self.first.items() if block(i) == block(self.last[w])}
        return Blocks(HoldoutFolds.from_texts(self.texts, k), local,
                      self.decoding.tags.held_out([block(i) for i in range(n)], k))


def store_decoding_counts(cfg: Dict[str, Any], decoder: Decoder, decoding: DecodingCounts) -> None:
    """Keep the priors' counts with a segmenter: in its `cfg` (transitions, tags) and, saved in a
    file of its own, its `decoder`'s `pair_counts`."""
    cfg["transitions"] = decoding.transitions.tolist()
    cfg["tags"] = dict(sorted(decoding.tags.counts().items()))
    decoder.pair_counts = decoding.pairs.counts()


def training_state(data: TrainingData, model: Model, augment: bool,
                   held_out_priors: bool) -> Tuple[Optional[PseudoWords], Optional[HeldOutPriors]]:
    """What a segmenter needs to train and does not save, from one pass over its training data: the
    pseudo-words' sources (where it respells words or characters: `augment`) and, per block of the
    data, the tag prior counted without it (where `held_out_priors` and the model holds blocks out).
    Gives the `model`'s featurize layers their block leave-out folds and the words' counts for
    leave-one-out on the way.
    RETURNS (Tuple[Optional[PseudoWords], Optional[HeldOutPriors]]): None where off."""
    pseudo = PseudoWords.from_counts(data.counts) if augment else None
    layers = feature_layers(model)
    blocks = data.blocks(layers[0].attrs[SETTINGS].get("holdout_folds", 0) if layers else 0)
    priors = HeldOutPriors(blocks) if blocks is not None and held_out_priors else None
    give_training_state(model, None if blocks is None else blocks.folds,
                        WordCounts(data.norm_counts, blocks.local if blocks else {}))
    return pseudo, priors


def needs_training_state(model: Model, augment: bool) -> bool:
    """Whether a segmenter of `model` (that respells words or characters: `augment`) trains with
    state that only `initialize` or `continue_training` builds: leave-one-out counts, training
    blocks, pseudo-words' sources or held-out priors."""
    if augment:
        return True
    for node in feature_layers(model):
        settings = node.attrs[SETTINGS]
        if (settings["lexicon_max_len"] and settings["lexicon_holdout"]) or settings.get("holdout_folds", 0) >= 2:
            return True
    return False


def check_training_state(name: str, model: Model, augment: bool) -> None:
    """E128 for the segmenter `name` that would train without the state a loaded one lacks (a
    sourced `model-last` in a config without `spacy_gdcws.continue_training.v1`)."""
    if needs_training_state(model, augment):
        raise ValueError(Errors.E128.format(name=name))
