"""Thinc architectures `spacy_gdcws.GDTransformer.v1/v2`: docs in, gap logits out."""
import os
from functools import partial
from itertools import islice
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, deserialize_attr, serialize_attr, xp2torch
from thinc.layers.pytorchwrapper import forward as pytorch_forward
from thinc.types import Floats2d

from .errors import Errors
from .doc_arrays import docs_batch_arrays, token_arrays
from .ragged import interleaved
from .features import (
    LexiconIndex,
    NgramVocab,
    batch_windows,
    char_classes_from_codes,
    doc_features,
    featurize,
    flat_ngram_keys,
    lexicon_features,
    ngram_keys,
    plan_windows,
    source_text,
)
from .shims import InPlacePyTorchShim

# Gaps that the model never scores (next to a line break) get this logit:
# they are boundaries by construction.
FORCED_BOUNDARY_LOGIT = 30.0
LEXICON_ATTR = "lexicon"
LEXICON_COUNTS_ATTR = "lexicon_counts"
HOLDOUT_FOLDS_ATTR = "holdout_blocks"
# set by spacy_gdcws.quantize: the model predicts only
QUANTIZED_ATTR = "quantized"
NGRAM_VOCAB_ATTR = "ngram_vocab"
# set on spacy_gdcws.GDEnsemble.v1 models (spacy_gdcws.ensemble): they predict only
ENSEMBLE_ATTR = "ensemble"
# what the model's arrays hold: "gaps" (gap logits) or "tags" (CRF potentials)
OUTPUT_ATTR = "output"
# columns of CRF potentials per character (4 x 4 tag pairs, `nn.crf`)
TAG_COLUMNS = 16


