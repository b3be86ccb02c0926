"""Continuing a training run from a saved pipeline, on another machine or a later GPU loan (#50).

`spacy train` continues a run when its config sources the segmenter of the run's
`model-last` (spaCy's own `source`) and adds two things:

- `spacy_gdcws.resumed.v1` around the learning-rate schedule: the schedule as it
  stood after the saved run's updates (the segmenter counts them in its cfg,
  `updates`), not from its warm-up again;
- `spacy_gdcws.continue_training.v1` as `[initialize] after_init`: spaCy does not
  initialize a sourced component, and what a segmenter needs only in training
  (the training words' counts for leave-one-out, the blocks of block leave-out,
  the pseudo-words' sources, held-out priors) is rebuilt from the training corpus,
  never saved with a pipeline; without it, the continued run would train without
  them. The weights, n-gram vocabulary, dictionary and priors come from the
  saved pipeline.

The optimizer's moments and averages start afresh (spaCy saves none).
`docs/configs.md` has the config lines; `research/scripts/gpu_session.sh` uses
them to continue a run over several loans.
"""
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Union

import srsly
from spacy.language import Language
from spacy.util import dot_to_object, registry

from spacy_gdcws.errors import Errors

# the segmenter's cfg key counting its updates (saved with the pipeline)
UPDATES_KEY = "updates"


def saved_updates(path: Union[str, Path], component: str = "segmenter") -> int:
    """The updates a saved pipeline's segmenter was trained for (its cfg's `updates`); E016 where
    there is no such saved segmenter (a wrong path), E111 where it has no count."""
    cfg_path = Path(path) / component / "cfg"
    if not cfg_path.is_file():
        raise ValueError(Errors.E016.format(path=cfg_path, message="no saved segmenter here (is the path the "
                                            "run's model-last, and the segmenter named " + repr(component) + "?)"))
    try:
        cfg = srsly.read_json(cfg_path)
    except (OSError, ValueError):
        cfg = None
    if not isinstance(cfg, dict) or not isinstance(cfg.get(UPDATES_KEY), int):
        raise ValueError(Errors.E111.format(path=cfg_path))
    return cfg[UPDATES_KEY]


class ResumedSchedule:
    """An iterator over `schedule` from its `steps`-th value on (a class, not a
    generator, so that it pickles like `NoamSchedule`)."""

    def __init__(self, schedule: Iterable[float], steps: int) -> None:
        self.schedule = iter(schedule)
        self.steps = steps
        for _ in range(steps):
            next(self.schedule)

    def __iter__(self) -> Iterator[float]:
        return self

    def __next__(self) -> float:
        return next(self.schedule)


@registry.schedules("spacy_gdcws.resumed.v1")
def resumed(schedule: Iterable[float], steps: int = 0, model: Optional[str] = None,
            component: str = "segmenter") -> ResumedSchedule:
    """`schedule` where a run left it: after `steps` values, or, with `model`, after
    as many as the saved pipeline's `component` has been updated (`saved_updates`).

    Use around `[training.optimizer.learn_rate]` when sourcing a run's `model-last`.

    schedule (Iterable[float]): The run's schedule, as its config gives it.
    steps (int): Values to skip when `model` is not given.
    model (Optional[str]): A saved pipeline (the run's `model-last`).
    component (str): Its segmenter's name.
    RETURNS (ResumedSchedule): The rest of the schedule.
    """
    return ResumedSchedule(schedule, saved_updates(model, component) if model else steps)


def continue_sourced(nlp: Language) -> Language:
    """Rebuild the training-only state of every sourced, unfrozen segmenter from
    the config's training corpus (`GDSegmenter.continue_training`). A sourced segmenter is
    one that `initialize` did not reach (spaCy leaves sourced components out of it; its
    `training_ready` is False): `nlp.config` holds the source's settings for it, without the
    `source` key, so the config cannot tell (reading it found none, and a continued run trained
    without its state until E128 said so)."""
    config = nlp.config.interpolate()
    training = config["training"]
    frozen = set(training.get("frozen_components", []))
    names = [name for name, pipe in nlp.components
             if name not in frozen and hasattr(pipe, "continue_training") and not getattr(pipe, "training_ready", True)]
    if not names:
        return nlp
    resolved = registry.resolve({"corpora": config["corpora"]})
    corpus = dot_to_object({"corpora": resolved["corpora"]}, training["train_corpus"])
    for name in names:
        nlp.get_pipe(name).continue_training(lambda: corpus(nlp))
    return nlp


@registry.callbacks("spacy_gdcws.continue_training.v1")
def make_continue_training() -> Callable[[Language], Language]:
    """An `[initialize] after_init` callback for a run that sources a saved
    segmenter to train it further (`continue_sourced`)."""
    return continue_sourced
