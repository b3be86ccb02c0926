"""The data path around the torch module: a batch of character docs laid end to
end (`doc_arrays`), their features (`data.features`), units cut at line
breaks and long units cut into windows, one forward per batch of windows, and
each gap's scores taken from the window where it is most central."""
from typing import Any, Dict, List, Sequence

import numpy
from spacy.tokens import Doc
from thinc.api import Model
from thinc.types import Floats2d

from spacy_gdcws.data.bmes import TAG_COLUMNS
from spacy_gdcws.data.doc_arrays import DocBatch
from spacy_gdcws.data.features import (
    NgramVocab,
    Placement,
    batch_windows,
    char_classes_from_codes,
    doc_features,
    featurize,
    flat_ngram_keys,
    lexicon_features,
    pack_windows,
    plan_windows,
)
from spacy_gdcws.data.normalize import check_spec, get_normalizer
from spacy_gdcws.data.ragged import interleaved
from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.state import (
    FORCED_BOUNDARY_LOGIT,
    GENERAL_LEXICON_ATTR,
    HOLDOUT_FOLDS_ATTR,
    LEXICON_ATTR,
    LEXICON_COUNTS_ATTR,
    NGRAM_VOCAB_ATTR,
    NGRAM_VOCAB_RECORDED_ATTR,
    NORMALIZE_ATTR,
    NORMALIZER_ATTR,
    OUTPUT_ATTR,
    PACK_GAP_ATTR,
    doc_folds,
    lexicon_index,
    node_normalizer,
    vector_rows,
)
from spacy_gdcws.ml.wrapper import convert_inputs, wrap_torch


def feature_settings(*, char_rows: int, char_seeds: int, bigrams: bool, bigram_rows: int, lexicon_max_len: int,
                     lexicon_holdout: bool, ngram_vocab: bool, ngram_holdout: bool, ngram_dropout: float,
                     holdout_folds: int, vectors: bool = False, normalize: str = "",
                     general_lexicon: bool = False) -> Dict[str, Any]:
    """The featurization settings of an embedding (checked), as the thinc model keeps them in its attrs."""
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
        "vectors": vectors, NORMALIZE_ATTR: normalize,
        NORMALIZER_ATTR: get_normalizer(normalize), "general_lexicon": general_lexicon,
    }


def wrap_segmentation_net(net: Any, *, window: int, batch_chars: int, mixed_precision: bool,
                          name: str = "char_segmenter") -> Model[List[Doc], List[Floats2d]]:
    """Wrap a `nn.SegmentationNet` for thinc: docs in, one score array per doc out.

    The net's embedding carries its featurization settings (`feature_settings`);
    its head's `kind` says what the arrays hold: "gaps" (len(doc) - 1 rows of
    gap logits) or "tags" (len(doc) rows of CRF potentials, `data.bmes`).
    """
    if window < 2:
        raise ValueError(Errors.E011.format(window=window))
    features = dict(net.embed.features)
    if not features:
        raise ValueError(Errors.E041)
    torch_layer = wrap_torch(net, convert_inputs, mixed_precision)
    kind = net.kind
    # several windows to a row where the encoder's reach allows it (`features.pack_windows`)
    pack_gap = 0 if getattr(net.embed, "positions", False) else int(getattr(net.encoder, "pack_gap", 0) or 0)
    n_aux = int(getattr(net.encoder, "has_aux", False))
    n_scores = 1 + n_aux if kind == "gaps" else TAG_COLUMNS + n_aux
    return Model(
        name,
        forward,
        layers=[torch_layer],
        attrs={
            "window": window,
            "batch_chars": batch_chars,
            # "gaps" or "tags", and the columns of each row
            OUTPUT_ATTR: kind,
            "n_scores": n_scores,
            PACK_GAP_ATTR: pack_gap,
            **{key: value for key, value in features.items() if key != "ngram_vocab"},
            # the dictionary itself (a frozenset, set by the segmenter from its
            # training words; not serialized here: the segmenter saves words.txt)
            LEXICON_ATTR: None,
            # the general word list (a frozenset, set by the segmenter; saved as general_lexicon.txt)
            GENERAL_LEXICON_ATTR: None,
            # training frequencies for lexicon_holdout, a features.WordCounts (set
            # by the segmenter's initialize; deliberately not msgpack-serializable)
            LEXICON_COUNTS_ATTR: None,
            # an empty NgramVocab until the segmenter's initialize records one
            NGRAM_VOCAB_ATTR: NgramVocab.empty() if features["ngram_vocab"] else None,
            # saved with the model; pipelines saved before it have a non-empty vocabulary
            NGRAM_VOCAB_RECORDED_ATTR: False,
            # the training docs' blocks, a features.HoldoutFolds (set by the
            # segmenter's initialize when holdout_folds >= 2; training only)
            HOLDOUT_FOLDS_ATTR: None,
        },
    )


