"""Hyperparameters of the GD-Transformer, one frozen dataclass.

Every part the paper ablates (Tables 7-9) has its own switch here, so that an
ablation is a config change and never a code change.
"""
from dataclasses import asdict, dataclass
from typing import Any, Dict, Optional

from spacy_gdcws.errors import Errors

PIPELINES = ("forward", "centre", "backward")


def check_lexicon_max_len(value: int) -> None:
    """E022 unless 0 (no dictionary features) or at least 2."""
    if value == 1 or value < 0:
        raise ValueError(Errors.E022.format(value=value))


def check_heads(width: int, n_heads: int) -> None:
    """E001 unless the width splits evenly into the heads."""
    if width % n_heads != 0:
        raise ValueError(Errors.E001.format(width=width, n_heads=n_heads))


def check_widths(what: str, inner: Optional[int], outer: Optional[int]) -> None:
    """E058 unless two stacked pieces have the same width."""
    if inner != outer:
        raise ValueError(Errors.E058.format(what=what, inner=inner, outer=outer))


def check_rate(name: str, rate: Optional[float]) -> None:
    """E051 unless a dropout rate in [0, 1) (None: unset, allowed)."""
    if rate is not None and not 0.0 <= rate < 1.0:
        raise ValueError(Errors.E051.format(name=name, rate=rate))


def n_lexicon_features(lexicon_max_len: int) -> int:
    """Columns of the dictionary feature matrix: words of 2..max_len characters
    starting and ending at each character (0 when off)."""
    return 2 * (lexicon_max_len - 1) if lexicon_max_len else 0


@dataclass(frozen=True)
class GDConfig:
    """Dimensions and switches of the GD-Transformer (`GDEncoder`; `legacy.net.GDTransformerNet`).

    width (int): Model dimension d.
    depth (int): Encoder layers per pipeline (N).
    n_heads (int): Attention heads.
    d_ff (int): Inner size of the position-wise FFN; 0 removes the FFN.
    dropout (float): Dropout on residuals and in the FFN (and, unless set
        separately, on the embeddings and the attention weights).
    attention_dropout (Optional[float]): Dropout on the attention weights
        (B, H, T, T); None means `dropout`. 0 skips a full T x T pass.
    embedding_dropout (Optional[float]): Dropout on the summed character
        (+ bigram) embeddings; None means `dropout`.
    sigma (float): Standard deviation of the Gaussian weight.
    gaussian (bool): Multiply attention logits by the Gaussian weight.
    gaussian_mode (str): "multiply" (paper: logits * G) or "bias" (logits +
        log G: distant keys are masked out softly, attention becomes local).
    directional (bool): Forward/backward pipelines see only one side.
    forward (bool), centre (bool), backward (bool): Which pipelines exist.
    hired (bool): HiRED layer after `depth // 2` layers.
    highway_in (bool): Rear layers also receive the embeddings (Highway-I).
    highway_out (bool): The HiRED scorer's loss is added (Highway-O).
    positions (bool): Add sinusoidal position encodings.
    fusion (str): "sum" (paper) or "gate" (sigmoid gate).
    layer_norm (str): "post" (paper) or "pre".
    char_rows (int): Rows of the hashed character table.
    char_seeds (int): Hash functions per character (their rows are summed).
    bigrams (bool): Add hashed character-bigram embeddings (closed-test legal).
    bigram_rows (int): Rows of the bigram table.
    bigram_width (int): Width of the bigram table (projected to `width`).
    biaffine_width (int): Width of each side's projection before the biaffine.
    lexicon_max_len (int): Dictionary features from the training vocabulary
        (which words of 2..lexicon_max_len characters start / end at each
        character), projected to `width` and added to the embeddings; 0 = off.
    lexicon_dropout (float): In training, each dictionary match is hidden
        with this probability (simulates words missing from the dictionary).
    """

    width: int = 256
    depth: int = 6
    n_heads: int = 4
    d_ff: int = 1024
    dropout: float = 0.1
    attention_dropout: Optional[float] = None
    embedding_dropout: Optional[float] = None
    sigma: float = 2.0
    gaussian: bool = True
    gaussian_mode: str = "multiply"
    directional: bool = True
    forward: bool = True
    centre: bool = True
    backward: bool = True
    hired: bool = True
    highway_in: bool = True
    highway_out: bool = True
    positions: bool = True
    fusion: str = "sum"
    layer_norm: str = "post"
    char_rows: int = 20000
    char_seeds: int = 1
    bigrams: bool = False
    bigram_rows: int = 100000
    bigram_width: int = 64
    biaffine_width: int = 256
    lexicon_max_len: int = 0
    lexicon_dropout: float = 0.0

    def __post_init__(self) -> None:
        check_heads(self.width, self.n_heads)
        if self.depth < 1:
            raise ValueError(Errors.E002.format(depth=self.depth))
        if not (self.forward or self.centre or self.backward):
            raise ValueError(Errors.E003)
        if self.hired and self.depth < 2:
            raise ValueError(Errors.E004)
        if self.fusion not in ("sum", "gate"):
            raise ValueError(Errors.E005.format(fusion=self.fusion))
        if self.layer_norm not in ("post", "pre"):
            raise ValueError(Errors.E006.format(layer_norm=self.layer_norm))
        check_lexicon_max_len(self.lexicon_max_len)
        for name in ("dropout", "attention_dropout", "embedding_dropout", "lexicon_dropout"):
            check_rate(name, getattr(self, name))
        if self.gaussian_mode not in ("multiply", "bias"):
            raise ValueError(Errors.E052.format(mode=self.gaussian_mode))
        if self.sigma <= 0:
            raise ValueError(Errors.E007.format(sigma=self.sigma))
        if self.char_rows < 1 or self.char_seeds < 1:
            raise ValueError(Errors.E008)

    @property
    def attention_dropout_rate(self) -> float:
        return self.dropout if self.attention_dropout is None else self.attention_dropout

    @property
    def embedding_dropout_rate(self) -> float:
        return self.dropout if self.embedding_dropout is None else self.embedding_dropout

    @property
    def n_lexicon_features(self) -> int:
        """Columns of the dictionary feature matrix (0 when off)."""
        return n_lexicon_features(self.lexicon_max_len)

    @property
    def hired_layer(self) -> int:
        """Number of front layers before the HiRED layer."""
        return self.depth // 2 if self.hired else self.depth

    @property
    def n_scores(self) -> int:
        """Score columns the net returns: the final scorer, then HiRED's
        (only with Highway-O, whose loss it feeds)."""
        return 2 if self.hired and self.highway_out else 1

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)
