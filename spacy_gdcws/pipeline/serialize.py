"""Saving and loading the segmenter: its cfg, model, training words, pair
counts and user dictionary, as bytes or as a folder written whole (beside the
target, with checksums, then moved into place) and verified on load.

A folder saved by this version (`FORMAT` 2 in its cfg) must have its checksums
(a missing `checksums.json` is an error, not an old pipeline), and its cfg
holds a fingerprint of the model's structure: a model that the pipeline's
config.cfg builds differently (an edited architecture line) is refused before
its weights load into it."""
import contextlib
import functools
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, Iterable, Iterator, Protocol, Set

import srsly
from spacy import util
from spacy.language import Language
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Model

from spacy_gdcws.decoding.decoder import Decoder
from spacy_gdcws.decoding.priors import PairCounts
from spacy_gdcws.decoding.settings import Setting
from spacy_gdcws.decoding.user_dict import UserDictionary
from spacy_gdcws.errors import Errors
from spacy_gdcws.io import CHECKSUMS, PIPELINE_CHECKSUMS, break_seal, save_whole, verify_checksums, write_checksums
from spacy_gdcws.ml.resources import model_normalizer
from spacy_gdcws.ml.saved_layout import load_model_bytes
from spacy_gdcws.ml.fingerprint import model_fingerprint
from spacy_gdcws.ml.precision import check_not_quantized
from spacy_gdcws.ml.state import uses_general_lexicon, uses_lexicon

# 2: checksums always written, the model's fingerprint in cfg (1: folders saved before 2026-11-26)
FORMAT = 2


# the decoding settings a user may change on a live segmenter (every `Setting` of its `Decoder`):
# saved in its cfg with the values its config built it with, so that a change survives a save and
# an override at load still wins
LIVE_SETTINGS = tuple(name for name, value in vars(Decoder).items() if isinstance(value, Setting))
SETTINGS_KEY, BUILT_KEY = "settings", "settings_built"


class SavedSegmenter(Protocol):
    """What saving and loading read and write of a segmenter."""

    name: str
    cfg: Dict[str, Any]
    model: Model
    vocab: Vocab
    decoder: Decoder
    train_words: Set[str]
    general_words: Set[str]
    built_settings: Dict[str, Any]


def live_settings(decoder: Decoder) -> Dict[str, Any]:
    """A segmenter's decoding settings (kept by its `decoder`) as they are now."""
    return {name: getattr(decoder, name) for name in LIVE_SETTINGS}


def _record_settings(pipe: SavedSegmenter) -> None:
    """Put the live settings in cfg, beside the values the config built the component with
    (what the pipeline's config.cfg will say)."""
    pipe.cfg[SETTINGS_KEY] = live_settings(pipe.decoder)
    pipe.cfg[BUILT_KEY] = dict(pipe.built_settings)


def _apply_saved_settings(pipe: SavedSegmenter) -> None:
    """After a load: each saved live setting, unless the config that built this component gives
    the setting another value than the saved pipeline's config did (an override at load wins).
    Folders saved before settings were kept have none: the config's values stand."""
    saved, built = pipe.cfg.get(SETTINGS_KEY) or {}, pipe.cfg.get(BUILT_KEY) or {}
    for name, value in saved.items():
        if name in LIVE_SETTINGS and pipe.built_settings.get(name) == built.get(name):
            setattr(pipe.decoder, name, value)


_UNSEALED = ("meta.json", "README.md")


def seal_pipeline(path: Path) -> None:
    """Write the SHA-256 of every file of the pipeline folder `path` (its config, tokenizer, vocab and
    every component's files, spaCy's own too) to `path/pipeline_checksums.json`. A segmenter loaded
    from the folder checks them all first (E125, E126): a damaged tagger or parser is refused by
    name instead of loading and changing every doc."""
    write_checksums(path, PIPELINE_CHECKSUMS, _UNSEALED)


# the components a load leaves out on purpose (`app.segment.load_pipeline(words_only=True)`): their
# files are not read, so a damaged one does not stop a command that never runs it
_LEFT_OUT: ContextVar[FrozenSet[str]] = ContextVar("left_out", default=frozenset())


@contextlib.contextmanager
def leaving_out(names: Iterable[str]) -> Iterator[None]:
    """Within the block, a segmenter that loads checks a sealed pipeline's files but those of the
    components `names` (what `spacy.load(..., exclude=names)` leaves out)."""
    token = _LEFT_OUT.set(frozenset(names))
    try:
        yield
    finally:
        _LEFT_OUT.reset(token)


