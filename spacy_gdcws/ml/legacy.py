"""`spacy_gdcws.GDTransformer.v1/v2`: the all-in-one GD-Transformer architectures
of the first pipelines (one signature with the embedding's, the encoder's and
the scorer's settings). New configs compose `spacy_gdcws.CharSegmenter.v1`;
these stay registered so that saved pipelines keep loading."""
from typing import Any, List, Optional

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from spacy_gdcws.ml.forward import feature_settings, wrap_segmentation_net


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
    from spacy_gdcws.nn import GDConfig

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
    return build_gd_transformer_v2(**locals())  # every v1 setting is a v2 setting of the same name


def _gd_model(cfg: Any, *, window: int, batch_chars: int, mixed_precision: bool,
              lexicon_holdout: bool = False, ngram_vocab: bool = False,
              ngram_holdout: bool = False, ngram_dropout: float = 0.0,
              holdout_folds: int = 0) -> Model[List[Doc], List[Floats2d]]:
    """Wrap a `GDTransformerNet` built from `cfg` (a `GDConfig`) for thinc."""
    from spacy_gdcws.nn import GDTransformerNet

    net = GDTransformerNet(cfg)
    net.embed.features = feature_settings(
        char_rows=cfg.char_rows, char_seeds=cfg.char_seeds, bigrams=cfg.bigrams, bigram_rows=cfg.bigram_rows,
        lexicon_max_len=cfg.lexicon_max_len, lexicon_holdout=lexicon_holdout, ngram_vocab=ngram_vocab,
        ngram_holdout=ngram_holdout, ngram_dropout=ngram_dropout, holdout_folds=holdout_folds,
    )
    return wrap_segmentation_net(net, window=window, batch_chars=batch_chars, mixed_precision=mixed_precision,
                                 name="gd_transformer")
