"""The model's state, kept in thinc attrs under the names below so that it is
saved with the model: the training words and their counts (dictionary
features), the blocks of block leave-out, the n-gram vocabulary (serialized
through thinc's `serialize_attr`), the output kind and the vectors' rows."""
from itertools import islice
from typing import Any, Iterable, List, Optional, Sequence

import numpy
from spacy.tokens import Doc
from thinc.api import Model, deserialize_attr, serialize_attr

from spacy_gdcws.data.doc_arrays import DocBatch
from spacy_gdcws.data.features import (
    LexiconIndex,
    NgramVocab,
    ngram_keys,
    source_text,
)
from spacy_gdcws.data.normalize import CharNormalizer, get_normalizer
from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.shims import torch_shims

# Gaps that the model never scores (next to a line break) get this logit:
# they are boundaries by construction.
FORCED_BOUNDARY_LOGIT = 30.0
LEXICON_ATTR = "lexicon"
GENERAL_LEXICON_ATTR = "general_lexicon_words"
LEXICON_COUNTS_ATTR = "lexicon_counts"
HOLDOUT_FOLDS_ATTR = "holdout_blocks"
# set by spacy_gdcws.ml.precision: the model is int8 and predicts only
QUANTIZED_ATTR = "quantized"
NGRAM_VOCAB_ATTR = "ngram_vocab"
# set by `record_ngram_vocab`: the vocabulary was recorded (it may be empty: one training
# sentence with leave-one-out knows no n-gram), so an empty one is not an uninitialized model
NGRAM_VOCAB_RECORDED_ATTR = "ngram_vocab_recorded"
# the embedding's character normalization spec (`data.normalize`; "" = none)
NORMALIZE_ATTR = "normalize"
# its map of characters (`data.normalize.CharNormalizer`), saved with the model so that a saved
# model reads the characters it was trained on whatever OpenCC is installed (models saved
# before it was kept build it from their spec)
NORMALIZER_ATTR = "normalizer"
# set on spacy_gdcws.GDEnsemble.v1 models (spacy_gdcws.ml.ensemble): they predict only
ENSEMBLE_ATTR = "ensemble"
# what the model's arrays hold: "gaps" (gap logits) or "tags" (CRF potentials)
OUTPUT_ATTR = "output"
# padding positions between two windows packed into one row in training (0: a row each; `features.pack_windows`)
PACK_GAP_ATTR = "pack_gap"


def _saved_as_bytes(cls: Any) -> None:
    """Save model attrs of type `cls` with the model (msgpack can't): thinc's `serialize_attr`
    and `deserialize_attr` through the class's `to_bytes` and `from_bytes`."""
    serialize_attr.register(cls)(lambda _, value, name, model: value.to_bytes())
    deserialize_attr.register(cls)(lambda _, value, name, model: cls.from_bytes(value))


# the n-gram vocabulary and the character map a model was trained with travel with it
for _cls in (CharNormalizer, NgramVocab):
    _saved_as_bytes(_cls)


def record_ngram_vocab(model: Model, docs: Iterable[Doc], chunk: int = 1000) -> None:
    """Record the characters and bigrams of the training docs as the model's
    n-gram vocabulary (a no-op for a model without `ngram_vocab`). Set the
    model's `HoldoutFolds` first for block leave-out."""
    if model.attrs.get(NGRAM_VOCAB_ATTR) is None:
        return
    use_bigrams = model.attrs["bigrams"]
    normalizer = model_normalizer(model)
    batches, folds = [], []
    it = iter(docs)
    while True:
        part = list(islice(it, chunk))
        if not part:
            break
        # no character classes here: they only choose the UNK keys, which are never counted
        laid = DocBatch(part).arrays.normalized(normalizer)
        spans = [(s, s + n) for s, n in zip(laid.starts.tolist(), laid.lengths.tolist())]
        batches.append(ngram_keys([laid.arrays.orth[a:b] for a, b in spans], [laid.arrays.breaks[a:b] for a, b in spans],
                                  use_bigrams))
        folds.append(doc_folds(model, part))
    model.attrs[NGRAM_VOCAB_ATTR] = NgramVocab.from_keys(
        batches, model.attrs["ngram_holdout"], None if model.attrs.get(HOLDOUT_FOLDS_ATTR) is None else folds
    )
    model.attrs[NGRAM_VOCAB_RECORDED_ATTR] = True


