"""The featurize layer of a segmentation model: a batch of character docs laid end to end
(`data.doc_arrays`) and hashed into one `BatchFeatures` (`data.features`): characters and
bigrams (with the n-gram vocabulary's UNKs), dictionary features and pretrained vectors' rows.

Its attrs: `settings` (the embedding's featurization settings, `feature_settings`) and
`resources` (`ml.resources.FeatureResources`: the word lists, counts, blocks, n-gram vocabulary
and character map the segmenter gives it). The segmenter writes `resources` through
`ml.resources` (`give_words`, `give_training_state`, `record_ngram_vocab`) and reads `settings`
there and in `pipeline.counts` (what training needs); nothing writes `settings` after the build.
"""
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

import numpy
from spacy.tokens import Doc
from thinc.api import Model

from spacy_gdcws.data.doc_arrays import DocBatch
from spacy_gdcws.data.features import (
    BatchFeatures,
    char_classes_from_codes,
    doc_features,
    flat_ngram_keys,
    lexicon_features,
)
from spacy_gdcws.data.normalize import check_spec
from spacy_gdcws.data.ragged import interleaved
from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.resources import (
    GENERAL_WORDS,
    RESOURCES,
    SETTINGS,
    TRAINING_WORDS,
    FeatureResources,
)


def feature_settings(*, char_rows: int, char_seeds: int, bigrams: bool, bigram_rows: int, lexicon_max_len: int,
                     lexicon_holdout: bool, ngram_vocab: bool, ngram_holdout: bool, ngram_dropout: float,
                     holdout_folds: int, vectors: bool = False, normalize: str = "",
                     general_lexicon: bool = False) -> Dict[str, Any]:
    """The featurization settings of an embedding (checked), as the featurize layer keeps them."""
    if (ngram_holdout or ngram_dropout) and not ngram_vocab:
        raise ValueError(Errors.E027)
    if not 0.0 <= ngram_dropout < 1.0:
        raise ValueError(Errors.E053.format(rate=ngram_dropout))
    if holdout_folds < 0 or holdout_folds == 1:
        raise ValueError(Errors.E029.format(value=holdout_folds))
    check_spec(normalize)  # E086 for an unknown step, when the model is built (no table is built)
    if general_lexicon and not lexicon_max_len:
        raise ValueError(Errors.E090)
    return {
        "char_rows": char_rows, "char_seeds": char_seeds, "bigrams": bigrams, "bigram_rows": bigram_rows,
        "lexicon_max_len": lexicon_max_len, "lexicon_holdout": lexicon_holdout, "ngram_vocab": ngram_vocab,
        "ngram_holdout": ngram_holdout, "ngram_dropout": ngram_dropout, "holdout_folds": holdout_folds,
        "vectors": vectors, "normalize": normalize, "general_lexicon": general_lexicon,
    }


@dataclass
class Featurized:
    """A batch's features (`BatchFeatures`: each doc a slice of the flat arrays), the line breaks
    of its tokens (where units end) and whether the model reads bigrams."""

    feats: BatchFeatures
    breaks: numpy.ndarray
    bigrams: bool


def featurize_layer(settings: Dict[str, Any]) -> Model[List[Doc], Optional[Featurized]]:
    """The featurize layer of an embedding with these settings (`feature_settings`) and empty
    resources (`FeatureResources.for_settings`). Outputs None for an empty batch."""
    return Model("featurize", forward,
                 attrs={SETTINGS: dict(settings), RESOURCES: FeatureResources.for_settings(settings)})


def forward(model: Model[List[Doc], Optional[Featurized]], docs: List[Doc], is_train: bool):
    """Hash the docs' characters and bigrams, add the dictionary features and vectors' rows.
    Everything runs on the batch's concatenated tokens (`DocBatch.arrays`: read once for a
    `DocBatch`, which the segmenter passes). No gradient flows back to the docs."""
    settings, resources = model.attrs[SETTINGS], model.attrs[RESOURCES]
    vocab = resources.ngram_vocab
    if vocab is not None and not len(vocab) and not resources.ngram_vocab_recorded:
        raise ValueError(Errors.E028)
    if not docs:
        return None, lambda _: docs
    use_bigrams = settings["bigrams"]
    # the docs laid end to end, a line-break token between neighbours (`doc_arrays.BatchArrays`)
    raw = DocBatch.of(docs).arrays
    laid = raw.normalized(resources.normalizer)
    tokens = laid.arrays
    max_len = settings["lexicon_max_len"]
    folds = resources.doc_folds(docs, raw.texts) if is_train else numpy.full(len(docs), -1, dtype=numpy.int64)
    classes = None if vocab is None else char_classes_from_codes(tokens.first, tokens.is_space)
    keys = flat_ngram_keys(tokens.orth, tokens.breaks, use_bigrams, classes, laid.starts, laid.lengths,
                           ~laid.separators)
    feats = doc_features(
        keys, settings["char_rows"], settings["char_seeds"], settings["bigram_rows"], use_bigrams,
        ngram_vocab=vocab, holdout=is_train and settings["ngram_holdout"],
        ngram_dropout=settings["ngram_dropout"] if is_train else 0.0, doc_folds=folds,
    )
    if max_len:
        feats.lexicon = _lexicon_features(settings, resources, laid, tokens, folds, is_train)
    if settings.get("vectors"):
        feats.vectors = vector_rows(docs[0].vocab, tokens.orth)  # a separator's ORTH 0 has no row
    return Featurized(feats, tokens.breaks, use_bigrams), lambda _: docs


def _lexicon_features(settings: Dict[str, Any], resources: FeatureResources, laid: Any, tokens: Any,
                      folds: numpy.ndarray, is_train: bool) -> numpy.ndarray:
    """The dictionary features of the training words (with leave-one-out in training where the
    settings say so) and, where the model reads one, of the general word list."""
    max_len = settings["lexicon_max_len"]
    lexicon = resources.lexicon
    if lexicon is None:
        raise ValueError(Errors.E026)
    if is_train and settings["lexicon_holdout"]:
        # leave-one-out needs each word's counts in the doc's text: by string
        width = 2 * (max_len - 1)
        per_doc = [lexicon_features(laid.token_texts(k), lexicon, max_len, resources.lexicon_counts, int(fold))
                   for k, fold in enumerate(folds.tolist())]
        features = numpy.concatenate(interleaved(per_doc, numpy.zeros((1, width), dtype=numpy.float32)))
    else:
        # the separators' code matches no word, so no word spans two docs
        features = resources.lexicon_index(TRAINING_WORDS, max_len).features(tokens.codes)
    if settings.get("general_lexicon"):
        if resources.general_lexicon is None:
            raise ValueError(Errors.E091)
        general = resources.lexicon_index(GENERAL_WORDS, max_len).features(tokens.codes)
        features = numpy.concatenate([features, general], axis=1)
    return features


def vector_rows(vocab: Any, orths: numpy.ndarray) -> numpy.ndarray:
    """Rows of `vocab.vectors` for each token (-1: no vector)."""
    vectors = vocab.vectors
    if vectors.mode != "default":
        raise ValueError(Errors.E042.format(mode=vectors.mode))
    if not len(orths):
        return numpy.zeros(0, dtype=numpy.int64)
    return numpy.asarray(vectors.find(keys=numpy.asarray(orths, dtype=numpy.uint64)), dtype=numpy.int64).reshape(-1)