@registry.architectures("spacy_gdcws.GDTransformer.v2")
def build_gd_transformer_v2(
    width: int = 256,
    depth: int = 6,
    n_heads: int = 4,
    d_ff: int = 1024,
    dropout: float = 0.1,
    attention_dropout: Optional[float] = None,
    embedding_dropout: Optional[float] = None,
    sigma: float = 2.0,
    gaussian: bool = True,
    gaussian_mode: str = "multiply",
    directional: bool = True,
    forward_encoder: bool = True,
    centre_encoder: bool = True,
    backward_encoder: bool = True,
    hired: bool = True,
    highway_in: bool = True,
    highway_out: bool = True,
    positions: bool = True,
    fusion: str = "sum",
    layer_norm: str = "post",
    char_rows: int = 20000,
    char_seeds: int = 1,
    bigrams: bool = False,
    bigram_rows: int = 100000,
    bigram_width: int = 64,
    biaffine_width: int = 256,
    lexicon_max_len: int = 0,
    lexicon_dropout: float = 0.0,
    lexicon_holdout: bool = False,
    ngram_vocab: bool = False,
    ngram_holdout: bool = False,
    ngram_dropout: float = 0.0,
    window: int = 512,
    batch_chars: int = 16384,
    mixed_precision: bool = False,
    holdout_folds: int = 0,
) -> Model[List[Doc], List[Floats2d]]:
    """The GD-Transformer of Duan & Zhao (EMNLP 2020) as a thinc model.

    Every switch of `spacy_gdcws.nn.GDConfig` is an argument (the three
    pipelines are `forward_encoder`, `centre_encoder`, `backward_encoder`).
    dropout is applied inside torch: spaCy's `[training] dropout` does not
    reach a wrapped PyTorch model.

    attention_dropout (Optional[float]): Dropout on the attention weights;
        None means `dropout` (as in v1). 0 saves a full pass over B x H x T x T.
    embedding_dropout (Optional[float]): Dropout on the input embeddings;
        None means `dropout` (as in v1).
    gaussian_mode (str): "multiply" (the paper's `logits * G`, as in v1) or
        "bias" (`logits + log G`: local attention).
    lexicon_max_len (int): Dictionary features (words of 2..lexicon_max_len
        characters starting / ending at each character) from the training
        vocabulary that the `gdcws_segmenter` records in `initialize`; 0 = off.
    lexicon_dropout (float): Share of dictionary matches hidden in training.
    lexicon_holdout (bool): In training, hide the words whose every training
        occurrence may be in the current text (leave-one-out), so that rare
        words look in training as unknown words look at test time.
    ngram_vocab (bool): Characters and bigrams never seen in training get a
        learned "unknown" embedding of their character class (bigrams: of
        their pair of classes) instead of the hashed rows of unrelated
        training n-grams (the vocabulary is recorded by the
        `gdcws_segmenter`'s `initialize` and saved with the model).
    ngram_holdout (bool): With `ngram_vocab`, leave-one-out for characters
        and bigrams too: in training, one whose every training occurrence may
        be in the current text is unknown.
    ngram_dropout (float): With `ngram_vocab`, the share of the other
        characters and bigrams that training also shows as unknown.
    holdout_folds (int): With `lexicon_holdout` / `ngram_holdout`: 0 =
        leave-one-out over single docs; k >= 2 = block leave-out as well: the
        training docs, in file order, are cut into k contiguous blocks, and
        training hides from a doc every word / n-gram whose training
        occurrences all lie in its block (rare words cluster in articles, so
        this matches the unknown words of new text far better; see
        `features.HoldoutFolds`). An n-gram then needs two blocks to be known.
    window (int): Longest span scored at once; longer lines are scored in
        overlapping windows of this size.
    batch_chars (int): Upper bound on rows * padded length of one torch batch.
    mixed_precision (bool): Training on GPU: fp16 autocast with gradient
        scaling (thinc). Prediction: bf16 autocast on the model's device, GPU
        or CPU (about 2x faster on CPUs with AVX512-BF16 / AMX; set it when
        loading, `spacy.load(path, config={"components": {NAME: {"model":
        {"mixed_precision": True}}}})`). Outputs stay float32.
    RETURNS (Model[List[Doc], List[Floats2d]]): One (len(doc) - 1, n_scores)
        float32 array of gap logits per doc, on the host. Column 0 is the final
        scorer; with HiRED and Highway-O, column 1 is the HiRED scorer, whose
        loss is added in training.
    """
    # torch is imported here, not at module level: spaCy imports every plugin's
    # entry points when any pipeline is created, and a broken torch must not
    # break pipelines that never use this model.
    from .nn import GDConfig

    cfg = GDConfig(
        width=width, depth=depth, n_heads=n_heads, d_ff=d_ff, dropout=dropout,
        attention_dropout=attention_dropout, embedding_dropout=embedding_dropout, sigma=sigma,
        gaussian=gaussian, gaussian_mode=gaussian_mode, directional=directional, forward=forward_encoder, centre=centre_encoder,
        backward=backward_encoder, hired=hired, highway_in=highway_in, highway_out=highway_out,
        positions=positions, fusion=fusion, layer_norm=layer_norm, char_rows=char_rows,
        char_seeds=char_seeds, bigrams=bigrams, bigram_rows=bigram_rows, bigram_width=bigram_width,
        biaffine_width=biaffine_width, lexicon_max_len=lexicon_max_len, lexicon_dropout=lexicon_dropout,
    )
    return _gd_model(cfg, window=window, batch_chars=batch_chars, mixed_precision=mixed_precision,
                     lexicon_holdout=lexicon_holdout, ngram_vocab=ngram_vocab, ngram_holdout=ngram_holdout,
                     ngram_dropout=ngram_dropout, holdout_folds=holdout_folds)


