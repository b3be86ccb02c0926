"""Registered encoders: `spacy_gdcws.GDEncoder.v1`, `LocalSelfAttention.v1`, `IDCNN.v1`, `BiLSTM.v1`.

Each returns a torch module whose forward maps `(emb (B, T, width), mask)` to
`nn.Encoded`; the encoder keeps the width.
"""
from typing import Any, List, Optional

from spacy.util import registry


@registry.architectures("spacy_gdcws.GDEncoder.v1")
def build_gd_encoder(
    width: int = 256,
    depth: int = 6,
    n_heads: int = 4,
    d_ff: int = 1024,
    dropout: float = 0.1,
    attention_dropout: Optional[float] = None,
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
    fusion: str = "sum",
    layer_norm: str = "post",
    biaffine_width: int = 256,
) -> Any:
    """The GD-Transformer's encoder (Duan & Zhao 2020): Gaussian-masked
    directional attention in three pipelines, HiRED with Highway-I/O, fusion.
    Arguments as in `spacy_gdcws.GDTransformer.v2`; `biaffine_width` is the
    HiRED scorer's. With HiRED and Highway-O the HiRED scorer's logits go to
    the scorer, which adds their loss. Positions belong to the embedding
    (`CharEmbed.v1 positions = true`, as in the paper's reference code).
    """
    from spacy_gdcws.nn import GDConfig, GDEncoder

    cfg = GDConfig(width=width, depth=depth, n_heads=n_heads, d_ff=d_ff, dropout=dropout,
                   attention_dropout=attention_dropout, sigma=sigma, gaussian=gaussian, gaussian_mode=gaussian_mode,
                   directional=directional, forward=forward_encoder, centre=centre_encoder,
                   backward=backward_encoder, hired=hired, highway_in=highway_in, highway_out=highway_out,
                   fusion=fusion, layer_norm=layer_norm, biaffine_width=biaffine_width)
    return GDEncoder(cfg)


@registry.architectures("spacy_gdcws.LocalSelfAttention.v1")
def build_local_self_attention(width: int = 100, depth: int = 2, n_heads: int = 2, d_ff: int = 200,
                               radius: int = 5, dropout: float = 0.1, relative_positions: bool = False,
                               relative_embeddings: bool = False) -> Any:
    """Local self-attention (L-SAN): each character attends to `radius`
    characters on each side (pre-LayerNorm layers with an FFN). With
    `relative_positions`, each layer and head learns a bias per offset in the
    window; with `relative_embeddings`, each layer learns a key and a value
    vector per offset (Shaw et al. 2018). Both default off: the models trained
    before them load unchanged."""
    from spacy_gdcws.nn import LocalSelfAttentionEncoder

    return LocalSelfAttentionEncoder(width, depth, n_heads, d_ff, radius, dropout, relative_positions,
                                     relative_embeddings)


@registry.architectures("spacy_gdcws.IDCNN.v1")
def build_idcnn(width: int = 200, dilations: List[int] = [1, 1, 2], iterations: int = 4, kernel: int = 3,
                dropout: float = 0.1) -> Any:
    """Iterated dilated CNN (Strubell et al. 2017): a block of dilated
    convolutions applied `iterations` times with shared parameters."""
    from spacy_gdcws.nn import IteratedDilatedCNN

    return IteratedDilatedCNN(width, dilations, iterations, kernel, dropout)


@registry.architectures("spacy_gdcws.BiLSTM.v1")
def build_bilstm(width: int = 200, depth: int = 1, dropout: float = 0.1) -> Any:
    """`depth` bidirectional LSTM layers (`width // 2` units each way)."""
    from spacy_gdcws.nn import BiLSTMEncoder

    return BiLSTMEncoder(width, depth, dropout)
