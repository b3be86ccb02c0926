"""How a loaded pipeline computes: torch threads, and the precision of its segmenters."""
import os
from typing import Optional

from spacy.language import Language

from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.precision import PRECISIONS, set_model_precision
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


def set_precision(nlp: Language, precision: str = "saved") -> None:
    """Run every segmenter of the pipeline in `precision`: "saved" (as the pipeline's
    config says), "fp32", "bf16" (autocast, as `mixed_precision = true`) or "int8"
    (`ml.precision`: Linear layers; the pipeline can then not be saved until set to
    another precision). Each setting replaces the last whole. How often each changes
    the words of the fp32 model, and what it costs: docs/speed.md."""
    if precision not in PRECISIONS:
        raise ValueError(Errors.E094.format(precision=precision, options=", ".join(PRECISIONS)))
    for name in segmenter_names(nlp):
        set_model_precision(nlp.get_pipe(name).model, precision)


def quantize_segmenter(nlp: Language, name: Optional[str] = None) -> None:
    """Quantise the Linear layers of the pipeline's segmenter to int8, in place
    (`ml.precision`: it then predicts only).

    nlp (Language): A pipeline with a `gdcws_segmenter`.
    name (Optional[str]): The segmenter's name (default: the first one).
    """
    set_model_precision(nlp.get_pipe(find_segmenter(nlp, name)).model, "int8")
