"""The legacy wing: architectures of pipelines saved before the model was composed.

`spacy_gdcws.GDTransformer.v1` / `.v2` (the GD-Transformer with the embedding's, the
encoder's and the scorer's settings in one signature) and `spacy_gdcws.CharEmbed.v1`
(`CharEmbed.v2` without character normalization) stay registered so that saved
pipelines keep loading and give the same words. Each translates into the composed
model: the same `nn.SegmentationNet` of embedding, encoder and scorer, on the same
data path (`ml.forward`). New configs compose `spacy_gdcws.CharSegmenter.v1`.
`spacy_gdcws.BiaffineParser.v1` (the parser with output rows fixed in its config) and `.v2` (before
the entity tagger) build the model of `spacy_gdcws.BiaffineParser.v3` without entity tags.
"""
from spacy_gdcws.legacy.architectures import (
    build_char_embed_v1,
    build_gd_transformer,
    build_gd_transformer_v2,
)
from spacy_gdcws.legacy.parser import build_biaffine_parser_v1

__all__ = ["build_char_embed_v1", "build_gd_transformer", "build_gd_transformer_v2", "build_biaffine_parser_v1"]
