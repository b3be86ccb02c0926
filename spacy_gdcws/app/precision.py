"""How a loaded pipeline computes: torch threads, and the precision of its segmenters and parsers."""
import os
from typing import List, Optional, Sequence

from spacy.language import Language

from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.precision import PRECISIONS, set_model_precision
from spacy_gdcws.parse.component import BiaffineParser
from spacy_gdcws.pipeline.names import find_segmenter, segmenter_names


def set_threads(threads: Optional[int] = None, n_process: int = 1) -> int:
    """Set torch's intra-op threads for segmenting: `threads`, or by default the CPU cores this
    process may use divided among `n_process` processes (at least 1), so that processes times
    threads never exceed the cores (measured in docs/speed.md). RETURNS the number set."""
    import torch

    if threads is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        threads = max(1, cores // max(1, n_process))
    torch.set_num_threads(threads)
    return threads


def set_precision(nlp: Language, precision: str = "saved", components: Optional[Sequence[str]] = None) -> None:
    """Run the pipeline's segmenters and parsers in `precision`: "saved" (as the pipeline's
    config says), "fp32", "bf16" (autocast, as `mixed_precision = true`) or "int8"
    (`ml.precision`: Linear and LSTM layers; the pipeline can then not be saved until set to
    another precision). Each setting replaces the last whole. How often each changes
    the words, tags and trees of the fp32 model, and what it costs: docs/speed.md.

    components (Optional[Sequence[str]]): Only these (default: every `gdcws_segmenter` and
        `gdcws_parser`), e.g. `["parser"]` for an int8 parser after float words (a name
        that is neither: E137).
    """
    if precision not in PRECISIONS:
        raise ValueError(Errors.E094.format(precision=precision, options=", ".join(PRECISIONS)))
    names = precision_components(nlp)
    if components is not None:
        unknown = [name for name in components if name not in names]
        if unknown:
            raise ValueError(Errors.E137.format(names=", ".join(unknown), options=", ".join(names)))
        names = [name for name in names if name in components]
    for name in names:
        set_model_precision(nlp.get_pipe(name).model, precision)


def precision_components(nlp: Language) -> List[str]:
    """The components whose precision `set_precision` sets: every segmenter and `gdcws_parser`."""
    parsers = {name for name, pipe in nlp.pipeline if isinstance(pipe, BiaffineParser)}
    segmenters = set(segmenter_names(nlp))
    return [name for name in nlp.pipe_names if name in segmenters or name in parsers]


def quantize_segmenter(nlp: Language, name: Optional[str] = None) -> None:
    """Quantise the Linear layers of the pipeline's segmenter to int8, in place
    (`ml.precision`: it then predicts only).

    nlp (Language): A pipeline with a `gdcws_segmenter`.
    name (Optional[str]): The segmenter's name (default: the first one).
    """
    set_model_precision(nlp.get_pipe(find_segmenter(nlp, name)).model, "int8")