def damaged_json(path: Path, err: ValueError) -> ValueError:
    """A coded error for a pipeline folder `path` that fails to load: `err` itself where it is coded
    (it names its file), else E136 naming the first of the folder's JSON files that cannot be read
    (srsly's own error names none: a damaged vocab/strings.json)."""
    text = str(err.args[0]) if err.args else str(err)
    if text.startswith("[E"):
        return err
    for json_file in sorted(path.rglob("*.json")) if path.is_dir() else []:
        try:
            srsly.read_json(json_file)
        except ValueError as bad:
            return ValueError(Errors.E136.format(path=json_file, message=bad))
    return err


@registry.callbacks("spacy_gdcws.verified_load.v1")
def make_verified_load() -> Callable[[Language], Language]:
    """`[nlp] after_creation`: the pipeline's `from_disk` names the file that is damaged (E136) where
    spaCy's own reading of one fails without a name (a damaged vocab/strings.json), however it is
    loaded (`spacy.load` of a folder or of an installed package)."""
    return verified_load


def verified_load(nlp: Language) -> Language:
    """`make_verified_load`'s callback: `nlp.from_disk` wrapped (`verified_from_disk`)."""
    nlp.from_disk = functools.partial(verified_from_disk, nlp)  # type: ignore[method-assign]
    return nlp


def verified_from_disk(nlp: Language, path: Any, *args: Any, **kwargs: Any) -> Language:
    """`Language.from_disk`, its unnamed errors named (`damaged_json`)."""
    try:
        return Language.from_disk(nlp, path, *args, **kwargs)
    except ValueError as err:
        raise damaged_json(util.ensure_path(path), err) from None


def verify_pipeline(path: Path) -> bool:
    """Check the pipeline folder around a segmenter's folder `path` against its listing, where the
    folder is a pipeline (a config.cfg) sealed by `seal_pipeline` (but the folders of the components
    being left out, `leaving_out`). RETURNS whether it did: then the segmenter's own files were
    among those checked, and need not be read again."""
    root = path.parent
    if not ((root / "config.cfg").is_file() and (root / PIPELINE_CHECKSUMS).exists()):
        return False
    left_out = _LEFT_OUT.get()

    def skip(entry: str) -> bool:
        return entry.split("/", 1)[0] in left_out

    # an empty listing is a damaged seal, not an unsealed pipeline: it would switch every check off
    if not verify_checksums(root, PIPELINE_CHECKSUMS, Errors.E125, Errors.E126, skip=skip if left_out else None):
        raise ValueError(Errors.E126.format(path=root / PIPELINE_CHECKSUMS))
    return True


def to_bytes(pipe: SavedSegmenter, exclude: Iterable[str]) -> bytes:
    check_not_quantized(pipe.name, pipe.model)
    _record_settings(pipe)
    decoder = pipe.decoder
    serialize: Dict[str, Callable[[], bytes]] = {
        "cfg": lambda: srsly.json_dumps(pipe.cfg),
        "model": lambda: pipe.model.to_bytes(),
        "words": lambda: srsly.msgpack_dumps(sorted(pipe.train_words)),
        "general_lexicon": lambda: srsly.msgpack_dumps(sorted(pipe.general_words)),
        "pairs": lambda: b"" if decoder.pair_counts is None else decoder.pair_counts.to_bytes(),
        "user_dict": lambda: srsly.json_dumps(decoder.user_dict.to_list()),
        "vocab": lambda: pipe.vocab.to_bytes(exclude=exclude),
    }
    return util.to_bytes(serialize, exclude)


def from_bytes(pipe: SavedSegmenter, bytes_data: bytes, exclude: Iterable[str]) -> None:
    decoder = pipe.decoder
    deserialize = {
        "cfg": lambda b: pipe.cfg.update(srsly.json_loads(b)),
        "model": lambda b: _load_model(pipe, b),
        "words": lambda b: setattr(pipe, "train_words", set(srsly.msgpack_loads(b))),
        "general_lexicon": lambda b: setattr(pipe, "general_words", set(srsly.msgpack_loads(b))),
        "pairs": lambda b: setattr(decoder, "pair_counts", PairCounts.from_bytes(b) if b else None),
        "user_dict": lambda b: setattr(decoder, "user_dict", UserDictionary.from_list(srsly.json_loads(b),
                                                                                        decoder.normalizer)),
        "vocab": lambda b: pipe.vocab.from_bytes(b, exclude=exclude),
    }
    util.from_bytes(bytes_data, deserialize, exclude)
    _apply_saved_settings(pipe)


