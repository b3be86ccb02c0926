"""Segment lines of text with a pipeline, keeping every line; tag and parse words already given."""
import re
import sys
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, List, Optional, Set, Tuple, Union

import spacy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch

from spacy_gdcws.app.pieces import PIECE_CHARS, line_pieces
from spacy_gdcws.errors import Errors
from spacy_gdcws.pipeline.names import find_segmenter, segmenter_names
from spacy_gdcws.pipeline.serialize import damaged_json, leaving_out, seal_pipeline
from spacy_gdcws.pipeline.subwords import search_words
from spacy_gdcws.pipeline.words import doc_words, words_doc
from spacy_gdcws.readers.base import iter_text_lines

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
    """A coded error for a pipeline (a folder or an installed package) that fails to load
    (`pipeline.serialize.damaged_json` on its folder)."""
    path = Path(model)
    if not path.exists() and spacy.util.is_package(model):
        package = spacy.util.get_package_path(model)
        path = next((p for p in package.iterdir() if (p / "config.cfg").is_file()), package)
    return damaged_json(path, err)


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

Piece = Tuple[Doc, bool]  # a doc and whether it ends its line (`segment_lines`)


def segment_lines(nlp: Language, lines: Iterable[str], batch_size: int = 256, n_process: int = 1,
                  piece: int = PIECE_CHARS) -> Iterator[Piece]:
    """The docs of the lines, in order, each with whether it ends its line: one doc per line, or
    for a line longer than `piece` characters one per piece of it (`app.pieces`), streamed, so
    that what is held is bounded by the piece and the batch, not by the line. An empty line
    gives one empty doc."""
    pieces = ((text, last) for line in lines for text, last in _marked(line_pieces(line, piece)))
    yield from nlp.pipe(pieces, batch_size=batch_size, n_process=n_process, as_tuples=True)


#: what `segment` reads: text (the segmenter finds the words), words a line with whitespace between
#: them, or CoNLL-U's sentences (their words)
INPUT_FORMATS = ("text", "words", "conllu")


def input_pieces(nlp: Language, source: Optional[Union[str, Path]], input_format: str, batch_size: int = 256,
                 n_process: int = 1) -> Iterator[Piece]:
    """The analysed docs of an input (a file, or stdin for None / "-"), each ending its line: its
    lines of text (`segment_lines`), of words (each line's whitespace-separated words, its
    whitespace kept: `line_words_doc`), or its CoNLL-U sentences (`conllu_doc`): words the
    segmenter leaves as they are, which the components after it tag and parse. E121 for another
    format."""
    if input_format not in INPUT_FORMATS:
        raise ValueError(Errors.E121.format(fmt=input_format, options=", ".join(INPUT_FORMATS)))
    if input_format == "text":
        return segment_lines(nlp, iter_text_lines(source), batch_size, n_process)
    if input_format == "words":
        docs: Iterable[Doc] = (line_words_doc(nlp.vocab, line) for line in iter_text_lines(source))
    else:
        from spacy_gdcws.readers.conll import read_conll

        path = "/dev/stdin" if source is None or str(source) == "-" else source
        docs = (conllu_doc(nlp.vocab, sent) for sent in read_conll(path))
    return ((doc, True) for doc in nlp.pipe(docs, batch_size=batch_size, n_process=n_process))


def line_words_doc(vocab: Any, line: str) -> Doc:
    """A line of words separated by whitespace as a doc of those words (`words_doc`), its text the
    line's: one space after a word is its trailing space, any other whitespace a token of its own."""
    words: List[str] = []
    spaces: List[bool] = []
    for match in _WORDS_AND_SPACE.finditer(line):
        piece = match.group()
        if piece == " " and words and not words[-1].isspace():
            spaces[-1] = True
        else:
            words.append(piece)
            spaces.append(False)
    return words_doc(vocab, words, spaces)


def conllu_doc(vocab: Any, sent: Any) -> Doc:
    """A CoNLL-U sentence as a doc of its words (`words_doc`, one sentence as given), its text the
    sentence's `# text` where that spells its words, with its comment lines kept for the CoNLL-U
    writer (`eval.conllu.COMMENTS_KEY`)."""
    from spacy_gdcws.eval.conllu import COMMENTS_KEY
    from spacy_gdcws.readers.iob2 import text_spaces

    spaces = text_spaces(sent.words, sent.meta.get("text", "")) if "text" in sent.meta else None
    doc = words_doc(vocab, sent.words, spaces, one_sentence=True)
    doc.user_data[COMMENTS_KEY] = list(sent.meta.get("comments", []))
    return doc


_WORDS_AND_SPACE = re.compile(r"\S+|\s+")


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


FORMATS = ("words", "pos", "conllu", "iob2")


def check_format(model: str, fmt: str) -> None:
    """E121 for a format not in `FORMATS`; E123 where `pos` needs a component that sets part-of-speech
    tags (`token.pos` or `token.tag`: `gdcws_parser`, spaCy's `tagger` or `morphologizer`), E144
    where `iob2` needs one that sets entities (`doc.ents`: `gdcws_parser`, spaCy's `ner`), and the
    saved pipeline `model` has none enabled after its segmenter (a pipeline saved with its parser
    disabled has it in its config, but not running). `conllu` writes what the pipeline sets
    (`_` for tags and heads it does not)."""
    if fmt not in FORMATS:
        raise ValueError(Errors.E121.format(fmt=fmt, options=", ".join(FORMATS)))
    assigns = assigned_after_segmenter(model)
    if assigns is None:  # loading reports it
        return
    if fmt == "pos" and not assigns & {"token.pos", "token.tag"}:
        raise ValueError(Errors.E123.format(model=model, fmt=fmt))
    if fmt == "iob2" and "doc.ents" not in assigns:
        raise ValueError(Errors.E144.format(model=model, fmt=fmt))


def write_format(pieces: Iterable["Piece"], out: IO[str], fmt: str, delimiter: str = "  ", pos_sep: str = "/",
                 search: bool = False, first_line: int = 1) -> int:
    """Write each line's pieces in `fmt` (`FORMATS`): its words (`write_segmented`), word/UPOS items
    (`write_tagged`), CoNLL-U blocks or Universal NER's IOB2 blocks (`eval.conllu`; their sentence
    ids number lines from `first_line`); what `segment` and `segment-corpus` write alike. RETURNS
    the number of lines."""
    from spacy_gdcws.eval.conllu import write_conllu, write_iob2

    if fmt == "pos":
        return write_tagged(pieces, out, delimiter, pos_sep)
    if fmt == "conllu":
        return write_conllu(pieces, out, first_line)
    if fmt == "iob2":
        return write_iob2(pieces, out, first_line)
    return write_segmented(pieces, out, delimiter, search)


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