@registry.architectures("spacy_gdcws.GDTransformer.v1")
def build_gd_transformer(
    width: int = 256,
    depth: int = 6,
    n_heads: int = 4,
    d_ff: int = 1024,
    dropout: float = 0.1,
    sigma: float = 2.0,
    gaussian: bool = True,
    directional: bool = True,
    forward_encoder: bool = True,
    centre_encoder: bool = True,
    backward_encoder: bool = True,
    hired: bool = True,
    highway_in: bool = True,
    highway_out: bool = True,
    positions: bool = True,
    fusion: str = "sum",
    layer_norm: str = "post",
    char_rows: int = 20000,
    char_seeds: int = 1,
    bigrams: bool = False,
    bigram_rows: int = 100000,
    bigram_width: int = 64,
    biaffine_width: int = 256,
    window: int = 512,
    batch_chars: int = 16384,
    mixed_precision: bool = False,
) -> Model[List[Doc], List[Floats2d]]:
    """v1 of the architecture: `spacy_gdcws.GDTransformer.v2` with one dropout
    rate for embeddings, attention weights and residuals. Kept so that
    configs and pipelines saved with v1 load unchanged."""
    return build_gd_transformer_v2(
        width=width, depth=depth, n_heads=n_heads, d_ff=d_ff, dropout=dropout, sigma=sigma,
        gaussian=gaussian, directional=directional, forward_encoder=forward_encoder,
        centre_encoder=centre_encoder, backward_encoder=backward_encoder, hired=hired,
        highway_in=highway_in, highway_out=highway_out, positions=positions, fusion=fusion,
        layer_norm=layer_norm, char_rows=char_rows, char_seeds=char_seeds, bigrams=bigrams,
        bigram_rows=bigram_rows, bigram_width=bigram_width, biaffine_width=biaffine_width,
        window=window, batch_chars=batch_chars, mixed_precision=mixed_precision,
    )


def _gd_model(cfg: Any, *, window: int, batch_chars: int, mixed_precision: bool,
              lexicon_holdout: bool = False, ngram_vocab: bool = False,
              ngram_holdout: bool = False, ngram_dropout: float = 0.0,
              holdout_folds: int = 0) -> Model[List[Doc], List[Floats2d]]:
    """Wrap a `GDTransformerNet` built from `cfg` (a `GDConfig`) for thinc."""
    from .nn import GDTransformerNet

    net = GDTransformerNet(cfg)
    net.embed.features = feature_settings(
        char_rows=cfg.char_rows, char_seeds=cfg.char_seeds, bigrams=cfg.bigrams, bigram_rows=cfg.bigram_rows,
        lexicon_max_len=cfg.lexicon_max_len, lexicon_holdout=lexicon_holdout, ngram_vocab=ngram_vocab,
        ngram_holdout=ngram_holdout, ngram_dropout=ngram_dropout, holdout_folds=holdout_folds,
    )
    return wrap_segmentation_net(net, window=window, batch_chars=batch_chars, mixed_precision=mixed_precision,
                                 name="gd_transformer")


def wrap_torch(net: Any, convert_in: Callable, mixed_precision: bool) -> Model:
    """PyTorchWrapper_v3 around `net`, but with a shim whose optimizer step does not
    leak memory (`shims.InPlacePyTorchShim`); outputs come back as float32 host arrays."""
    _register_fork_handler()
    return Model(
        "pytorch",
        pytorch_forward,
        attrs={"convert_inputs": convert_in, "convert_outputs": convert_outputs},
        shims=[InPlacePyTorchShim(net, mixed_precision=mixed_precision)],
        dims={"nI": None, "nO": None},
    )


def feature_settings(*, char_rows: int, char_seeds: int, bigrams: bool, bigram_rows: int, lexicon_max_len: int,
                     lexicon_holdout: bool, ngram_vocab: bool, ngram_holdout: bool, ngram_dropout: float,
                     holdout_folds: int, vectors: bool = False) -> Dict[str, Any]:
    """The featurization settings of an embedding (checked), as the thinc model keeps them in its attrs."""
    if (ngram_holdout or ngram_dropout) and not ngram_vocab:
        raise ValueError(Errors.E027)
    if not 0.0 <= ngram_dropout < 1.0:
        raise ValueError(f"[E053] ngram_dropout must be in [0, 1), got {ngram_dropout}")
    if holdout_folds < 0 or holdout_folds == 1:
        raise ValueError(Errors.E029.format(value=holdout_folds))
    return {
        "char_rows": char_rows, "char_seeds": char_seeds, "bigrams": bigrams, "bigram_rows": bigram_rows,
        "lexicon_max_len": lexicon_max_len, "lexicon_holdout": lexicon_holdout, "ngram_vocab": ngram_vocab,
        "ngram_holdout": ngram_holdout, "ngram_dropout": ngram_dropout, "holdout_folds": holdout_folds,
        "vectors": vectors,
    }


