"""`spacy_gdcws.GDEnsemble.v1`: the average of the scores of several segmentation
models trained on the same data (built from trained pipelines by
`app.ensemble.build_ensemble`). The ensemble predicts only; inference costs as
many forward passes as there are members.
"""
from typing import Any, List, Tuple

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.state import ENSEMBLE_ATTR


@registry.architectures("spacy_gdcws.GDEnsemble.v1")
def build_gd_ensemble(*members: Model[List[Doc], List[Floats2d]]) -> Model[List[Doc], List[Floats2d]]:
    """The average of the members' gap logits (every column: the final and the
    HiRED scorer). Members are `spacy_gdcws.GDTransformer` models, given in the
    config as `[components.NAME.model.*.member0]`, `...member1`, ...; built by
    `build_ensemble` from trained pipelines. Predicts only (E036 in training).
    """
    if len(members) < 2:
        raise ValueError(Errors.E035.format(n=len(members)))
    return Model("gd_ensemble", _ensemble_forward, layers=list(members), attrs={ENSEMBLE_ATTR: True})


def _ensemble_forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], Any]:
    if is_train:
        raise ValueError(Errors.E036)
    outputs = [member.predict(docs) for member in model.layers]
    # on the host, float32, like each member's output (also with a GPU)
    averaged = [numpy.mean([numpy.asarray(out[i]) for out in outputs], axis=0).astype(numpy.float32)
                for i in range(len(docs))]
    return averaged, _predict_only


def _predict_only(_: Any) -> Any:
    raise ValueError(Errors.E036)
