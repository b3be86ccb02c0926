"""Saving and loading the segmenter: its cfg, model, training words, pair
counts and user dictionary, as bytes or as a folder written whole (beside the
target, with checksums, then moved into place) and verified on load."""
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Set

import srsly
from spacy import util

from spacy_gdcws.decoding.priors import PairCounts
from spacy_gdcws.decoding.user_dict import UserDictionary
from spacy_gdcws.errors import Errors
from spacy_gdcws.io import replace_dir, verify_checksums, write_checksums


def to_bytes(pipe: Any, exclude: Iterable[str]) -> bytes:
    decoder = pipe.decoder
    serialize: Dict[str, Callable[[], bytes]] = {
        "cfg": lambda: srsly.json_dumps(pipe.cfg),
        "model": lambda: pipe.model.to_bytes(),
        "words": lambda: srsly.msgpack_dumps(sorted(pipe.train_words)),
        "pairs": lambda: b"" if decoder.pair_counts is None else decoder.pair_counts.to_bytes(),
        "user_dict": lambda: srsly.json_dumps(decoder.user_dict.to_list()),
        "vocab": lambda: pipe.vocab.to_bytes(exclude=exclude),
    }
    return util.to_bytes(serialize, exclude)


def from_bytes(pipe: Any, bytes_data: bytes, exclude: Iterable[str]) -> None:
    decoder = pipe.decoder
    deserialize = {
        "cfg": lambda b: pipe.cfg.update(srsly.json_loads(b)),
        "model": lambda b: pipe.model.from_bytes(b),
        "words": lambda b: setattr(pipe, "train_words", set(srsly.msgpack_loads(b))),
        "pairs": lambda b: setattr(decoder, "pair_counts", PairCounts.from_bytes(b) if b else None),
        "user_dict": lambda b: setattr(decoder, "user_dict", UserDictionary.from_list(srsly.json_loads(b))),
        "vocab": lambda b: pipe.vocab.from_bytes(b, exclude=exclude),
    }
    util.from_bytes(bytes_data, deserialize, exclude)


def to_disk(pipe: Any, path: Path, exclude: Iterable[str]) -> None:
    decoder = pipe.decoder
    serialize = {
        "cfg": lambda p: srsly.write_json(p, pipe.cfg),
        "model": lambda p: pipe.model.to_disk(p),
        "words.txt": lambda p: p.write_text("".join(w + "\n" for w in sorted(pipe.train_words)), encoding="utf8"),
        "pairs": lambda p: None if decoder.pair_counts is None else p.write_bytes(decoder.pair_counts.to_bytes()),
        "user_dict.json": lambda p: srsly.write_json(p, decoder.user_dict.to_list()),
        "vocab": lambda p: pipe.vocab.to_disk(p, exclude=exclude),
    }
    # write beside the target, with checksums, then move into place: a failed
    # save leaves the previous folder (or none), never a half-written one
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        util.to_disk(tmp, serialize, exclude)
        write_checksums(tmp)
        replace_dir(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def from_disk(pipe: Any, path: Path, exclude: Iterable[str]) -> None:
    decoder = pipe.decoder
    deserialize = {
        "cfg": lambda p: pipe.cfg.update(srsly.read_json(p)),
        "model": lambda p: pipe.model.from_disk(p),
        "words.txt": lambda p: setattr(pipe, "train_words", _read_words(p)),
        "pairs": lambda p: setattr(decoder, "pair_counts", PairCounts.from_bytes(p.read_bytes()) if p.exists() else None),
        # pipelines saved before the user dictionary have none
        "user_dict.json": lambda p: setattr(
            decoder, "user_dict", UserDictionary.from_list(srsly.read_json(p)) if p.exists() else UserDictionary()),
        "vocab": lambda p: pipe.vocab.from_disk(p, exclude=exclude),
    }
    verify_checksums(path)  # E063 / E064 (pipelines saved before 2026-11-25 have none)
    util.from_disk(path, deserialize, exclude)
    uses_lexicon = any(node.attrs.get("lexicon_max_len") for node in pipe.model.walk())
    if uses_lexicon and not pipe.train_words:  # the model needs its training words (dictionary features)
        raise ValueError(Errors.E065.format(path=path / "words.txt"))


def _read_words(path: Path) -> Set[str]:
    if not path.exists():
        return set()
    return set(path.read_text(encoding="utf8").split("\n")) - {""}