def wrap_segmentation_net(net: Any, *, window: int, batch_chars: int, mixed_precision: bool,
                          name: str = "char_segmenter") -> Model[List[Doc], List[Floats2d]]:
    """Wrap a `nn.SegmentationNet` for thinc: docs in, one score array per doc out.

    The net's embedding carries its featurization settings (`feature_settings`);
    its head's `kind` says what the arrays hold: "gaps" (len(doc) - 1 rows of
    gap logits) or "tags" (len(doc) rows of CRF potentials, `nn.crf`).
    """
    if window < 2:
        raise ValueError(Errors.E011.format(window=window))
    features = dict(net.embed.features)
    if not features:
        raise ValueError(Errors.E041)
    torch_layer = wrap_torch(net, convert_inputs, mixed_precision)
    kind = net.kind
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
            **{key: value for key, value in features.items() if key != "ngram_vocab"},
            # the dictionary itself (a frozenset, set by the segmenter from its
            # training words; not serialized here: the segmenter saves words.txt)
            LEXICON_ATTR: None,
            # training frequencies for lexicon_holdout, a features.WordCounts (set
            # by the segmenter's initialize; deliberately not msgpack-serializable)
            LEXICON_COUNTS_ATTR: None,
            # an empty NgramVocab until the segmenter's initialize records one
            NGRAM_VOCAB_ATTR: NgramVocab.empty() if features["ngram_vocab"] else None,
            # the training docs' blocks, a features.HoldoutFolds (set by the
            # segmenter's initialize when holdout_folds >= 2; training only)
            HOLDOUT_FOLDS_ATTR: None,
        },
    )


@serialize_attr.register(NgramVocab)
def _serialize_ngram_vocab(_: NgramVocab, value: NgramVocab, name: str, model: Model) -> bytes:
    return value.to_bytes()


@deserialize_attr.register(NgramVocab)
def _deserialize_ngram_vocab(_: NgramVocab, value: bytes, name: str, model: Model) -> NgramVocab:
    return NgramVocab.from_bytes(value)


def record_ngram_vocab(model: Model, docs: Iterable[Doc], chunk: int = 1000) -> None:
    """Record the characters and bigrams of the training docs as the model's
    n-gram vocabulary (a no-op for a model without `ngram_vocab`). Set the
    model's `HoldoutFolds` first for block leave-out."""
    if model.attrs.get(NGRAM_VOCAB_ATTR) is None:
        return
    use_bigrams = model.attrs["bigrams"]
    batches, folds = [], []
    it = iter(docs)
    while True:
        part = list(islice(it, chunk))
        if not part:
            break
        # no character classes here: they only choose the UNK keys, which are never counted
        arrays = [token_arrays(d) for d in part]
        batches.append(ngram_keys([a.orth for a in arrays], [a.breaks for a in arrays], use_bigrams))
        folds.append(doc_folds(model, part))
    model.attrs[NGRAM_VOCAB_ATTR] = NgramVocab.from_keys(
        batches, model.attrs["ngram_holdout"], None if model.attrs.get(HOLDOUT_FOLDS_ATTR) is None else folds
    )


def doc_folds(model: Model, docs: Sequence[Doc]) -> numpy.ndarray:
    """Each doc's training block for block leave-out (-1: none, or no blocks)."""
    folds = model.attrs.get(HOLDOUT_FOLDS_ATTR)
    if folds is None:
        return numpy.full(len(docs), -1, dtype=numpy.int64)
    return numpy.asarray([folds.fold(source_text(doc)) for doc in docs], dtype=numpy.int64)


_FORK_HANDLER = {"registered": False}


def _register_fork_handler() -> None:
    """After a fork (`nlp.pipe(n_process > 1)`), the child uses one torch thread:
    torch's OpenMP pool does not survive a fork and the child would hang."""
    if not _FORK_HANDLER["registered"] and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_single_torch_thread)
        _FORK_HANDLER["registered"] = True


def _single_torch_thread() -> None:
    import torch

    torch.set_num_threads(1)


