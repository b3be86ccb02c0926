"""Segment lines of text with a pipeline, keeping every line."""
import sys
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, List, Optional, Sequence

import spacy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch

from spacy_gdcws.app.pieces import PIECE_CHARS, line_pieces
from spacy_gdcws.errors import Errors
from spacy_gdcws.pipeline.names import find_segmenter, segmenter_names
from spacy_gdcws.pipeline.serialize import seal_pipeline
from spacy_gdcws.pipeline.subwords import search_words

# the package README command 1 builds and installs
PACKAGE = "zh_gdcws"
MAKE_PACKAGE = (" `zh_gdcws` is made and installed by the project's main job: in a clone of spacy-gdcws, "
                "`python -m spacy project run all` (README, command 1).")


def load_pipeline(model: str, words_only: bool = False, **kwargs: Any) -> Language:
    """`spacy.load(model)` for segmenting text: a name that is neither an installed package
    nor a folder is E102 (for `zh_gdcws`, with the command that makes it), and no line is too
    long (`nlp.max_length`: the segmenter is linear in a line's length). `words_only`: the
    components after the last segmenter (tagger, parser) are disabled, for commands that
    write or score words."""
    if not (model.startswith("blank:") or Path(model).exists() or spacy.util.is_package(model)):
        raise ValueError(Errors.E102.format(model=model, hint=MAKE_PACKAGE if model == PACKAGE else ""))
    nlp = spacy.load(model, **kwargs)
    nlp.max_length = sys.maxsize
    if words_only:
        keep_words_only(nlp)
    return nlp


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


def segment_lines(nlp: Language, lines: Iterable[str], batch_size: int = 256, n_process: int = 1,
                  piece: int = PIECE_CHARS) -> Iterator[List[Doc]]:
    """The docs of each line, in order: one doc per line, or for a line longer than `piece`
    characters one per piece of it (`app.pieces`: memory bounded by the piece, not the line).
    An empty line gives one empty doc."""
    pieces = ((text, number) for number, line in enumerate(lines) for text in line_pieces(line, piece))
    current, docs = 0, []
    for doc, number in nlp.pipe(pieces, batch_size=batch_size, n_process=n_process, as_tuples=True):
        if number != current:
            yield docs
            current, docs = number, []
        docs.append(doc)
    if docs:
        yield docs


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


FORMATS = ("words", "pos", "conllu")


Line = Sequence[Doc]  # the docs of one line, in order (`segment_lines`: one, or one per piece)


def write_tagged(lines: Iterable[Line], out: IO[str], delimiter: str = "  ", pos_sep: str = "/") -> int:
    """Write each line as one line of `word{pos_sep}UPOS` items (jieba's `-p`, pkuseg's `postag`);
    RETURNS the number of lines."""
    n = 0
    for docs in lines:
        out.write(delimiter.join(f"{t.text}{pos_sep}{t.pos_}" for doc in docs for t in doc if not t.is_space) + "\n")
        n += 1
    return n


def write_conllu(lines: Iterable[Line], out: IO[str]) -> int:
    """Write each line's sentences as CoNLL-U blocks (`# sent_id = LINE-K`, `# text`; ID, FORM,
    UPOS, XPOS, HEAD, DEPREL; `SpaceAfter=No` where no whitespace follows a word; whitespace
    tokens are left out, as CoNLL-U has no rows for them). An empty line writes no block.
    RETURNS the number of lines read."""
    n = 0
    for docs in lines:
        n += 1
        k = 0
        for d, doc in enumerate(docs):
            line_ends = d == len(docs) - 1  # a piece's last word runs on into the next piece
            for sent in doc.sents if doc.has_annotation("DEP") else [doc[:]]:
                words = [t for t in sent if not t.is_space]
                if not words:
                    continue
                k += 1
                ids = {t.i: j for j, t in enumerate(words, 1)}
                out.write(f"# sent_id = {n}-{k}\n# text = {sent.text.strip()}\n")
                for j, t in enumerate(words, 1):
                    head = 0 if t.head.i == t.i or t.head.i not in ids else ids[t.head.i]
                    following = doc[t.i + 1] if t.i + 1 < len(doc) else None
                    space = bool(t.whitespace_) or (following is not None and following.is_space)
                    misc = "_" if space or (following is None and line_ends) else "SpaceAfter=No"
                    out.write("\t".join([str(j), t.text, "_", t.pos_ or "_", t.tag_ or "_", "_", str(head),
                                         (t.dep_ or "_") if t.head.i != t.i else "root", "_", misc]) + "\n")
                out.write("\n")
    return n


def write_segmented(lines: Iterable[Line], out: IO[str], delimiter: str = "  ", search: bool = False) -> int:
    """Write the words of each line as one line (`search`: each word's dictionary sub-words
    before it, as jieba's `cut_for_search`; the pipeline needs `gdcws_subwords`); RETURNS
    the number of lines."""
    words = search_words if search else doc_words
    n = 0
    for docs in lines:
        out.write(delimiter.join(w for doc in docs for w in words(doc)) + "\n")
        n += 1
    return n
