"""Hyperparameters of the GD-Transformer, one frozen dataclass.

Every part the paper ablates (Tables 7-9) has its own switch here, so that an
ablation is a config change and never a code change.
"""
from dataclasses import dataclass, asdict
from typing import Any, Dict, Optional

PIPELINES = ("forward", "centre", "backward")


def check_lexicon_max_len(value: int) -> None:
    """E022 unless 0 (no dictionary features) or at least 2."""
    if value == 1 or value < 0:
        raise ValueError(f"[E022] lexicon_max_len must be 0 (off) or at least 2, got {value}")


def check_rate(name: str, rate: Optional[float]) -> None:
    """E051 unless a dropout rate in [0, 1) (None: unset, allowed)."""
    if rate is not None and not 0.0 <= rate < 1.0:
        raise ValueError(f"[E051] {name} must be in [0, 1), got {rate}")


def n_lexicon_features(lexicon_max_len: int) -> int:
    """Columns of the dictionary feature matrix: words of 2..max_len characters
    starting and ending at each character (0 when off)."""
    return 2 * (lexicon_max_len - 1) if lexicon_max_len else 0


@dataclass(frozen=True)
class GDConfig:
    """Dimensions and switches of `GDTransformerNet`.

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
        if self.width % self.n_heads != 0:
            raise ValueError(f"[E001] width ({self.width}) must be a multiple of n_heads ({self.n_heads})")
        if self.depth < 1:
            raise ValueError(f"[E002] depth must be at least 1, got {self.depth}")
        if not (self.forward or self.centre or self.backward):
            raise ValueError("[E003] at least one of the forward, centre and backward pipelines must be on")
        if self.hired and self.depth < 2:
            raise ValueError("[E004] the HiRED layer needs depth >= 2 (it sits after depth // 2 layers)")
        if self.fusion not in ("sum", "gate"):
            raise ValueError(f"[E005] fusion must be 'sum' or 'gate', got {self.fusion!r}")
        if self.layer_norm not in ("post", "pre"):
            raise ValueError(f"[E006] layer_norm must be 'post' or 'pre', got {self.layer_norm!r}")
        check_lexicon_max_len(self.lexicon_max_len)
        for name in ("dropout", "attention_dropout", "embedding_dropout", "lexicon_dropout"):
            check_rate(name, getattr(self, name))
        if self.gaussian_mode not in ("multiply", "bias"):
            raise ValueError(f"[E052] gaussian_mode must be 'multiply' or 'bias', got {self.gaussian_mode!r}")
        if self.sigma <= 0:
            raise ValueError(f"[E007] sigma must be positive, got {self.sigma}")
        if self.char_rows < 1 or self.char_seeds < 1:
            raise ValueError("[E008] char_rows and char_seeds must be positive")

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