def convert_inputs(model: Model, X: Tuple[numpy.ndarray, ...], is_train: bool) -> Tuple[ArgsKwargs, Callable]:
    """Move the int arrays to the torch device; ids get no gradient."""
    device = model.shims[0].device
    chars, bigrams, mask, lexicon, vectors = (xp2torch(model.ops.asarray(x), device=device) for x in X)
    args = ArgsKwargs(
        args=(chars, bigrams if bigrams.numel() else None, mask, lexicon if lexicon.numel() else None),
        kwargs={"vectors": vectors} if vectors.numel() else {},
    )
    return args, _no_input_gradient


def _no_input_gradient(d_inputs: Any) -> None:
    return None


def convert_outputs(model: Model, X_Ytorch: Tuple[Any, Any], is_train: bool) -> Tuple[numpy.ndarray, Callable]:
    """Gap logits to a float32 host array; gradients back to the device."""
    _, Ytorch = X_Ytorch
    Y = Ytorch.detach().float().cpu().numpy()
    return Y, partial(_output_gradient, Ytorch, model.shims[0].device)


def _output_gradient(Ytorch: Any, device: Any, dY: numpy.ndarray) -> ArgsKwargs:
    import torch

    grad = torch.as_tensor(dY, device=device, dtype=Ytorch.dtype)
    return ArgsKwargs(args=((Ytorch,),), kwargs={"grad_tensors": (grad,)})


def line_breaks(doc: Doc) -> numpy.ndarray:
    """True for whitespace tokens that contain a line break (units never span them)."""
    return token_arrays(doc).breaks


# model attr: the dictionary as array keys, with the word set it was built from
LEXICON_INDEX_ATTR = "lexicon_index"


def lexicon_index(model: Model, lexicon: Any, max_len: int) -> LexiconIndex:
    """The model's `LexiconIndex` of `lexicon`, built again only when the
    dictionary changes (not serialized: thinc skips attrs msgpack cannot write)."""
    cached = model.attrs.get(LEXICON_INDEX_ATTR)
    if cached is None or cached[0] is not lexicon:
        cached = model.attrs[LEXICON_INDEX_ATTR] = (lexicon, LexiconIndex(lexicon, max_len))
    return cached[1]


def forward(model: Model[List[Doc], List[Floats2d]], docs: List[Doc], is_train: bool):
    """Hash the docs, cut them into units and windows, score length-sorted
    padded batches, and put each gap's (or character's) scores back into its
    doc's array. Everything runs on the batch's concatenated tokens."""
    torch_layer = model.layers[0]
    n_scores = model.attrs["n_scores"]
    tags = model.attrs.get(OUTPUT_ATTR, "gaps") == "tags"
    use_bigrams = model.attrs["bigrams"]
    vocab = model.attrs[NGRAM_VOCAB_ATTR]
    if vocab is not None and not len(vocab):
        raise ValueError(Errors.E028)
    if not docs:
        return [], lambda d_outputs: docs
    # the docs laid end to end, a line-break token between neighbours (`doc_arrays.BatchArrays`)
    laid = docs_batch_arrays(docs)
    tokens = laid.arrays
    real = ~laid.separators
    max_len = model.attrs["lexicon_max_len"]
    folds = doc_folds(model, docs) if is_train else numpy.full(len(docs), -1, dtype=numpy.int64)
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
            per_doc = [lexicon_features([t.text for t in doc], lexicon, max_len, holdout, int(fold))
                       for doc, fold in zip(docs, folds)]
            feats.lexicon = numpy.concatenate(interleaved(per_doc, numpy.zeros((1, width), dtype=numpy.float32)))
        else:
            # the separators' code matches no word, so no word spans two docs
            feats.lexicon = lexicon_index(model, lexicon, max_len).features(tokens.codes)
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
    for rows in batch_windows(windows, model.attrs["batch_chars"]):
        batch = windows.take(rows)
        Y, backprop = torch_layer(featurize(batch, feats, use_bigrams), is_train)
        row, column, position = batch.kept(tags)
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

        net = node.layers[0].shims[0]._model
        table = vocab.vectors
        if table.mode != "default":
            raise ValueError(Errors.E042.format(mode=table.mode))
        if not table.shape[0]:
            raise ValueError(Errors.E043.format(width=net.embed.vectors_width))
        net.embed.set_vectors(torch.from_numpy(numpy.asarray(table.data, dtype="f")))
