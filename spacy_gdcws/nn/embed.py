"""The character embedding layer shared by every encoder (`embed` in `embed >> encoder >> scorer`)."""
import math
from typing import Any, Dict, Mapping, Optional, Tuple

import torch
from torch import nn
from torch.nn import functional

from spacy_gdcws.errors import Errors
from spacy_gdcws.nn.dropout import Dropout


def sinusoidal_positions(length: int, width: int, device: torch.device) -> torch.Tensor:
    """Sinusoidal position encodings (Vaswani et al. 2017), shape (T, d)."""
    pos = torch.arange(length, device=device, dtype=torch.float32)[:, None]
    freq = torch.exp(torch.arange(0, width, 2, device=device, dtype=torch.float32) * (-math.log(10000.0) / width))
    table = torch.zeros(length, width, device=device)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq)[:, : width // 2]
    return table


class CharEmbedding(nn.Module):
    """Hashed character (+ bigram, + dictionary, + pretrained vector) embeddings.

    Inputs are row ids computed outside the module (`spacy_gdcws.data.features`),
    so the module has no vocabulary: every character, seen or not, gets a vector.

    width (int): Output width d.
    char_rows (int): Rows of the hashed character table.
    bigrams (bool): Add hashed bigram embeddings (both bigrams around each
        character, concatenated and projected to d).
    bigram_rows, bigram_width (int): The bigram table.
    n_lexicon_features (int): Columns of the dictionary features (0 = off).
    lexicon_dropout (float): In training, each dictionary match is hidden
        with this probability.
    positions (bool): Scale the character embedding by sqrt(d) and add
        sinusoidal positions (the GD-Transformer's reference code); for
        attention encoders, which see no order otherwise.
    dropout (float): Dropout on the summed embedding.
    vectors_width (int): Width of a pretrained vectors table (`nlp.vocab.vectors`,
        copied in by `set_vectors`; frozen, projected to d); 0 = off.

    forward(chars, bigrams, lexicon=None, vectors=None):
        chars (LongTensor): (B, T, seeds) hashed character rows (summed over seeds).
        bigrams (Optional[LongTensor]): (B, T + 1, seeds); entry i is the bigram (c[i-1], c[i]).
        lexicon (Optional[Tensor]): (B, T, F) dictionary features.
        vectors (Optional[LongTensor]): (B, T) rows of the vectors table, -1 = none.
        RETURNS (Tensor): (B, T, d).
    """

    def __init__(self, width: int, char_rows: int, bigrams: bool, bigram_rows: int, bigram_width: int,
                 n_lexicon_features: int, lexicon_dropout: float, positions: bool, dropout: float,
                 vectors_width: int) -> None:
        super().__init__()
        self.width = width
        self.positions = positions
        self.lexicon_dropout = lexicon_dropout
        self.char_embed = nn.Embedding(char_rows, width)
        nn.init.normal_(self.char_embed.weight, std=width ** -0.5)
        self.use_bigrams = bigrams
        if bigrams:
            self.bigram_embed = nn.Embedding(bigram_rows, bigram_width)
            nn.init.normal_(self.bigram_embed.weight, std=bigram_width ** -0.5)
            self.bigram_proj = nn.Linear(2 * bigram_width, width)
        self.n_lexicon_features = n_lexicon_features
        if n_lexicon_features:
            self.lexicon_proj = nn.Linear(n_lexicon_features, width)
        self.vectors_width = vectors_width
        if vectors_width:
            # rows are set by `set_vectors` (and by loading: `_load_from_state_dict` resizes)
            self.register_buffer("vectors", torch.zeros(0, vectors_width))
            self.vectors_proj = nn.Linear(vectors_width, width)
        self.embed_dropout = Dropout(dropout)
        # featurization settings read by the thinc model (see `spacy_gdcws.ml`)
        self.features: Dict[str, Any] = {}
        # prediction's fused table (`_fused_table`): built from the weights on first use, not saved
        self._fused: Optional[Tuple[Tuple[int, ...], torch.Tensor]] = None

    def set_vectors(self, table: torch.Tensor) -> None:
        """Copy a pretrained vectors table (n, vectors_width) into the layer (frozen)."""
        if table.shape[1] != self.vectors_width:
            raise ValueError(Errors.E057.format(table_width=table.shape[1], width=self.vectors_width))
        self.vectors = table.detach().to(device=self.char_embed.weight.device, dtype=torch.float32).clone()

    def _load_from_state_dict(self, state_dict: Mapping[str, Any], prefix: str, *args: Any, **kwargs: Any) -> None:
        key = prefix + "vectors"
        if self.vectors_width and key in state_dict:
            self.vectors = torch.zeros_like(state_dict[key], device=self.char_embed.weight.device)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def forward(self, chars: torch.Tensor, bigrams: Optional[torch.Tensor],
                lexicon: Optional[torch.Tensor] = None, vectors: Optional[torch.Tensor] = None) -> torch.Tensor:
        # (an int8-quantised projection, `ml.precision`, is no nn.Linear and keeps the trained lookup)
        if self.use_bigrams and bigrams is not None and not self.positions and not self.training \
                and isinstance(self.bigram_proj, nn.Linear) and not torch.is_grad_enabled() and not torch.jit.is_tracing():
            emb = self._fused_lookup(chars, bigrams)
        else:
            emb = self._lookup(chars, bigrams)
        if self.n_lexicon_features:
            if lexicon is None:
                raise ValueError(Errors.E055)
            if self.training and self.lexicon_dropout > 0:
                keep = torch.rand_like(lexicon) >= self.lexicon_dropout
                lexicon = lexicon * keep
            emb = emb + self.lexicon_proj(lexicon.to(emb.dtype))
        if self.vectors_width:
            if vectors is None:
                raise ValueError(Errors.E056)
            found = (vectors >= 0).unsqueeze(-1)
            if len(self.vectors):
                rows = self.vectors[vectors.clamp(min=0, max=len(self.vectors) - 1)] * found
            else:
                rows = torch.zeros(vectors.shape + (self.vectors_width,), device=emb.device)
            emb = emb + self.vectors_proj(rows.to(emb.dtype))
        return self.embed_dropout(emb)

    def _lookup(self, chars: torch.Tensor, bigrams: Optional[torch.Tensor]) -> torch.Tensor:
        """The character and bigram terms, as trained."""
        emb = self.char_embed(chars).sum(dim=2)
        if self.positions:
            # the reference code scales embeddings by sqrt(d) before adding positions
            emb = emb * math.sqrt(self.width) + sinusoidal_positions(chars.shape[1], self.width, chars.device)
        if self.use_bigrams:
            if bigrams is None:
                raise ValueError(Errors.E010)
            big = self.bigram_embed(bigrams).sum(dim=2)
            emb = emb + self.bigram_proj(torch.cat([big[:, :-1], big[:, 1:]], dim=-1))
        return emb

    def _fused_lookup(self, chars: torch.Tensor, bigrams: torch.Tensor) -> torch.Tensor:
        """`_lookup` for prediction as one gather-and-sum: the bigram projection is
        linear, so each bigram row is projected once into a left and a right table
        beside the character table, and a character's terms are the sum of its
        rows (`embedding_bag`): no (B, T, seeds, d) intermediate, no concatenation,
        no matrix product per character. The same sums in another order (float
        rounding only)."""
        table = self._fused_table()
        batch, length, seeds = chars.shape
        n_chars, n_bigrams = self.char_embed.num_embeddings, self.bigram_embed.num_embeddings
        rows = torch.cat([chars, bigrams[:, :-1] + n_chars, bigrams[:, 1:] + (n_chars + n_bigrams)], dim=2)
        emb = functional.embedding_bag(rows.reshape(batch * length, 3 * seeds), table, mode="sum")
        return emb.view(batch, length, -1) + self.bigram_proj.bias

    def _fused_table(self) -> torch.Tensor:
        """[character rows; bigram rows projected as the left bigram; as the right one],
        rebuilt when any of the weights changed (an update, a load)."""
        weights = (self.char_embed.weight, self.bigram_embed.weight, self.bigram_proj.weight)
        key = tuple(x for w in weights for x in (w.data_ptr(), w._version))
        if self._fused is None or self._fused[0] != key:
            half = self.bigram_embed.embedding_dim
            device = self.char_embed.weight.device
            n_chars, n_bigrams = self.char_embed.num_embeddings, self.bigram_embed.num_embeddings
            self._fused = None  # the old table goes before the new one is made
            table = torch.empty(n_chars + 2 * n_bigrams, self.width, device=device)
            with torch.autocast(device_type=device.type, enabled=False):  # float32 whatever the caller's autocast
                projection = self.bigram_proj.weight.float()
                bigram = self.bigram_embed.weight.float()
                table[:n_chars] = self.char_embed.weight
                torch.matmul(bigram, projection[:, :half].T, out=table[n_chars : n_chars + n_bigrams])
                torch.matmul(bigram, projection[:, half:].T, out=table[n_chars + n_bigrams :])
            self._fused = (key, table)
        return self._fused[1]