def forward(model: Model[List[Doc], List[Floats2d]], docs: List[Doc], is_train: bool):
    """Hash the docs, cut them into units and windows, score length-sorted
    padded batches, and put each gap's (or character's) scores back into its
    doc's array. Everything runs on the batch's concatenated tokens
    (`DocBatch.arrays`: read once for a `DocBatch`, which the segmenter passes)."""
    torch_layer = model.layers[0]
    n_scores = model.attrs["n_scores"]
    tags = model.attrs.get(OUTPUT_ATTR, "gaps") == "tags"
    use_bigrams = model.attrs["bigrams"]
    vocab = model.attrs[NGRAM_VOCAB_ATTR]
    if vocab is not None and not len(vocab) and not model.attrs.get(NGRAM_VOCAB_RECORDED_ATTR):
        raise ValueError(Errors.E028)
    if not docs:
        return [], lambda d_outputs: docs
    # the docs laid end to end, a line-break token between neighbours (`doc_arrays.BatchArrays`)
    normalizer = node_normalizer(model)
    raw = DocBatch.of(docs).arrays
    laid = raw.normalized(normalizer)
    tokens = laid.arrays
    real = ~laid.separators
    max_len = model.attrs["lexicon_max_len"]
    folds = doc_folds(model, docs, raw.texts) if is_train else numpy.full(len(docs), -1, dtype=numpy.int64)
    classes = None if vocab is None else char_classes_from_codes(tokens.first, tokens.is_space)
    keys = flat_ngram_keys(tokens.orth, tokens.breaks, use_bigrams, classes, laid.starts, laid.lengths, real)
    feats = doc_features(
        keys, model.attrs["char_rows"], model.attrs["char_seeds"], model.attrs["bigram_rows"], use_bigrams,
        ngram_vocab=vocab, holdout=is_train and model.attrs["ngram_holdout"],
        ngram_dropout=model.attrs["ngram_dropout"] if is_train else 0.0, doc_folds=folds,
    )
    if max_len:
        lexicon = model.attrs[LEXICON_ATTR]
        if lexicon is None:
            raise ValueError(Errors.E026)
        if is_train and model.attrs["lexicon_holdout"]:
            # leave-one-out needs each word's counts in the doc's text: by string
            holdout = model.attrs[LEXICON_COUNTS_ATTR]
            width = 2 * (max_len - 1)
            per_doc = [lexicon_features(laid.token_texts(k), lexicon, max_len, holdout, int(fold))
                       for k, fold in enumerate(folds.tolist())]
            feats.lexicon = numpy.concatenate(interleaved(per_doc, numpy.zeros((1, width), dtype=numpy.float32)))
        else:
            # the separators' code matches no word, so no word spans two docs
            feats.lexicon = lexicon_index(model, lexicon, max_len).features(tokens.codes)
        if model.attrs.get("general_lexicon"):
            general = model.attrs.get(GENERAL_LEXICON_ATTR)
            if general is None:
                raise ValueError(Errors.E091)
            general_features = lexicon_index(model, general, max_len, GENERAL_LEXICON_ATTR).features(tokens.codes)
            feats.lexicon = numpy.concatenate([feats.lexicon, general_features], axis=1)
    if model.attrs.get("vectors"):
        feats.vectors = vector_rows(docs[0].vocab, tokens.orth)  # a separator's ORTH 0 has no row
    n_tokens = len(tokens)
    if tags:
        # characters the model does not score (whitespace, one-character lines) get
        # flat potentials: the gaps around them are boundaries anyway
        flat = numpy.zeros((n_tokens, n_scores), dtype="f")
    else:
        # row g: the gap after token g (a doc's last token has none: never read)
        flat = numpy.full((n_tokens, n_scores), FORCED_BOUNDARY_LOGIT, dtype="f")
    windows = plan_windows(tokens.breaks, feats.offsets, feats.lengths, model.attrs["window"])
    callbacks = []
    # training packs several windows into a row (same outputs, less padding); prediction keeps a row each
    gap = model.attrs.get(PACK_GAP_ATTR, 0) if is_train else 0
    for rows in batch_windows(windows, model.attrs["batch_chars"]):
        batch = windows.take(rows)
        placement = pack_windows(batch, gap) if gap else Placement.single(batch)
        Y, backprop = torch_layer(featurize(batch, feats, use_bigrams, placement), is_train)
        window, column, position = batch.kept(tags)
        row, column = placement.row[window], placement.offset[window] + column
        flat[position] = Y[row, column]
        callbacks.append((Y.shape, (row, column, position), backprop))
    sizes = feats.lengths if tags else numpy.maximum(feats.lengths - 1, 0)
    outputs = [flat[o : o + n] for o, n in zip(feats.offsets.tolist(), sizes.tolist())]

    def backprop(d_outputs: Sequence[Floats2d]) -> List[Doc]:
        d_flat = numpy.zeros_like(flat)
        for o, n, d in zip(feats.offsets.tolist(), sizes.tolist(), d_outputs):
            d_flat[o : o + n] = model.ops.to_numpy(d)
        for shape, (row, column, position), batch_backprop in callbacks:
            dY = numpy.zeros(shape, dtype="f")
            dY[row, column] = d_flat[position]
            batch_backprop(dY)
        return docs

    return outputs, backprop
