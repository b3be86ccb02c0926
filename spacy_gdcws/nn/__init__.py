"""PyTorch modules of the GD-Transformer (Duan & Zhao, EMNLP 2020).

This subpackage depends on torch only: it can be imported, trained and tested
without spaCy or thinc.
"""
from .attention import GaussianDirectionalAttention, gaussian_weights, direction_mask
from .config import GDConfig
from .encoder import EncoderLayer, Pipeline
from .biaffine import BiaffineGapScorer
from .model import GDTransformerNet, word_sum_pool

__all__ = [
    "GDConfig",
    "GaussianDirectionalAttention",
    "gaussian_weights",
    "direction_mask",
    "EncoderLayer",
    "Pipeline",
    "BiaffineGapScorer",
    "GDTransformerNet",
    "word_sum_pool",
]
