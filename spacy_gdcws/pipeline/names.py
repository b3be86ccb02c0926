"""Finding the `gdcws_segmenter` components of a pipeline."""
from typing import List, Optional

from spacy.language import Language

from spacy_gdcws.errors import Errors
from spacy_gdcws.pipeline.segmenter import GDSegmenter


def segmenter_names(nlp: Language) -> List[str]:
    """The names of the pipeline's `gdcws_segmenter` components, in pipeline order."""
    return [name for name, pipe in nlp.pipeline if isinstance(pipe, GDSegmenter)]


def find_segmenter(nlp: Language, name: Optional[str] = None) -> str:
    """The name of the pipeline's `gdcws_segmenter`: `name` if given (checked),
    else the first component that is one. Raises E024 if there is none."""
    for pipe_name in segmenter_names(nlp):
        if name in (None, pipe_name):
            return pipe_name
    raise ValueError(Errors.E024.format(name=name or "(any)", names=nlp.pipe_names))
