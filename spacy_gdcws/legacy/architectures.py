"""`spacy_gdcws.GDTransformer.v1` / `.v2` and `spacy_gdcws.CharEmbed.v1`, translated into the composed model.

What each setting means is documented where it lives now: the embedding's at
`ml.embed.build_char_embed` (`CharEmbed.v2`), the encoder's at
`ml.encoders.build_gd_encoder` (`GDEncoder.v1`) and `nn.GDConfig`, the scorer's at
`ml.scorers.build_gap_scorer` (`GapScorer.v1`), the wrapper's at
`ml.char_segmenter.build_char_segmenter` (`CharSegmenter.v1`). Like every registered
builder, these take their values from the config; the only defaults are those of
the settings added to `GDTransformer.v2` after its release: a pipeline saved before
them has no such key and was built with the setting off.
"""
from typing import Any, List, Optional

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from spacy_gdcws.ml.embed import build_char_embed
from spacy_gdcws.ml.featurize import feature_settings
from spacy_gdcws.ml.forward import wrap_segmentation_net


@registry.architectures("spacy_gdcws.GDTransformer.v2")
def build_gd_transformer_v2(
    width: int, depth: int, n_heads: int, d_ff: int, dropout: float, attention_dropout: Optional[float],
    embedding_dropout: Optional[float], sigma: float, gaussian: bool, directional: bool, forward_encoder: bool,
    centre_encoder: bool, backward_encoder: bool, hired: bool, highway_in: bool, highway_out: bool,
    positions: bool, fusion: str, layer_norm: str, char_rows: int, char_seeds: int, bigrams: bool,
    bigram_rows: int, bigram_width: int, biaffine_width: int, window: int, batch_chars: int, mixed_precision: bool,
    # added after the release of v2: off in the pipelines saved before
    gaussian_mode: str = "multiply", lexicon_max_len: int = 0, lexicon_dropout: float = 0.0,
    lexicon_holdout: bool = False, ngram_vocab: bool = False, ngram_holdout: bool = False,
    ngram_dropout: float = 0.0, holdout_folds: int = 0,
) -> Model[List[Doc], List[Floats2d]]:
    """The GD-Transformer of Duan & Zhao (EMNLP 2020), all settings in one signature:
    `legacy.net.GDTransformerNet` (`CharEmbedding >> GDEncoder >> GapScorer` of one `nn.GDConfig`),
    with the featurization of `CharEmbed.v2`, behind the wrapper of `CharSegmenter.v1`.
    RETURNS: one (len(doc) - 1, n_scores) array of gap logits per doc (column 0 the
    final scorer, column 1 with HiRED and Highway-O the HiRED scorer).
    """
    # torch is imported when the model is built, never when spaCy loads the entry points
    from spacy_gdcws.legacy.net import GDTransformerNet
    from spacy_gdcws.nn import GDConfig

    cfg = GDConfig(
        width=width, depth=depth, n_heads=n_heads, d_ff=d_ff, dropout=dropout,
        attention_dropout=attention_dropout, embedding_dropout=embedding_dropout, sigma=sigma,
        gaussian=gaussian, gaussian_mode=gaussian_mode, directional=directional, forward=forward_encoder,
        centre=centre_encoder, backward=backward_encoder, hired=hired, highway_in=highway_in,
        highway_out=highway_out, positions=positions, fusion=fusion, layer_norm=layer_norm, char_rows=char_rows,
        char_seeds=char_seeds, bigrams=bigrams, bigram_rows=bigram_rows, bigram_width=bigram_width,
        biaffine_width=biaffine_width, lexicon_max_len=lexicon_max_len, lexicon_dropout=lexicon_dropout,
    )
    net = GDTransformerNet(cfg)
    net.embed.features = feature_settings(
        char_rows=char_rows, char_seeds=char_seeds, bigrams=bigrams, bigram_rows=bigram_rows,
        lexicon_max_len=lexicon_max_len, lexicon_holdout=lexicon_holdout, ngram_vocab=ngram_vocab,
        ngram_holdout=ngram_holdout, ngram_dropout=ngram_dropout, holdout_folds=holdout_folds,
    )
    return wrap_segmentation_net(net, window=window, batch_chars=batch_chars, mixed_precision=mixed_precision,
                                 name="gd_transformer")


@registry.architectures("spacy_gdcws.GDTransformer.v1")
def build_gd_transformer(
    width: int, depth: int, n_heads: int, d_ff: int, dropout: float, sigma: float, gaussian: bool,
    directional: bool, forward_encoder: bool, centre_encoder: bool, backward_encoder: bool, hired: bool,
    highway_in: bool, highway_out: bool, positions: bool, fusion: str, layer_norm: str, char_rows: int,
    char_seeds: int, bigrams: bool, bigram_rows: int, bigram_width: int, biaffine_width: int, window: int,
    batch_chars: int, mixed_precision: bool,
) -> Model[List[Doc], List[Floats2d]]:
    """`GDTransformer.v2` with one dropout rate for embeddings, attention weights and
    residuals, and none of the features added since (dictionary, n-gram vocabulary)."""
    return build_gd_transformer_v2(**locals(), attention_dropout=None, embedding_dropout=None)


@registry.architectures("spacy_gdcws.CharEmbed.v1")
def build_char_embed_v1(
    width: int, char_rows: int, char_seeds: int, bigrams: bool, bigram_rows: int, bigram_width: int,
    lexicon_max_len: int, lexicon_dropout: float, lexicon_holdout: bool, ngram_vocab: bool, ngram_holdout: bool,
    ngram_dropout: float, holdout_folds: int, positions: bool, dropout: float, vectors_width: int,
) -> Any:
    """`spacy_gdcws.CharEmbed.v2` without character normalization or a general lexicon."""
    return build_char_embed(**locals(), normalize="", general_lexicon=False)
