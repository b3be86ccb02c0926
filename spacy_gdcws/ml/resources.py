"""What the segmenter gives its model, in one typed object: `FeatureResources`.

A segmentation model's featurize layer (`ml.featurize`) reads, besides its settings, data that
the `gdcws_segmenter` records in `initialize` or loads with the pipeline: the training words and
a general word list (dictionary features), the words' counts and the training blocks
(leave-one-out and block leave-out, training only), the n-gram vocabulary and the character
map. They live in one `FeatureResources` per featurize layer (an ensemble has one per member:
each member reads its own characters), reached with `feature_resources(model)`; the component
hands them over through these functions, never through loose model attrs.

Saving: the n-gram vocabulary and the character map are the model's own (learned with it, and
an ensemble's members each carry theirs), so they travel with the model's bytes as the layer's
`resources` attr (thinc's `serialize_attr`, registered below); the word lists are saved by
`pipeline.serialize` (`words.txt`, `general_lexicon.txt`) and given back on load; the counts and
blocks are rebuilt by `initialize` or `continue_training` and never saved.
"""
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

import numpy
import srsly
from spacy.tokens import Doc
from thinc.api import Model, deserialize_attr, serialize_attr

from spacy_gdcws.data.doc_arrays import DocBatch
from spacy_gdcws.data.features import (
    HoldoutFolds,
    LexiconIndex,
    NgramVocab,
    WordCounts,
    ngram_keys,
    source_text,
)
from spacy_gdcws.data.normalize import CharNormalizer, get_normalizer

# the featurize layer's attrs: its settings (a dict, `ml.featurize.feature_settings`) and its resources
SETTINGS = "settings"
RESOURCES = "resources"
# which word list: the training words, or the general lexicon (`CharEmbed.v2 general_lexicon`)
TRAINING_WORDS = "training"
GENERAL_WORDS = "general"


@dataclass(eq=False)
class FeatureResources:
    """The data one featurize layer reads besides its settings.

    normalizer: the character map of the model's `normalize` spec (saved with the model, so that a
        saved model reads the characters it was trained on whatever OpenCC is installed).
    ngram_vocab: the characters and bigrams seen in training (None: the model has no n-gram
        vocabulary); `ngram_vocab_recorded`: it was recorded (one training sentence with
        leave-one-out knows no n-gram, so an empty one is not an uninitialized model).
    lexicon, general_lexicon: the training words and the general word list, normalized as the
        layer reads them (None until the segmenter gives them).
    lexicon_counts, holdout_folds: the training words' counts (leave-one-out) and the training
        texts' blocks (block leave-out); training only, not saved.
    """

    normalizer: CharNormalizer
    ngram_vocab: Optional[NgramVocab] = None
    ngram_vocab_recorded: bool = False
    lexicon: Optional[FrozenSet[str]] = None
    general_lexicon: Optional[FrozenSet[str]] = None
    lexicon_counts: Optional[WordCounts] = None
    holdout_folds: Optional[HoldoutFolds] = None
    _indexes: Dict[str, Tuple[Any, LexiconIndex]] = field(default_factory=dict, repr=False)

    @classmethod
    def for_settings(cls, settings: Dict[str, Any]) -> "FeatureResources":
        """The empty resources of a featurize layer with these settings."""
        return cls(get_normalizer(settings.get("normalize", "")),
                   NgramVocab.empty() if settings.get("ngram_vocab") else None)

    def words(self, which: str) -> Optional[FrozenSet[str]]:
        """The word list `which` (`TRAINING_WORDS` or `GENERAL_WORDS`)."""
        return self.lexicon if which == TRAINING_WORDS else self.general_lexicon

    def set_words(self, which: str, words: Iterable[str]) -> None:
        """Keep the word list `which`, normalized as this layer reads its characters."""
        normalized = frozenset(_normalized_words(self.normalizer, list(words)))
        if which == TRAINING_WORDS:
            self.lexicon = normalized
        else:
            self.general_lexicon = normalized

    def lexicon_index(self, which: str, max_len: int) -> LexiconIndex:
        """The `LexiconIndex` of the word list `which`, built again only when the list changes."""
        words = self.words(which)
        cached = self._indexes.get(which)
        if cached is None or cached[0] is not words:
            cached = self._indexes[which] = (words, LexiconIndex(words, max_len))
        return cached[1]

    def doc_folds(self, docs: Sequence[Doc], texts: Optional[Sequence[str]] = None) -> numpy.ndarray:
        """Each doc's training block for block leave-out (-1: none, or no blocks).
        `texts`: the docs' texts if already read (else `doc.text`)."""
        if self.holdout_folds is None:
            return numpy.full(len(docs), -1, dtype=numpy.int64)
        if texts is None:
            texts = [None] * len(docs)
        return numpy.asarray([self.holdout_folds.fold(source_text(doc, text)) for doc, text in zip(docs, texts)],
                             dtype=numpy.int64)

    def to_bytes(self) -> bytes:
        """The saved part: the n-gram vocabulary (and whether it was recorded) and the character map."""
        return srsly.msgpack_dumps({
            "ngram_vocab": None if self.ngram_vocab is None else self.ngram_vocab.to_bytes(),
            "ngram_vocab_recorded": self.ngram_vocab_recorded,
            "normalizer": self.normalizer.to_bytes(),
        })

    def load_bytes(self, data: bytes) -> "FeatureResources":
        """Read the saved part into these resources (the word lists and training state stay)."""
        msg = srsly.msgpack_loads(data)
        if msg.get("ngram_vocab") is not None:
            self.ngram_vocab = NgramVocab.from_bytes(msg["ngram_vocab"])
        self.ngram_vocab_recorded = bool(msg.get("ngram_vocab_recorded", False))
        if msg.get("normalizer") is not None:  # models saved before the map was kept build it from their spec
            self.normalizer = CharNormalizer.from_bytes(msg["normalizer"])
        self._indexes.clear()
        return self


