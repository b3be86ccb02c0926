"""The registered thinc models of both components, and what wraps their torch modules.

The segmenter's is composed, `embed >> encoder >> scorer`:

`spacy_gdcws.CharSegmenter.v1` puts one embedding (`spacy_gdcws.CharEmbed.v2`),
one encoder (`spacy_gdcws.GDEncoder.v1`, `spacy_gdcws.LocalSelfAttention.v1`,
`spacy_gdcws.IDCNN.v1`, `spacy_gdcws.BiLSTM.v1`) and one scorer
(`spacy_gdcws.GapScorer.v1`, `spacy_gdcws.CRFTagger.v1`) into one torch module
behind one thinc wrapper, on the data path of `spacy_gdcws.ml.forward`.

The pieces are torch modules (from `spacy_gdcws.nn`, importable without spaCy);
torch is imported when a piece is built, never when spaCy loads the plugin's
entry points. An encoder is any module with a `width` whose forward takes
`(emb (B, T, width), mask (B, T))` and returns `nn.Encoded`; see
`docs/add-an-encoder.md`.

The parser's is `spacy_gdcws.BiaffineParser.v3` (`parser.py`: one torch module called for two
tasks, scores and the relations of chosen arcs); `word_embed.py` embeds words for spaCy's own
components after the segmenter. Shared by both: `wrapper.py` and `shims.py` (the PyTorch wrapper,
its in-place optimizer step and gradient helpers), `fingerprint.py` (a model's structure, checked
on load), `precision.py` (float32 / bf16 / int8 prediction).
"""
from spacy_gdcws.ml.char_segmenter import build_char_segmenter
from spacy_gdcws.ml.embed import build_char_embed
from spacy_gdcws.ml.encoders import (
    build_bilstm,
    build_gd_encoder,
    build_idcnn,
    build_local_self_attention,
)
from spacy_gdcws.ml.scorers import build_crf_tagger, build_gap_scorer
from spacy_gdcws.ml.transformer import build_hf_transformer, build_transformer_segmenter

__all__ = [
    "build_char_embed",
    "build_gd_encoder",
    "build_local_self_attention",
    "build_idcnn",
    "build_bilstm",
    "build_gap_scorer",
    "build_crf_tagger",
    "build_char_segmenter",
    "build_hf_transformer",
    "build_transformer_segmenter",
]
