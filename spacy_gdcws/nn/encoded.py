"""What an encoder hands to a scorer (`embed >> encoder >> scorer`)."""
from typing import NamedTuple, Optional

import torch


class Encoded(NamedTuple):
    """An encoder's output for a padded batch.

    left (Tensor): (B, T, d), the vector of each character as the left side
        of the gap after it (the GD-Transformer: the forward-side fusion).
    right (Tensor): (B, T, d), as the right side of the gap before it (the
        backward-side fusion). Encoders with one stream give the same tensor twice.
    aux (Optional[Tensor]): (B, T - 1) extra gap logits whose loss is added in
        training (the GD-Transformer's HiRED scorer with Highway-O), or None.
    """

    left: torch.Tensor
    right: torch.Tensor
    aux: Optional[torch.Tensor] = None

    @property
    def joint(self) -> torch.Tensor:
        """One vector per character, for per-character scorers (the CRF tagger)."""
        return self.left if self.right is self.left else self.left + self.right