@serialize_attr.register(FeatureResources)
def _serialize_resources(_: Any, value: FeatureResources, name: str, model: Model) -> bytes:
    return value.to_bytes()


@deserialize_attr.register(FeatureResources)
def _deserialize_resources(current: FeatureResources, value: bytes, name: str, model: Model) -> FeatureResources:
    # into the layer's own object: whoever holds it (the segmenter, a test) sees what was loaded
    return current.load_bytes(value)


def feature_layers(model: Model) -> List[Model]:
    """The featurize layers under `model` (one, or one per member of an ensemble)."""
    return [node for node in model.walk() if RESOURCES in node.attrs]


def feature_resources(model: Model) -> List[FeatureResources]:
    """The `FeatureResources` of each featurize layer under `model`."""
    return [node.attrs[RESOURCES] for node in feature_layers(model)]


def give_words(model: Model, which: str, words: Iterable[str]) -> None:
    """Give each featurize layer that reads the word list `which` the words, normalized as it reads
    them (`TRAINING_WORDS`: layers with dictionary features; `GENERAL_WORDS`: with a general lexicon)."""
    words = list(words)
    for node in feature_layers(model):
        settings = node.attrs[SETTINGS]
        if settings["lexicon_max_len"] if which == TRAINING_WORDS else settings.get("general_lexicon"):
            node.attrs[RESOURCES].set_words(which, words)


class ModelWords:
    """A word set of a component that its model's featurize layers read too: set on the component
    (`seg.train_words = words`), given to every layer that reads the list `which` (`give_words`).

    which (str): `TRAINING_WORDS` or `GENERAL_WORDS`.
    """

    def __init__(self, which: str) -> None:
        self.which = which

    def __set_name__(self, owner: type, name: str) -> None:
        self.attr = f"_{name}"

    def __get__(self, obj: Any, owner: type) -> Any:
        return self if obj is None else getattr(obj, self.attr)

    def __set__(self, obj: Any, words: Iterable[str]) -> None:
        kept = set(words)
        setattr(obj, self.attr, kept)
        give_words(obj.model, self.which, kept)


def give_training_state(model: Model, folds: Optional[HoldoutFolds], counts: Optional[WordCounts]) -> None:
    """Give each featurize layer the training blocks (where it holds blocks out) and the words'
    counts (where it holds words out): what training reads and a saved model does not keep."""
    for node in feature_layers(model):
        settings, resources = node.attrs[SETTINGS], node.attrs[RESOURCES]
        if folds is not None and settings.get("holdout_folds", 0) >= 2:
            resources.holdout_folds = folds
        if settings["lexicon_max_len"]:
            resources.lexicon_counts = counts


def record_ngram_vocab(model: Model, docs: Iterable[Doc], chunk: int = 1000) -> None:
    """Record the characters and bigrams of the training docs as each featurize layer's n-gram
    vocabulary (layers without one are left alone). Give the training blocks first
    (`give_training_state`) for block leave-out."""
    nodes = [node for node in feature_layers(model) if node.attrs[SETTINGS].get("ngram_vocab")]
    if not nodes:
        return
    docs = list(docs) if len(nodes) > 1 else docs
    for node in nodes:
        settings, resources = node.attrs[SETTINGS], node.attrs[RESOURCES]
        batches, folds = [], []
        it = iter(docs)
        while True:
            part = list(islice(it, chunk))
            if not part:
                break
            # no character classes here: they only choose the UNK keys, which are never counted
            laid = DocBatch(part).arrays.normalized(resources.normalizer)
            spans = [(s, s + n) for s, n in zip(laid.starts.tolist(), laid.lengths.tolist())]
            batches.append(ngram_keys([laid.arrays.orth[a:b] for a, b in spans],
                                      [laid.arrays.breaks[a:b] for a, b in spans], settings["bigrams"]))
            folds.append(resources.doc_folds(part))
        resources.ngram_vocab = NgramVocab.from_keys(
            batches, settings["ngram_holdout"], None if resources.holdout_folds is None else folds
        )
        resources.ngram_vocab_recorded = True


def model_normalizer(model: Model) -> CharNormalizer:
    """The `CharNormalizer` of a model's (first) featurize layer (the identity for models without one)."""
    for node in feature_layers(model):
        if node.attrs[SETTINGS].get("normalize"):
            return node.attrs[RESOURCES].normalizer
    return get_normalizer("")


def _normalized_words(normalizer: CharNormalizer, words: List[str]) -> List[str]:
    """The words normalized, in one pass over them joined by line breaks (the normalization
    keeps lengths and whitespace, so the parts are the words; word by word if one has a break)."""
    if not words or not normalizer:  # no words: nothing to build a lazy map for
        return words
    parts = normalizer.text("\n".join(words)).split("\n")
    return parts if len(parts) == len(words) else [normalizer.text(w) for w in words]