def _load_model(pipe: SavedSegmenter, data: bytes) -> None:
    """Load the weights and state (bytes of the present layout or of the one before,
    `ml.saved_layout`), then give the decoder the model's character map (the one saved
    with it: priors and the user dictionary read what the model reads)."""
    load_model_bytes(pipe.model, data)
    pipe.decoder.normalizer = model_normalizer(pipe.model)


def to_disk(pipe: SavedSegmenter, path: Path, exclude: Iterable[str]) -> None:
    check_not_quantized(pipe.name, pipe.model)
    break_seal(path)
    decoder = pipe.decoder
    pipe.cfg["format"] = FORMAT
    pipe.cfg["model_fingerprint"] = model_fingerprint(pipe.model)
    _record_settings(pipe)
    serialize = {
        "cfg": lambda p: srsly.write_json(p, pipe.cfg),
        "model": lambda p: pipe.model.to_disk(p),
        "words.txt": lambda p: p.write_text("".join(w + "\n" for w in sorted(pipe.train_words)), encoding="utf8"),
        # only where the model reads one (older folders have none)
        "general_lexicon.txt": lambda p: p.write_text("".join(w + "\n" for w in sorted(pipe.general_words)),
                                                      encoding="utf8") if uses_general_lexicon(pipe.model) else None,
        "pairs": lambda p: None if decoder.pair_counts is None else p.write_bytes(decoder.pair_counts.to_bytes()),
        "user_dict.json": lambda p: srsly.write_json(p, decoder.user_dict.to_list()),
        "vocab": lambda p: pipe.vocab.to_disk(p, exclude=exclude),
    }
    save_whole(path, serialize, exclude)


def from_disk(pipe: SavedSegmenter, path: Path, exclude: Iterable[str]) -> None:
    decoder = pipe.decoder
    deserialize = {
        "cfg": lambda p: pipe.cfg.update(srsly.read_json(p)),
        "model": lambda p: _load_model(pipe, p.read_bytes()),
        "words.txt": lambda p: setattr(pipe, "train_words", _read_words(p)),
        "general_lexicon.txt": lambda p: setattr(pipe, "general_words", _read_words(p) if p.exists() else set()),
        "pairs": lambda p: setattr(decoder, "pair_counts", PairCounts.from_bytes(p.read_bytes()) if p.exists() else None),
        # pipelines saved before the user dictionary have none
        "user_dict.json": lambda p: setattr(decoder, "user_dict", UserDictionary.from_list(
            srsly.read_json(p) if p.exists() else [], decoder.normalizer, str(p))),
        "vocab": lambda p: pipe.vocab.from_disk(p, exclude=exclude),
    }
    sealed = verify_pipeline(path)  # E125 / E126; the segmenter's files too
    saved = _saved_cfg(path)
    fmt = int(saved.get("format", 1))
    # the folder's own checksums (E063 / E064), where the pipeline's listing did not just check its files
    own = path / CHECKSUMS
    checked = (own.is_file() and own.stat().st_size > 0) if sealed else verify_checksums(path)
    if not checked and fmt >= 2:
        raise ValueError(Errors.E082.format(path=path / CHECKSUMS, format=fmt))
    # the model that config.cfg built, checked before any weight loads into it (a folder of
    # format 2 always has its fingerprint: one that is missing was taken out)
    fingerprint = saved.get("model_fingerprint")
    if (fmt >= 2 or fingerprint is not None) and fingerprint != model_fingerprint(pipe.model):
        raise ValueError(Errors.E081.format(path=path))
    util.from_disk(path, deserialize, exclude)
    _apply_saved_settings(pipe)
    if uses_lexicon(pipe.model) and not pipe.train_words:  # the model needs its training words (dictionary features)
        raise ValueError(Errors.E065.format(path=path / "words.txt"))
    if uses_general_lexicon(pipe.model) and not pipe.general_words:
        raise ValueError(Errors.E092.format(path=path / "general_lexicon.txt"))


def _saved_cfg(path: Path) -> Dict[str, Any]:
    """The saved cfg ({} where it is missing or unreadable: loading it reports that)."""
    try:
        cfg = srsly.read_json(path / "cfg")
    except (OSError, ValueError):
        return {}
    return cfg if isinstance(cfg, dict) else {}


def _read_words(path: Path) -> Set[str]:
    if not path.exists():
        return set()
    try:
        text = path.read_text(encoding="utf8")
    except UnicodeDecodeError as err:  # a truncated or corrupt file
        raise ValueError(Errors.E016.format(path=path, message=err)) from None
    return set(text.split("\n")) - {""}
