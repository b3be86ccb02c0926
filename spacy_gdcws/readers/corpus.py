"""Sentences to docs, dev splits, and the registered corpus reader."""
import random
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Sequence, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry
from spacy.vocab import Vocab

from spacy_gdcws.errors import Errors
from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.readers.iob2 import read_iob2
from spacy_gdcws.readers.sighan import read_sighan
from spacy_gdcws.readers.wordpos import read_wordpos

FORMATS: Dict[str, Callable[[Union[str, Path]], Iterator[Sentence]]] = {
    "sighan": read_sighan,
    "conll": read_conll,
    "wordpos": read_wordpos,
    "iob2": read_iob2,
}
_SUFFIXES = {".conll": "conll", ".conllu": "conll", ".conllx": "conll", ".wordpos": "wordpos", ".iob2": "iob2"}


def detect_format(path: Union[str, Path], fmt: str = "auto") -> str:
    """The format name for a file: `fmt` itself, or from the suffix when "auto"
    (.conll/.conllu/.conllx, .wordpos, .iob2 (Universal NER's), anything else SIGHAN)."""
    if fmt == "auto":
        return _SUFFIXES.get(Path(path).suffix.lower(), "sighan")
    if fmt not in FORMATS:
        raise ValueError(Errors.E017.format(fmt=fmt, options=sorted(FORMATS)))
    return fmt


def read_sentences(path: Union[str, Path], fmt: str = "auto") -> Iterator[Sentence]:
    """Read a corpus file of any supported format."""
    return FORMATS[detect_format(path, fmt)](path)


#: the root's relation in a Doc, as spaCy's parsers and pipelines write it (UD's `root` in CoNLL-U)
ROOT = "ROOT"
#: where a reference doc names the treebank its sentence comes from (`Sentence.meta["treebank"]`,
#: set by `prepare`): its `user_data` key, kept by `DocBin(store_user_data=True)`
TREEBANK_KEY = ("spacy_gdcws", "treebank")
#: where a reference doc says its treebank is the one the parser parses in (`Sentence.meta["parse_in"]`,
#: set by `prepare` from the corpus's `CorpusSpec.parse_in`; read by `gdcws_parser`'s `initialize`)
PARSE_IN_KEY = ("spacy_gdcws", "parse_in")


def sentence_to_doc(vocab: Vocab, sent: Sentence) -> Doc:
    """A reference doc with explicit spaces (no space between Chinese words), the root's relation
    spaCy's `ROOT`.

    Without explicit `spaces` the doc would have unknown spaces and spaCy
    would feed the gold words, not characters, to the pipeline. The sentence's treebank (its
    `meta["treebank"]`), where it has one, goes to `doc.user_data[TREEBANK_KEY]`, and its mark as
    the treebank the parser parses in (`meta["parse_in"]`) to `doc.user_data[PARSE_IN_KEY]`. Its
    entities, where it has them (`meta["entities"]`: word spans, an IOB2 file's; or
    `meta["entity_chars"]`: character spans of the words joined, entities brought over from another
    release of the sentence, with `meta["entity_missing"]`, the character spans whose annotation
    did not come over), become `doc.ents`, every other token outside an entity: a doc with entity
    annotation, not one without.
    """
    deps = sent.deps
    if deps is not None and sent.heads is not None:
        deps = [ROOT if h == i else d for i, (d, h) in enumerate(zip(deps, sent.heads))]
    doc = Doc(
        vocab,
        words=sent.words,
        spaces=[False] * len(sent.words),
        tags=sent.tags,
        pos=sent.pos,
        heads=sent.heads,
        deps=deps,
    )
    if "treebank" in sent.meta:
        doc.user_data[TREEBANK_KEY] = str(sent.meta["treebank"])
    if sent.meta.get("parse_in"):
        doc.user_data[PARSE_IN_KEY] = True
    if "entities" in sent.meta:
        doc.set_ents([Span(doc, a, b, label) for a, b, label in sent.meta["entities"]], default="outside")
    elif "entity_chars" in sent.meta:
        ents = [(doc.char_span(a, b, label), (a, b)) for a, b, label in sent.meta["entity_chars"]]
        # an entity off these words (another segmentation of the same text) is missing here
        spans = list(sent.meta.get("entity_missing", ())) + [chars for span, chars in ents if span is None]
        missing = [doc.char_span(a, b, alignment_mode="expand") for a, b in spans]
        doc.set_ents([span for span, _ in ents if span is not None],
                     missing=[span for span in missing if span is not None], default="outside")
    return doc


def split_dev(
    sentences: Sequence[Sentence], fraction: float = 0.1, mode: str = "last", seed: int = 0
) -> Tuple[List[Sentence], List[Sentence]]:
    """Split off dev sentences: the last `fraction` of the file (the paper's
    convention) or, with mode="random", a seeded random sample.

    RETURNS (Tuple[List[Sentence], List[Sentence]]): train, dev (file order kept).
    """
    if not 0.0 <= fraction < 1.0:
        raise ValueError(Errors.E018.format(value=fraction))
    sentences = list(sentences)
    n_dev = int(round(len(sentences) * fraction))
    if n_dev == 0:
        return sentences, []
    if mode == "last":
        return sentences[: len(sentences) - n_dev], sentences[len(sentences) - n_dev :]
    if mode == "random":
        dev_ids = set(random.Random(seed).sample(range(len(sentences)), n_dev))
        train = [s for i, s in enumerate(sentences) if i not in dev_ids]
        dev = [s for i, s in enumerate(sentences) if i in dev_ids]
        return train, dev
    raise ValueError(Errors.E017.format(fmt=mode, options=["last", "random"]))


@registry.readers("spacy_gdcws.Corpus.v1")
def create_corpus_reader(
    path: Path,
    format: str = "auto",
    part: str = "all",
    dev_fraction: float = 0.1,
    split: str = "last",
    seed: int = 0,
    limit: int = 0,
) -> Callable[[Language], Iterable[Example]]:
    """Read a corpus file directly (no DocBin), as `[corpora.train]` etc.

    path (Path): The corpus file.
    format (str): "auto", "sighan", "conll" or "wordpos".
    part (str): "train", "dev" (split off with `dev_fraction`/`split`/`seed`) or "all".
    limit (int): Use at most this many sentences of the part (0 = all).
    """
    return _CorpusReader(Path(path), format, part, dev_fraction, split, seed, limit)


class _CorpusReader:
    """Picklable reader object behind `spacy_gdcws.Corpus.v1`."""

    def __init__(self, path: Path, fmt: str, part: str, fraction: float, split: str, seed: int, limit: int) -> None:
        if part not in ("train", "dev", "all"):
            raise ValueError(Errors.E017.format(fmt=part, options=["train", "dev", "all"]))
        self.path, self.fmt, self.part = path, detect_format(path, fmt), part
        self.fraction, self.split, self.seed, self.limit = fraction, split, seed, limit

    def __call__(self, nlp: Language) -> Iterator[Example]:
        sentences = list(read_sentences(self.path, self.fmt))
        if self.part != "all":
            train, dev = split_dev(sentences, self.fraction, self.split, self.seed)
            sentences = train if self.part == "train" else dev
        if self.limit:
            sentences = sentences[: self.limit]
        for sent in sentences:
            reference = sentence_to_doc(nlp.vocab, sent)
            yield Example(nlp.make_doc(reference.text), reference)
