"""Segment lines of text with a pipeline, keeping every line."""
import sys
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, List, Optional, Set, Tuple

import spacy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch

from spacy_gdcws.app.pieces import PIECE_CHARS, line_pieces
from spacy_gdcws.errors import Errors
from spacy_gdcws.pipeline.names import find_segmenter, segmenter_names
from spacy_gdcws.pipeline.serialize import leaving_out, seal_pipeline
from spacy_gdcws.pipeline.subwords import search_words

# the package README command 1 builds and installs
PACKAGE = "zh_gdcws"
MAKE_PACKAGE = (" `zh_gdcws` is made and installed by the project's main job: in a clone of spacy-gdcws, "
                "`python -m spacy project run all` (README, command 1).")


def load_pipeline(model: str, words_only: bool = False, **kwargs: Any) -> Language:
    """`spacy.load(model)` for segmenting text: a name that is neither an installed package
    nor a folder is E102 (for `zh_gdcws`, with the command that makes it), and no line is too
    long (`nlp.max_length`: the segmenter is linear in a line's length). `words_only`: the
    components after the last segmenter (tagger, parser) are not loaded at all (excluded, so a
    damaged one does not stop a command that writes or scores words), or, where the pipeline's
    config cannot be read first, disabled."""
    if not (model.startswith("blank:") or Path(model).exists() or spacy.util.is_package(model)):
        raise ValueError(Errors.E102.format(model=model, hint=MAKE_PACKAGE if model == PACKAGE else ""))
    if words_only and "exclude" not in kwargs:
        kwargs["exclude"] = after_last_segmenter(model) or []
    with leaving_out(kwargs.get("exclude", ())):
        try:
            nlp = spacy.load(model, **kwargs)
        except ValueError as err:
            raise damaged_file(model, err) from None
    nlp.max_length = sys.maxsize
    if words_only:
        keep_words_only(nlp)
    return nlp


def damaged_file(model: str, err: ValueError) -> ValueError:
    """A coded error for a pipeline that fails to load: the error itself where it is coded (it names
    its file), else E136 naming the first of the pipeline's JSON files that cannot be read (srsly's
    own error names none: a damaged vocab/strings.json)."""
    import srsly

    text = str(err.args[0]) if err.args else str(err)
    if text.startswith("[E"):
        return err
    path = Path(model)
    if not path.exists() and spacy.util.is_package(model):
        package = spacy.util.get_package_path(model)
        path = next((p for p in package.iterdir() if (p / "config.cfg").is_file()), package)
    for json_file in sorted(path.rglob("*.json")) if path.is_dir() else []:
        try:
            srsly.read_json(json_file)
        except ValueError as bad:
            return ValueError(Errors.E136.format(path=json_file, message=bad))
    return err


def after_last_segmenter(model: str) -> Optional[List[str]]:
    """The components after the last `gdcws_segmenter` of a saved pipeline (a folder or an
    installed package), read off its config.cfg ([] where it has no segmenter); None where the
    config cannot be read (no such pipeline: loading it says so)."""
    config = _saved_config(model)
    return None if config is None else _after_last_segmenter(config)


def _saved_config(model: str) -> Optional[Any]:
    """The config.cfg of a saved pipeline (a folder or an installed package), or None."""
    path = Path(model)
    if not path.exists() and spacy.util.is_package(model):
        package = spacy.util.get_package_path(model)
        path = next((p for p in package.iterdir() if (p / "config.cfg").is_file()), package)
    try:
        return spacy.util.load_config(path / "config.cfg", interpolate=False)
    except (OSError, ValueError):
        return None


def _after_last_segmenter(config: Any) -> List[str]:
    pipeline = list(config["nlp"]["pipeline"])
    segmenters = [i for i, name in enumerate(pipeline)
                  if config["components"].get(name, {}).get("factory") == "gdcws_segmenter"]
    return pipeline[segmenters[-1] + 1:] if segmenters else []


def save_pipeline(nlp: Language, output: Path) -> None:
    """`nlp.to_disk(output)`, then the whole folder sealed (`pipeline.serialize.seal_pipeline`):
    each file's checksum, checked when its segmenter loads."""
    output.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(output)
    seal_pipeline(output)


def keep_words_only(nlp: Language) -> List[str]:
    """Disable the components after the pipeline's last segmenter (what
    `spacy.load(name, enable=["segmenter"])` gives for the main job's package); returns
    their names. A pipeline without a segmenter is left as it is."""
    names = segmenter_names(nlp)
    if not names:
        return []
    after = nlp.pipe_names[nlp.pipe_names.index(names[-1]) + 1:]
    for name in after:
        nlp.disable_pipe(name)
    return after


