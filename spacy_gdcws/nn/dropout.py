"""Dropout whose CPU mask costs a uniform draw, not a Bernoulli one.

`torch.nn.Dropout` on a CPU draws its mask with `bernoulli_`, one generator call
per element: on the 2-core machine about 2.3 ms for a `fast.cfg` batch's
embedding, a tenth of the model's own forward and backward (#50). A uniform
draw compared with the rate gives a mask of the same distribution at about a
third of the cost (`uniform_` fills in vectorized blocks). On a GPU, torch's
fused dropout kernel is used as it is.
"""
import torch
from torch import nn

from spacy_gdcws.errors import Errors


class Dropout(nn.Dropout):
    """`torch.nn.Dropout(p)` with the same distribution (each element kept with
    probability 1 - p and scaled by 1 / (1 - p) in training, the identity
    otherwise) and a cheaper mask on the CPU. A subclass with torch's own
    settings (`p`, `inplace`), so a saved model's fingerprint
    (`ml.fingerprint.model_fingerprint`) and weights are the same as with
    `torch.nn.Dropout` in its place: pipelines saved before it load unchanged.

    p (float): The probability of zeroing an element, 0 <= p < 1.
    """

    def __init__(self, p: float = 0.5) -> None:
        if not 0.0 <= p < 1.0:
            raise ValueError(Errors.E112.format(rate=p))
        super().__init__(p)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        if x.device.type != "cpu":
            return nn.functional.dropout(x, self.p, True)
        keep = torch.rand_like(x) >= self.p
        return x * keep.to(x.dtype).mul_(1.0 / (1.0 - self.p))
