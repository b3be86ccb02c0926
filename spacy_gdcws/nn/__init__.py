"""PyTorch modules of both components. The segmenters': the GD-Transformer (Duan & Zhao, EMNLP
2020), local self-attention, iterated dilated CNN and BiLSTM encoders, the biaffine gap scorer and
a BMES CRF. The parser's: `word_parser.BiaffineParserNet` (word features, a BiLSTM or CNN, biaffine
arc and relation scorers, UPOS and XPOS classifiers), imported where it is built.

This subpackage depends on torch only: it can be imported, trained and tested
without spaCy or thinc.
"""
from spacy_gdcws.nn.attention import (
    GaussianDirectionalAttention,
    direction_mask,
    gaussian_weights,
)
from spacy_gdcws.nn.biaffine import BiaffineGapScorer
from spacy_gdcws.nn.bilstm import BiLSTMEncoder
from spacy_gdcws.nn.config import GDConfig
from spacy_gdcws.nn.embed import CharEmbedding
from spacy_gdcws.nn.encoded import Encoded
from spacy_gdcws.nn.encoder import EncoderLayer, Pipeline
from spacy_gdcws.nn.gd_encoder import GDEncoder, word_sum_pool
from spacy_gdcws.nn.heads import CRFTagger, GapScorer
from spacy_gdcws.nn.idcnn import IteratedDilatedCNN
from spacy_gdcws.nn.model import SegmentationNet
from spacy_gdcws.nn.san import LocalSelfAttentionEncoder, band_mask

__all__ = [
    "GDConfig",
    "GaussianDirectionalAttention",
    "gaussian_weights",
    "direction_mask",
    "band_mask",
    "EncoderLayer",
    "Pipeline",
    "BiaffineGapScorer",
    "CharEmbedding",
    "Encoded",
    "GDEncoder",
    "LocalSelfAttentionEncoder",
    "IteratedDilatedCNN",
    "BiLSTMEncoder",
    "GapScorer",
    "CRFTagger",
    "SegmentationNet",
    "word_sum_pool",
]
