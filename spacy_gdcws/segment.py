"""Segment lines of text with a pipeline, keeping every line."""
import sys
from pathlib import Path
from typing import IO, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch

from spacy_gdcws.errors import Errors
from spacy_gdcws.pipeline.segmenter import GDSegmenter
from spacy_gdcws.readers.base import iter_lines, read_lines


def doc_words(doc: Doc) -> List[str]:
    """The words of a doc, whitespace tokens left out."""
    return [t.text for t in doc if not t.is_space]


def iter_text_lines(path: Optional[Union[str, Path]]) -> Iterator[str]:
    """The lines of a UTF-8 file (or stdin for None / "-"), read as a stream, BOM
    and line ends (LF or CRLF) removed; empty lines kept. A line that is not
    UTF-8 raises with its file and line number."""
    if path is None or str(path) == "-":
        return (text for _, text in iter_lines(sys.stdin.buffer, "<stdin>"))
    return (text for _, text in read_lines(path))


def read_text_lines(path: Optional[Union[str, Path]]) -> List[str]:
    """All lines of a UTF-8 file (or stdin), as `iter_text_lines`."""
    return list(iter_text_lines(path))


def set_threads(threads: Optional[int] = None, n_process: int = 1) -> int:
    """Set torch's intra-op threads for segmenting: `threads`, or by default the CPU cores this
    process may use divided among `n_process` processes (at least 1), so that processes times
    threads never exceed the cores (measured in docs/speed.md). RETURNS the number set."""
    import os

    import torch

    if threads is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        threads = max(1, cores // max(1, n_process))
    torch.set_num_threads(threads)
    return threads


PRECISIONS = ("saved", "fp32", "bf16", "int8")


def set_precision(nlp: Language, precision: str = "saved") -> None:
    """Run every segmenter of the pipeline in `precision`: "saved" (as the pipeline
    was saved), "fp32", "bf16" (autocast, as `mixed_precision = true`) or "int8"
    (`ml.quantize`: Linear layers; the pipeline can then not be saved). How often
    each changes the words of the fp32 model, and what it costs: docs/speed.md."""
    from spacy_gdcws.ml.quantize import quantize_segmenter
    from spacy_gdcws.ml.shims import InPlacePyTorchShim

    if precision not in PRECISIONS:
        raise ValueError(Errors.E094.format(precision=precision, options=", ".join(PRECISIONS)))
    for name in segmenter_names(nlp):
        if precision == "int8":
            quantize_segmenter(nlp, name)
        elif precision in ("fp32", "bf16"):
            for node in nlp.get_pipe(name).model.walk():
                for shim in node.shims:
                    if isinstance(shim, InPlacePyTorchShim):
                        shim._mixed_precision = precision == "bf16"


def segment_lines(nlp: Language, lines: Iterable[str], batch_size: int = 256, n_process: int = 1) -> Iterator[Doc]:
    """One doc per line, in order (empty lines give empty docs)."""
    return nlp.pipe(lines, batch_size=batch_size, n_process=n_process)


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


def segment_texts(nlp: Language, texts: Iterable[str], batch_size: int = 256,
                  component: Optional[str] = None) -> Iterator[List[str]]:
    """Raw segmentation: the words of each text (whitespace left out), without
    merging tokens in a `Doc` and without running any other component.

    The words are exactly those `nlp(text)` would give: the same character
    docs, scores, threshold and forced boundaries; only the retokenization is
    replaced by string slicing.

    nlp (Language): A pipeline with a `gdcws_segmenter`.
    texts (Iterable[str]): The texts.
    batch_size (int): Texts per call of the model.
    component (Optional[str]): Name of the segmenter (default: the first one).
    YIELDS (List[str]): The words of each text, in order.
    """
    segmenter = nlp.get_pipe(find_segmenter(nlp, component))
    for batch in minibatch(texts, size=batch_size):
        docs = [nlp.make_doc(text) for text in batch]
        yield from segmenter.segmented_words(docs, segmenter.predict(docs))


def split_dict_spec(spec: Union[str, Path], default_mode: str = "force") -> Tuple[str, str]:
    """`PATH` or `PATH:MODE` (a `--user-dict` value) -> (path, mode)."""
    from spacy_gdcws.decoding.user_dict import WORD_MODES

    head, sep, tail = str(spec).rpartition(":")
    if sep and head and tail in WORD_MODES:
        return head, tail
    return str(spec), default_mode


def load_user_dicts(nlp: Language, specs: Sequence[Union[str, Path]], default_mode: str = "force") -> int:
    """Load user dictionary files (`PATH` or `PATH:MODE`, any format of
    `decoding.user_dict.read_user_dict`) into the pipeline's segmenter, each
    file whole in one table build. RETURNS the number of entries."""
    segmenter = nlp.get_pipe(find_segmenter(nlp))
    return sum(segmenter.load_user_dict(*split_dict_spec(spec, default_mode)) for spec in specs)


def write_segmented(docs: Iterable[Doc], out: IO[str], delimiter: str = "  ") -> int:
    """Write the words of each doc as one line; RETURNS the number of lines."""
    n = 0
    for doc in docs:
        out.write(delimiter.join(doc_words(doc)) + "\n")
        n += 1
    return n