def set_granularity(nlp: Language, granularity: Optional[str]) -> None:
    """Set the segmenter's granularity, "fine" or "coarse" (E107 otherwise), in its config
    too, so that `nlp.to_disk` saves it; None keeps the pipeline's."""
    if granularity is not None:
        name = find_segmenter(nlp)
        nlp.get_pipe(name).granularity = granularity
        nlp.get_pipe_config(name)["granularity"] = granularity
from spacy_gdcws.pipeline.words import doc_words

Piece = Tuple[Doc, bool]  # a doc and whether it ends its line (`segment_lines`)


def segment_lines(nlp: Language, lines: Iterable[str], batch_size: int = 256, n_process: int = 1,
                  piece: int = PIECE_CHARS) -> Iterator[Piece]:
    """The docs of the lines, in order, each with whether it ends its line: one doc per line, or
    for a line longer than `piece` characters one per piece of it (`app.pieces`), streamed, so
    that what is held is bounded by the piece and the batch, not by the line. An empty line
    gives one empty doc."""
    pieces = ((text, last) for line in lines for text, last in _marked(line_pieces(line, piece)))
    yield from nlp.pipe(pieces, batch_size=batch_size, n_process=n_process, as_tuples=True)


def _marked(pieces: Iterator[str]) -> Iterator[Tuple[str, bool]]:
    """Each piece with whether it is its line's last."""
    previous = next(pieces)
    for piece in pieces:
        yield previous, False
        previous = piece
    yield previous, True


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
        yield from segmenter.segmented_words(segmenter.predict(docs))


FORMATS = ("words", "pos", "conllu")


def check_format(model: str, fmt: str) -> None:
    """E121 for a format not in `FORMATS`; E123 where `pos` needs a component that sets part-of-speech
    tags (`token.pos` or `token.tag`: `gdcws_parser`, spaCy's `tagger` or `morphologizer`) and the saved
    pipeline `model` has none enabled after its segmenter (a pipeline saved with its parser
    disabled has it in its config, but not running). `conllu` writes what the pipeline sets
    (`_` for tags and heads it does not)."""
    if fmt not in FORMATS:
        raise ValueError(Errors.E121.format(fmt=fmt, options=", ".join(FORMATS)))
    assigns = assigned_after_segmenter(model)
    if fmt == "pos" and assigns is not None and not assigns & {"token.pos", "token.tag"}:  # None: loading reports it
        raise ValueError(Errors.E123.format(model=model, fmt=fmt))


def assigned_after_segmenter(model: str) -> Optional[Set[str]]:
    """What the enabled components after the last `gdcws_segmenter` of a saved pipeline assign
    (their factories' `assigns`: `token.pos`, `token.dep`, ...), read off its config.cfg; None where
    the config cannot be read."""
    from spacy.language import Language

    config = _saved_config(model)
    if config is None:
        return None
    after = _after_last_segmenter(config)
    disabled = set(config["nlp"].get("disabled") or [])
    assigns: Set[str] = set()
    spacy.blank("xx")  # a pipeline's creation registers every factory of the entry points
    for name in after:
        factory = config["components"].get(name, {}).get("factory")
        if name in disabled or not factory:
            continue
        if Language.has_factory(factory):  # else an unknown factory: loading the pipeline reports it
            assigns.update(Language.get_factory_meta(factory).assigns)
    return assigns


def _write_lines(pieces: Iterable[Piece], out: IO[str], delimiter: str, items: Callable[[Doc], Iterable[str]]) -> int:
    """Write the items of each line's pieces joined by `delimiter`, one output line per input
    line, as the pieces come; RETURNS the number of lines."""
    n, first = 0, True
    for doc, last in pieces:
        for item in items(doc):
            out.write(item if first else delimiter + item)
            first = False
        if last:
            out.write("\n")
            n, first = n + 1, True
    return n


def write_tagged(pieces: Iterable[Piece], out: IO[str], delimiter: str = "  ", pos_sep: str = "/") -> int:
    """Write each line as one line of `word{pos_sep}UPOS` items (jieba's `-p`, pkuseg's `postag`);
    RETURNS the number of lines."""
    return _write_lines(pieces, out, delimiter, lambda doc: (f"{t.text}{pos_sep}{t.pos_}" for t in doc
                                                              if not t.is_space))


def write_segmented(pieces: Iterable[Piece], out: IO[str], delimiter: str = "  ", search: bool = False) -> int:
    """Write the words of each line as one line (`search`: each word's dictionary sub-words
    before it, as jieba's `cut_for_search`; the pipeline needs `gdcws_subwords`); RETURNS
    the number of lines."""
    return _write_lines(pieces, out, delimiter, search_words if search else doc_words)
