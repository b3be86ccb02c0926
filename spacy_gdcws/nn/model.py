"""The GD-Transformer: embeddings, three pipelines, HiRED, fusion, biaffine."""
import math
from typing import Dict, Optional, Tuple

import torch
from torch import nn

from .attention import attention_mask, direction_mask, gaussian_weights, log_gaussian_weights
from .biaffine import BiaffineGapScorer
from .config import PIPELINES, GDConfig
from .encoder import Pipeline


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


def sinusoidal_positions(length: int, width: int, device: torch.device) -> torch.Tensor:
    """Sinusoidal position encodings (Vaswani et al. 2017), shape (T, d)."""
    pos = torch.arange(length, device=device, dtype=torch.float32)[:, None]
    freq = torch.exp(torch.arange(0, width, 2, device=device, dtype=torch.float32) * (-math.log(10000.0) / width))
    table = torch.zeros(length, width, device=device)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq)[:, : width // 2]
    return table


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


class GDTransformerNet(nn.Module):
    """Gaussian-masked Directional Transformer for gap labelling.

    Inputs are hashed ids computed outside the module, so the module has no
    vocabulary: every character, seen or not, gets a vector.

    forward(chars, bigrams, mask, lexicon=None):
        chars (LongTensor): (B, T, char_seeds) hashed character rows.
        bigrams (Optional[LongTensor]): (B, T + 1, char_seeds) hashed bigram rows;
            entry i is the bigram (c[i-1], c[i]) with boundary symbols at both ends.
        mask (BoolTensor): (B, T), True for real characters.
        lexicon (Optional[Tensor]): (B, T, F) float dictionary features
            (`features.lexicon_features`), with `lexicon_max_len`.
        RETURNS (Tensor): gap logits (B, T - 1, n_scores); column 0 is the
            final scorer, column 1 (with HiRED and Highway-O) the HiRED scorer.
    """

    def __init__(self, cfg: GDConfig) -> None:
        super().__init__()
        self.cfg = cfg
        d = cfg.width
        self.char_embed = nn.Embedding(cfg.char_rows, d)
        nn.init.normal_(self.char_embed.weight, std=d ** -0.5)
        if cfg.bigrams:
            self.bigram_embed = nn.Embedding(cfg.bigram_rows, cfg.bigram_width)
            nn.init.normal_(self.bigram_embed.weight, std=cfg.bigram_width ** -0.5)
            self.bigram_proj = nn.Linear(2 * cfg.bigram_width, d)
        if cfg.lexicon_max_len:
            self.lexicon_proj = nn.Linear(cfg.n_lexicon_features, d)
        self.embed_dropout = nn.Dropout(cfg.embedding_dropout_rate)
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
        self.scorer = BiaffineGapScorer(d, cfg.biaffine_width)
        if cfg.hired:
            self.hired_fusion = Fusion(d, cfg.fusion)
            self.hired_scorer = BiaffineGapScorer(d, cfg.biaffine_width)
            self.hired_proj = nn.Linear(d, d)

    def embed(self, chars: torch.Tensor, bigrams: Optional[torch.Tensor],
              lexicon: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Character (+ bigram, + dictionary) embeddings and positions, shape (B, T, d)."""
        cfg = self.cfg
        emb = self.char_embed(chars).sum(dim=2)
        if cfg.positions:
            # the reference code scales embeddings by sqrt(d) before adding positions
            emb = emb * math.sqrt(cfg.width) + sinusoidal_positions(chars.shape[1], cfg.width, chars.device)
        if cfg.bigrams:
            if bigrams is None:
                raise ValueError("[E010] this model uses bigram embeddings but no bigram ids were given")
            big = self.bigram_embed(bigrams).sum(dim=2)
            emb = emb + self.bigram_proj(torch.cat([big[:, :-1], big[:, 1:]], dim=-1))
        if cfg.lexicon_max_len:
            if lexicon is None:
                raise ValueError("[E010] this model uses dictionary features but none were given")
            if self.training and cfg.lexicon_dropout > 0:
                keep = torch.rand_like(lexicon) >= cfg.lexicon_dropout
                lexicon = lexicon * keep
            emb = emb + self.lexicon_proj(lexicon.to(emb.dtype))
        return self.embed_dropout(emb)

    @property
    def pipelines(self) -> Dict[str, Pipeline]:
        """The enabled pipelines by direction name."""
        return {pipe.direction: pipe for pipe in self.encoders.values()}

    def forward(self, chars: torch.Tensor, bigrams: Optional[torch.Tensor], mask: torch.Tensor,
                lexicon: Optional[torch.Tensor] = None) -> torch.Tensor:
        cfg = self.cfg
        length = chars.shape[1]
        device = chars.device
        pipelines = self.pipelines
        gauss = None
        if cfg.gaussian:
            weights = log_gaussian_weights if cfg.gaussian_mode == "bias" else gaussian_weights
            gauss = weights(length, cfg.sigma, device)
        masks = {
            name: attention_mask(mask, direction_mask(length, name if cfg.directional else "centre", device))
            for name in pipelines
        }
        emb = self.embed(chars, bigrams, lexicon)
        front = cfg.hired_layer
        reps = {name: pipe(emb, masks[name], gauss, 0, front) for name, pipe in pipelines.items()}
        columns = []
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
                columns.append(hired_scores)
        readout = {name: pipelines[name].readout(h) for name, h in reps.items()}
        columns.insert(0, self.scorer(*self.fusion(readout)))
        return torch.stack(columns, dim=-1)
