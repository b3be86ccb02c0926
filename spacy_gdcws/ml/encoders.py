"""Registered encoders: `spacy_gdcws.GDEncoder.v1`, `LocalSelfAttention.v1`, `IDCNN.v1`, `BiLSTM.v1`.

Each returns a torch module whose forward maps `(emb (B, T, width), mask)` to
`nn.Encoded`; the encoder keeps the width.
"""
from typing import Any, List, Optional

from spacy.util import registry


@registry.architectures("spacy_gdcws.GDEncoder.v1")
def build_gd_encoder(
    width: int,
    depth: int,
    n_heads: int,
    d_ff: int,
    dropout: float,
    attention_dropout: Optional[float],
    sigma: float,
    gaussian: bool,
    gaussian_mode: str,
    directional: bool,
    forward_encoder: bool,
    centre_encoder: bool,
    backward_encoder: bool,
    hired: bool,
    highway_in: bool,
    highway_out: bool,
    fusion: str,
    layer_norm: str,
    biaffine_width: int,
) -> Any:
    """The GD-Transformer's encoder (Duan & Zhao 2020): Gaussian-masked
    directional attention in three pipelines, HiRED with Highway-I/O, fusion.
    Every switch of `nn.GDConfig` is an argument (the three pipelines are
    `forward_encoder`, `centre_encoder`, `backward_encoder`): the paper's
    ablations are config changes. `biaffine_width` is the HiRED scorer's. With
    HiRED and Highway-O the HiRED scorer's logits go to the scorer, which adds
    their loss. Positions belong to the embedding (`CharEmbed.v2 positions =
    true`, as in the paper's reference code). Dropout is applied inside torch:
    spaCy's `[training] dropout` does not reach a wrapped PyTorch model.

    attention_dropout (Optional[float]): Dropout on the attention weights;
        None means `dropout`. 0 saves a full pass over B x H x T x T.
    gaussian_mode (str): "multiply" (the paper's `logits * G`) or "bias"
        (`logits + log G`: local attention).
    """
    from spacy_gdcws.nn import GDConfig, GDEncoder

    cfg = GDConfig(width=width, depth=depth, n_heads=n_heads, d_ff=d_ff, dropout=dropout,
                   attention_dropout=attention_dropout, sigma=sigma, gaussian=gaussian, gaussian_mode=gaussian_mode,
                   directional=directional, forward=forward_encoder, centre=centre_encoder,
                   backward=backward_encoder, hired=hired, highway_in=highway_in, highway_out=highway_out,
                   fusion=fusion, layer_norm=layer_norm, biaffine_width=biaffine_width)
    return GDEncoder(cfg)


@registry.architectures("spacy_gdcws.LocalSelfAttention.v1")
def build_local_self_attention(width: int, depth: int, n_heads: int, d_ff: int,
                               radius: int, dropout: float,
                               # added after the release of v1: off in the pipelines saved before
                               relative_positions: bool = False, relative_embeddings: bool = False) -> Any:
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
def build_idcnn(width: int, dilations: List[int], iterations: int, kernel: int,
                dropout: float) -> Any:
    """Iterated dilated CNN (Strubell et al. 2017): a block of dilated
    convolutions applied `iterations` times with shared parameters."""
    from spacy_gdcws.nn import IteratedDilatedCNN

    return IteratedDilatedCNN(width, dilations, iterations, kernel, dropout)


@registry.architectures("spacy_gdcws.BiLSTM.v1")
def build_bilstm(width: int, depth: int, dropout: float) -> Any:
    """`depth` bidirectional LSTM layers (`width // 2` units each way)."""
    from spacy_gdcws.nn import BiLSTMEncoder

    return BiLSTMEncoder(width, depth, dropout)
