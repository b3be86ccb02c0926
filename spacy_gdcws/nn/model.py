"""The composed segmentation net (`embed >> encoder >> scorer`); the GD-Transformer of one `GDConfig`
(`GDTransformerNet`, which saved pipelines load) is in the legacy wing, `spacy_gdcws.legacy.net`."""
from typing import Optional

import torch
from torch import nn

from spacy_gdcws.nn.config import check_widths


class SegmentationNet(nn.Module):
    """`head(encoder(embed(...), mask))`: one torch module for one thinc wrapper.

    embed (nn.Module): A `CharEmbedding` (or anything with its forward).
    encoder (nn.Module): `(emb (B, T, d), mask (B, T)) -> Encoded`, with a `width`.
    head (nn.Module): `Encoded -> scores`, with a `kind` ("gaps" or "tags").

    forward(chars, bigrams, mask, lexicon=None, vectors=None):
        RETURNS (Tensor): the head's scores for the padded batch.
    """

    def __init__(self, embed: nn.Module, encoder: nn.Module, head: nn.Module) -> None:
        super().__init__()
        for inner, outer, what in ((embed, encoder, "embed and encoder"), (encoder, head, "encoder and scorer")):
            check_widths(what, getattr(inner, "width", None), getattr(outer, "width", None))
        self.embed = embed
        self.encoder = encoder
        self.head = head

    @property
    def kind(self) -> str:
        return self.head.kind

    def forward(self, chars: torch.Tensor, bigrams: Optional[torch.Tensor], mask: torch.Tensor,
                lexicon: Optional[torch.Tensor] = None, vectors: Optional[torch.Tensor] = None) -> torch.Tensor:
        emb = self.embed(chars, bigrams, lexicon, vectors)
        return self.head(self.encoder(emb, mask))
