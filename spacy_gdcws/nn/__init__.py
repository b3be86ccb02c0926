"""PyTorch modules of the segmenters: the GD-Transformer (Duan & Zhao, EMNLP 2020),
local self-attention, iterated dilated CNN and BiLSTM encoders, the biaffine gap
scorer and a BMES CRF.

This subpackage depends on torch only: it can be imported, trained and tested
without spaCy or thinc.
"""
from .attention import GaussianDirectionalAttention, gaussian_weights, direction_mask
from .bilstm import BiLSTMEncoder
from .config import GDConfig
from .embed import CharEmbedding
from .encoded import Encoded
from .encoder import EncoderLayer, Pipeline
from .biaffine import BiaffineGapScorer
from .gd_encoder import GDEncoder, word_sum_pool
from .heads import CRFTagger, GapScorer
from .idcnn import IteratedDilatedCNN
from .model import GDTransformerNet, SegmentationNet
from .san import LocalSelfAttentionEncoder, band_mask

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
    "GDTransformerNet",
    "word_sum_pool",
]
