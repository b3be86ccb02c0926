"""Saving and loading the parser, as bytes or as a folder, through one path: the same parts (cfg,
lexicon, model, vocab), the same format and model fingerprint in cfg, the same checks on load. A
folder is written whole (beside the target, with checksums, then moved into place) and verified
on load: every file's checksum, then the model's structure against the one config.cfg builds
(sized by the saved labels), before any weight loads."""
from pathlib import Path
from typing import Any, Dict, Iterable, Protocol

import srsly
from spacy import util
from spacy.vocab import Vocab
from thinc.api import Model

from spacy_gdcws.data.features.words import WordLexicon
from spacy_gdcws.decoding.dictionary_files import read_entries, tagged_lexicon, text_lines
from spacy_gdcws.errors import Errors
from spacy_gdcws.io import CHECKSUMS, break_seal, save_whole, verify_checksums
from spacy_gdcws.ml.fingerprint import model_fingerprint
from spacy_gdcws.ml.precision import check_not_quantized

FORMAT = 1
LEXICON = "lexicon.txt"


class SavedParser(Protocol):
    """What saving and loading read and write of a parser."""

    name: str
    cfg: Dict[str, Any]
    model: Model
    vocab: Vocab
    lexicon: WordLexicon

    def size_model(self) -> None:
        ...


def _record(pipe: SavedParser) -> None:
    pipe.cfg["format"] = FORMAT
    pipe.cfg["model_fingerprint"] = model_fingerprint(pipe.model)


def _check(pipe: SavedParser, saved: Dict[str, Any], where: str) -> None:
    """Size the model by the saved labels and check its structure against the saved fingerprint."""
    pipe.cfg.update(saved)
    pipe.size_model()
    if saved.get("model_fingerprint") != model_fingerprint(pipe.model):
        raise ValueError(Errors.E081.format(path=where))


def to_bytes(pipe: SavedParser, exclude: Iterable[str]) -> bytes:
    """The parser as bytes (`to_disk`'s parts); E025 while it is int8-quantised."""
    check_not_quantized(pipe.name, pipe.model)
    _record(pipe)
    return util.to_bytes({
        "cfg": lambda: srsly.json_dumps(pipe.cfg),
        LEXICON: lambda: pipe.lexicon.to_lines().encode("utf8"),
        "model": lambda: pipe.model.to_bytes(),
        "vocab": lambda: pipe.vocab.to_bytes(exclude=exclude),
    }, exclude)


def from_bytes(pipe: SavedParser, data: bytes, exclude: Iterable[str]) -> None:
    """Read what `to_bytes` wrote (E081 for a model its config builds differently)."""
    parts = srsly.msgpack_loads(data)
    if "cfg" in parts:
        _check(pipe, srsly.json_loads(parts["cfg"]), "the parser's bytes")
    util.from_bytes(data, {
        "cfg": lambda b: None,
        LEXICON: lambda b: setattr(pipe, "lexicon", WordLexicon(tagged_lexicon(text_lines(b.decode("utf8"), LEXICON)))),
        "model": lambda b: pipe.model.from_bytes(b),
        "vocab": lambda b: pipe.vocab.from_bytes(b, exclude=exclude),
    }, exclude)


def to_disk(pipe: SavedParser, path: Path, exclude: Iterable[str]) -> None:
    """Write the parser's cfg, lexicon and model to `path`, whole or not at all (E025 while it is
    int8-quantised)."""
    check_not_quantized(pipe.name, pipe.model)
    break_seal(path)
    _record(pipe)
    save_whole(path, {
        "cfg": lambda p: srsly.write_json(p, pipe.cfg),
        LEXICON: lambda p: p.write_text(pipe.lexicon.to_lines(), encoding="utf8"),
        "model": lambda p: pipe.model.to_disk(p),
        "vocab": lambda p: pipe.vocab.to_disk(p, exclude=exclude),
    }, exclude)


def from_disk(pipe: SavedParser, path: Path, exclude: Iterable[str]) -> None:
    """Verify and read what `to_disk` wrote."""
    if not verify_checksums(path):  # E063 / E064 from verify_checksums
        raise ValueError(Errors.E082.format(path=path / CHECKSUMS, format=FORMAT))
    try:
        saved = srsly.read_json(path / "cfg")
    except (OSError, ValueError) as err:
        raise ValueError(Errors.E016.format(path=path / "cfg", message=err)) from None
    _check(pipe, saved, str(path))
    util.from_disk(path, {
        "cfg": lambda p: None,
        LEXICON: lambda p: setattr(pipe, "lexicon", WordLexicon(tagged_lexicon(read_entries(p)))),
        "model": lambda p: pipe.model.from_disk(p),
        "vocab": lambda p: pipe.vocab.from_disk(p, exclude=exclude),
    }, exclude)

