"""The paper's learning-rate schedule (Vaswani et al. 2017, "Noam")."""
from typing import Iterator

from thinc.api import registry

from spacy_gdcws.errors import Errors


class NoamSchedule:
    """Iterator over `scale * d^-0.5 * min(step^-0.5, step * warmup^-1.5)`, step = 1, 2, ...

    A class rather than a generator so that it can be pickled.
    """

    def __init__(self, width: int, warmup: int, scale: float = 1.0) -> None:
        if warmup <= 0:
            raise ValueError(Errors.E021.format(warmup=warmup))
        self.width = width
        self.warmup = warmup
        self.scale = scale
        self.step = 0

    def rate(self, step: int) -> float:
        step = max(step, 1)
        return self.scale * self.width ** -0.5 * min(step ** -0.5, step * self.warmup ** -1.5)

    def __iter__(self) -> Iterator[float]:
        return self

    def __next__(self) -> float:
        self.step += 1
        return self.rate(self.step)


@registry.schedules("spacy_gdcws.noam.v1")
def noam(width: int, warmup: int = 8000, scale: float = 1.0) -> NoamSchedule:
    """The paper's schedule: linear warm-up, then inverse square-root decay.

    Use in `[training.optimizer.learn_rate]`.

    width (int): Model dimension d.
    warmup (int): Warm-up steps (the paper: 8000).
    scale (float): Multiplier on the whole schedule.
    RETURNS (NoamSchedule): An endless iterator of learning rates.
    """
    return NoamSchedule(width, warmup, scale)
