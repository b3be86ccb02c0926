"""Saving and loading the parser as a folder written whole (beside the target, with checksums,
then moved into place) and verified on load: every file's checksum, and the model's structure
against the one config.cfg builds, before any weight loads."""
from pathlib import Path
from typing import Any, Iterable

import srsly
from spacy import util

from spacy_gdcws.errors import Errors
from spacy_gdcws.io import CHECKSUMS, verify_checksums
from spacy_gdcws.parse.features import Lexicon
from spacy_gdcws.pipeline.serialize import model_fingerprint, save_whole

FORMAT = 1


def save_parser(pipe: Any, path: Path, exclude: Iterable[str]) -> None:
    """Write the parser's cfg, lexicon and model to `path`, whole or not at all."""
    pipe.cfg["format"] = FORMAT
    pipe.cfg["model_fingerprint"] = model_fingerprint(pipe.model)
    serialize = {
        "cfg": lambda p: srsly.write_json(p, pipe.cfg),
        "lexicon.txt": lambda p: p.write_text(pipe.lexicon.to_lines(), encoding="utf8"),
        "model": lambda p: pipe.model.to_disk(p),
        "vocab": lambda p: pipe.vocab.to_disk(p, exclude=exclude),
    }
    save_whole(path, serialize, exclude)


def load_parser(pipe: Any, path: Path, exclude: Iterable[str]) -> None:
    """Verify and read what `save_parser` wrote."""
    if not verify_checksums(path):  # E063 / E064 from verify_checksums
        raise ValueError(Errors.E082.format(path=path / CHECKSUMS, format=FORMAT))
    try:
        saved = srsly.read_json(path / "cfg")
    except (OSError, ValueError) as err:
        raise ValueError(Errors.E016.format(path=path / "cfg", message=err)) from None
    if saved.get("model_fingerprint") != model_fingerprint(pipe.model):
        raise ValueError(Errors.E081.format(path=path))
    deserialize = {
        "cfg": lambda p: pipe.cfg.update(srsly.read_json(p)),
        "lexicon.txt": lambda p: setattr(pipe, "lexicon", Lexicon.from_lines(p.read_text(encoding="utf8"))),
        "model": lambda p: pipe.model.from_disk(p),
        "vocab": lambda p: pipe.vocab.from_disk(p, exclude=exclude),
    }
    util.from_disk(path, deserialize, exclude)
