"""The GD-Transformer encoder: three directional pipelines, HiRED with highways, fusion."""
from typing import Dict, Optional, Tuple

import torch
from torch import nn

from spacy_gdcws.nn.attention import (
    attention_mask,
    direction_mask,
    gaussian_weights,
    log_gaussian_weights,
)
from spacy_gdcws.nn.biaffine import BiaffineGapScorer
from spacy_gdcws.nn.config import PIPELINES, GDConfig
from spacy_gdcws.nn.encoded import Encoded
from spacy_gdcws.nn.encoder import Pipeline


def word_sum_pool(x: torch.Tensor, boundaries: torch.Tensor) -> torch.Tensor:
    """Give every character the sum of the vectors of the characters in its word.

    x (torch.Tensor): Character vectors (B, T, d).
    boundaries (torch.Tensor): Bool (B, T - 1), True where a word ends after char i.
    RETURNS (torch.Tensor): (B, T, d).
    """
    batch = x.shape[0]
    first = torch.zeros(batch, 1, dtype=torch.long, device=x.device)
    word_id = torch.cat([first, boundaries.long().cumsum(1)], dim=1)
    index = word_id.unsqueeze(-1).expand_as(x)
    sums = torch.zeros_like(x).scatter_add(1, index, x)
    return sums.gather(1, index)


class Fusion(nn.Module):
    """`v_f = r_f + r_c`, `v_b = r_b + r_c` (paper), or a sigmoid gate between them.

    A missing pipeline leaves the other side alone (e.g. no centre: `v_f = r_f`).
    """

    def __init__(self, width: int, mode: str) -> None:
        super().__init__()
        self.mode = mode
        if mode == "gate":
            self.gate_f = nn.Linear(2 * width, width)
            self.gate_b = nn.Linear(2 * width, width)

    def forward(self, reps: Dict[str, torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
        centre = reps.get("centre")
        v_f = self._combine(reps.get("forward"), centre, "gate_f")
        v_b = self._combine(reps.get("backward"), centre, "gate_b")
        return v_f, v_b

    def _combine(self, side: Optional[torch.Tensor], centre: Optional[torch.Tensor], gate: str) -> torch.Tensor:
        if side is None:
            assert centre is not None  # GDConfig guarantees one pipeline
            return centre
        if centre is None:
            return side
        if self.mode == "sum":
            return side + centre
        g = torch.sigmoid(getattr(self, gate)(torch.cat([side, centre], dim=-1)))
        return g * side + (1.0 - g) * centre


class GDEncoder(nn.Module):
    """Gaussian-masked directional encoder (Duan & Zhao 2020, sections 3.1-3.3).

    cfg (GDConfig): Dimensions and switches (the embedding fields are not used here).

    forward(emb, mask):
        emb (Tensor): (B, T, d) embeddings. mask (BoolTensor): (B, T), True for real characters.
        RETURNS (Encoded): the forward-side and backward-side fusions, and the
            HiRED scorer's gap logits with Highway-O.
    """

    def __init__(self, cfg: GDConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.width = cfg.width
        d = cfg.width
        pre_norm = cfg.layer_norm == "pre"
        # ModuleDict keys may not shadow nn.Module attributes ("forward"), hence the suffix
        self.encoders = nn.ModuleDict(
            {
                f"{name}_encoder": Pipeline(name, cfg.depth, d, cfg.n_heads, cfg.d_ff, cfg.dropout, pre_norm,
                                            attention_dropout=cfg.attention_dropout_rate,
                                            gaussian_bias=cfg.gaussian_mode == "bias")
                for name in PIPELINES
                if getattr(cfg, name)
            }
        )
        self.fusion = Fusion(d, cfg.fusion)
        if cfg.hired:
            self.hired_fusion = Fusion(d, cfg.fusion)
            self.hired_scorer = BiaffineGapScorer(d, cfg.biaffine_width)
            self.hired_proj = nn.Linear(d, d)

    @property
    def has_aux(self) -> bool:
        """Whether the output carries the HiRED scorer's logits (HiRED with Highway-O)."""
        return self.cfg.hired and self.cfg.highway_out

    @property
    def pipelines(self) -> Dict[str, Pipeline]:
        """The enabled pipelines by direction name."""
        return {pipe.direction: pipe for pipe in self.encoders.values()}

    def forward(self, emb: torch.Tensor, mask: torch.Tensor) -> Encoded:
        cfg = self.cfg
        length = emb.shape[1]
        device = emb.device
        pipelines = self.pipelines
        gauss = None
        if cfg.gaussian:
            weights = log_gaussian_weights if cfg.gaussian_mode == "bias" else gaussian_weights
            gauss = weights(length, cfg.sigma, device)
        masks = {
            name: attention_mask(mask, direction_mask(length, name if cfg.directional else "centre", device))
            for name in pipelines
        }
        front = cfg.hired_layer
        reps = {name: pipe(emb, masks[name], gauss, 0, front) for name, pipe in pipelines.items()}
        aux = None
        if cfg.hired:
            readout = {name: pipelines[name].readout(h) for name, h in reps.items()}
            hired_scores = self.hired_scorer(*self.hired_fusion(readout))
            # padded gaps count as boundaries, so padding never joins a real word
            pad_gap = ~(mask[:, :-1] & mask[:, 1:])
            boundaries = (hired_scores.detach() > 0) | pad_gap
            keep = mask.unsqueeze(-1).to(emb.dtype)
            for name, h in reps.items():
                enhanced = h + self.hired_proj(word_sum_pool(h * keep, boundaries))
                if cfg.highway_in:
                    enhanced = enhanced + emb
                reps[name] = pipelines[name](enhanced, masks[name], gauss, front, None)
            if cfg.highway_out:
                aux = hired_scores
        readout = {name: pipelines[name].readout(h) for name, h in reps.items()}
        v_f, v_b = self.fusion(readout)
        return Encoded(v_f, v_b, aux)