def give_lexicon(model: Model, attr: str, words: Iterable[str]) -> None:
    """Set `attr` (`LEXICON_ATTR`: the training words; `GENERAL_LEXICON_ATTR`: the
    general lexicon) on each model node that reads it (the model, or each member of
    an ensemble) to the words as that node reads them (its character
    normalization), so that its dictionary features match."""
    words = list(words)
    for node in model.walk():
        reads = LEXICON_ATTR in node.attrs if attr == LEXICON_ATTR else node.attrs.get("general_lexicon")
        if reads:
            node.attrs[attr] = frozenset(_normalized_words(node_normalizer(node), words))


def _normalized_words(normalizer: CharNormalizer, words: List[str]) -> List[str]:
    """The words normalized, in one pass over them joined by line breaks (the normalization
    keeps lengths and whitespace, so the parts are the words; word by word if one has a break)."""
    if not words or not normalizer:  # no words: nothing to build a lazy map for
        return words
    parts = normalizer.text("\n".join(words)).split("\n")
    return parts if len(parts) == len(words) else [normalizer.text(w) for w in words]


def uses_general_lexicon(model: Model) -> bool:
    """Whether a node of the model reads a general lexicon (`CharEmbed.v2 general_lexicon`)."""
    return any(node.attrs.get("general_lexicon") for node in model.walk())


def node_normalizer(node: Model) -> CharNormalizer:
    """The `CharNormalizer` a model node reads its characters with: the one saved with it,
    or the one of its spec (the identity for a node without one)."""
    normalizer = node.attrs.get(NORMALIZER_ATTR)
    return normalizer if normalizer is not None else get_normalizer(node.attrs.get(NORMALIZE_ATTR))


def model_normalizer(model: Model) -> CharNormalizer:
    """The `CharNormalizer` of a model's embedding (the identity for models without one)."""
    for node in model.walk():
        if node.attrs.get(NORMALIZE_ATTR):
            return node_normalizer(node)
    return get_normalizer("")


def doc_folds(model: Model, docs: Sequence[Doc], texts: Optional[Sequence[str]] = None) -> numpy.ndarray:
    """Each doc's training block for block leave-out (-1: none, or no blocks).
    `texts`: the docs' texts if already read (else `doc.text`)."""
    folds = model.attrs.get(HOLDOUT_FOLDS_ATTR)
    if folds is None:
        return numpy.full(len(docs), -1, dtype=numpy.int64)
    if texts is None:
        texts = [None] * len(docs)
    return numpy.asarray([folds.fold(source_text(doc, text)) for doc, text in zip(docs, texts)], dtype=numpy.int64)



LEXICON_INDEX_ATTR = "lexicon_index"


def lexicon_index(model: Model, lexicon: Any, max_len: int, which: str = LEXICON_ATTR) -> LexiconIndex:
    """The model's `LexiconIndex` of `lexicon` (`which`: the training words or the general
    lexicon), built again only when the dictionary changes (not serialized: thinc skips
    attrs msgpack cannot write)."""
    key = f"{LEXICON_INDEX_ATTR}:{which}"
    cached = model.attrs.get(key)
    if cached is None or cached[0] is not lexicon:
        cached = model.attrs[key] = (lexicon, LexiconIndex(lexicon, max_len))
    return cached[1]


def vector_rows(vocab: Any, orths: numpy.ndarray) -> numpy.ndarray:
    """Rows of `vocab.vectors` for each token (-1: no vector)."""
    vectors = vocab.vectors
    if vectors.mode != "default":
        raise ValueError(Errors.E042.format(mode=vectors.mode))
    if not len(orths):
        return numpy.zeros(0, dtype=numpy.int64)
    return numpy.asarray(vectors.find(keys=numpy.asarray(orths, dtype=numpy.uint64)), dtype=numpy.int64).reshape(-1)


def output_kind(model: Model) -> str:
    """What a segmentation model's arrays hold: "gaps" or "tags" (the first
    node that says; an ensemble's members all say the same)."""
    for node in model.walk():
        if OUTPUT_ATTR in node.attrs:
            return node.attrs[OUTPUT_ATTR]
    return "gaps"


def set_model_vectors(model: Model, vocab: Any) -> None:
    """Copy `vocab.vectors` into the embedding of every node that uses
    pretrained vectors (E043 if the vocab has none)."""
    for node in model.walk():
        if not node.attrs.get("vectors"):
            continue
        import torch

        net = torch_shims(node)[0].net
        table = vocab.vectors
        if table.mode != "default":
            raise ValueError(Errors.E042.format(mode=table.mode))
        if not table.shape[0]:
            raise ValueError(Errors.E043.format(width=net.embed.vectors_width))
        net.embed.set_vectors(torch.from_numpy(numpy.asarray(table.data, dtype="f")))
