"""Character normalization for features and dictionaries: what the model and the decoder read
is the normalized character at each position, while `doc.text` and every word keep the input's.

A normalizer is named by a spec, steps joined by "+" (e.g. "t2s+width"):

- an OpenCC configuration ("t2s", "hk2s", "tw2s", ...; the `opencc` package): traditional to
  simplified characters. It is applied **character by character** (each character converted
  alone, by OpenCC's own dictionaries), so position i of the normalized text is always
  character i of the input; OpenCC's phrase conversions that change length (tw2sp: 記憶體 ->
  内存) are never applied, by design: an offset must never move.
- "width": full-width forms to their ASCII equivalents (Unicode's `<wide>` decompositions:
  ，-> ,  ０ -> 0  Ａ -> A), and the CJK marks with an ASCII counterpart in the same role
  (。->.  「」-> “”  『』-> ‘’), so text written with full-width punctuation and a
  training corpus written with ASCII punctuation (UD Chinese GSD before v2.5) meet.

Whitespace is never changed (it decides forced boundaries and units). The mapping is one table
lookup per code point (`CharNormalizer.points`). A model saves the map it was trained with (the
pairs of code points it changes) and reads it back at load, so a saved model reads the same
characters whatever OpenCC is installed, or none: the map is built from OpenCC only for a new
model, once per process and spec.
"""
import threading
import unicodedata
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Tuple

import numpy
import srsly

from spacy_gdcws.errors import Errors

# the CJK marks whose ASCII (or plain typographic) counterpart plays the same role
_CJK_MARKS = {"。": ".", "｡": ".", "「": "“", "」": "”", "『": "‘", "』": "’", "｢": "“", "｣": "”"}
# where OpenCC's character tables live: the CJK blocks and the compatibility ideographs
_HAN_RANGES = ((0x2E80, 0x2FDF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F))
N_POINTS = 0x110001  # every code point, and doc_arrays.MULTI_CHAR_CODE (kept as is)


def _width_pairs() -> Dict[str, str]:
    pairs = dict(_CJK_MARKS)
    for cp in range(0xFF01, 0xFFEF):
        char = chr(cp)
        decomposition = unicodedata.decomposition(char)
        if decomposition.startswith("<wide> "):
            pairs[char] = chr(int(decomposition.split()[1], 16))
    return pairs


def _opencc_pairs(config: str) -> Dict[str, str]:
    try:
        import opencc
    except ImportError as err:  # pragma: no cover - opencc is a requirement
        raise ImportError(Errors.E085.format(spec=config)) from err
    try:
        converter = opencc.OpenCC(config)
    except Exception as err:
        raise ValueError(Errors.E086.format(step=config, options=", ".join(sorted(_known_configs())))) from err
    chars = [chr(c) for start, end in _HAN_RANGES for c in range(start, end + 1)]
    converted = converter.convert("\n".join(chars)).split("\n")
    if len(converted) != len(chars):  # a conversion across lines: fall back to one call per character
        converted = [converter.convert(c) for c in chars]
    return {c: o for c, o in zip(chars, converted) if o != c and len(o) == 1 and not o.isspace()}


def _known_configs():
    try:
        import opencc
        return {name.replace(".json", "") for name in getattr(opencc, "CONFIGS", [])} | {"width"}
    except ImportError:  # pragma: no cover
        return {"width"}


# the configurations OpenCC ships (its `opencc.CONFIGS`): a spec of these is checked without importing
# OpenCC, so a saved model, which carries its own table, loads without it (#69)
STANDARD_STEPS = frozenset({"width", "hk2s", "hk2sp", "hk2t", "jp2t", "s2hk", "s2hkp", "s2t", "s2tw", "s2twp", "t2hk",
                            "t2jp", "t2s", "t2tw", "tw2s", "tw2sp", "tw2t"})


def check_spec(spec: str) -> None:
    """E086 for a spec with no steps or an unknown step, without building a table: OpenCC's own
    configurations are known without importing it; another step is checked against the installed
    OpenCC, where there is one (a saved model carries its table and needs none; building a new
    table is E085 then)."""
    steps = _steps(spec)
    if spec and not steps:
        raise ValueError(Errors.E086.format(step=spec, options=", ".join(sorted(STANDARD_STEPS))))
    if all(step.replace(".json", "") in STANDARD_STEPS for step in steps):
        return
    known = _known_configs()
    for step in steps:
        if step.replace(".json", "") not in known and len(known) > 1:
            raise ValueError(Errors.E086.format(step=step, options=", ".join(sorted(known))))


def _steps(spec: str) -> List[str]:
    return [s.strip() for s in spec.split("+") if s.strip()] if spec else []


class CharNormalizer:
    """A length-preserving map of characters (see the module docstring).

    spec (str): Steps joined by "+": OpenCC configurations and "width". "" = identity.
    pairs: The code points it changes and what to, as saved with a model (`to_bytes`): then
        the map is these pairs whatever OpenCC is installed, or none. Without them the map is
        built from OpenCC and the width table when first used (once, thread-safe).
    """

    def __init__(self, spec: str, pairs: Optional[Tuple[Sequence[int], Sequence[int]]] = None) -> None:
        self.spec = spec
        self._lock = threading.Lock()
        self._table: Optional[numpy.ndarray] = None
        self._translation: Optional[Dict[int, int]] = None
        if pairs is not None:
            self._set_pairs(numpy.asarray(pairs[0], dtype=numpy.int64), numpy.asarray(pairs[1], dtype=numpy.int64))

    def _set_pairs(self, source: numpy.ndarray, target: numpy.ndarray) -> None:
        if len(source) != len(target) or (len(source) and (source.min() < 0 or source.max() >= N_POINTS
                                                            or target.min() < 0 or target.max() >= N_POINTS)):
            raise ValueError(Errors.E106.format(spec=self.spec))
        table = numpy.arange(N_POINTS, dtype=numpy.int64)
        table[source] = target
        self._translation = dict(zip(source.tolist(), target.tolist()))
        self._table = table

    def _build(self) -> None:
        table = numpy.arange(N_POINTS, dtype=numpy.int64)
        for step in _steps(self.spec):
            pairs = _width_pairs() if step == "width" else _opencc_pairs(step.replace(".json", ""))
            if not pairs:
                continue
            source = numpy.fromiter((ord(c) for c in pairs), dtype=numpy.int64, count=len(pairs))
            target = numpy.fromiter((ord(c) for c in pairs.values()), dtype=numpy.int64, count=len(pairs))
            # a later step reads what the earlier ones wrote
            lookup = numpy.arange(N_POINTS, dtype=numpy.int64)
            lookup[source] = target
            table = lookup[table]
        changed = numpy.flatnonzero(table != numpy.arange(N_POINTS))
        self._set_pairs(changed, table[changed])

    def _ready(self) -> Dict[int, int]:
        if self._translation is None:
            with self._lock:
                if self._translation is None:
                    self._build()
        return self._translation  # type: ignore[return-value]

    @property
    def table(self) -> numpy.ndarray:
        """The normalized code point of every code point (int64, `N_POINTS` entries)."""
        self._ready()
        return self._table  # type: ignore[return-value]

    def pairs(self) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """The code points it changes (sorted) and what it changes them to."""
        source = numpy.asarray(sorted(self._ready()), dtype=numpy.int64)
        return source, self.table[source]

    def __bool__(self) -> bool:
        return bool(self.spec) and bool(self._ready())

    def __len__(self) -> int:
        """How many code points it changes."""
        return len(self._ready()) if self.spec else 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CharNormalizer):
            return NotImplemented
        if other is self or not (self.spec or other.spec):
            return True
        return self.spec == other.spec and self._ready() == other._ready()

    def __hash__(self) -> int:
        return hash(self.spec)

    def __reduce__(self):
        if self._translation is None:
            return (CharNormalizer, (self.spec,))
        source, target = self.pairs()
        return (CharNormalizer, (self.spec, (source.tolist(), target.tolist())))

    def to_bytes(self) -> bytes:
        """The spec and the pairs (the table is built first if it was not), for a saved model."""
        source, target = self.pairs() if self.spec else (numpy.zeros(0, numpy.int64),) * 2
        return srsly.msgpack_dumps({"spec": self.spec, "source": source.tolist(), "target": target.tolist()})

    @classmethod
    def from_bytes(cls, data: bytes) -> "CharNormalizer":
        """A normalizer as saved (`to_bytes`): no table is built, OpenCC is not needed."""
        msg = srsly.msgpack_loads(data)
        return cls(msg["spec"], (msg["source"], msg["target"]))

    def points(self, codes: numpy.ndarray) -> numpy.ndarray:
        """The normalized code points of `codes` (int64; values beyond Unicode kept)."""
        codes = numpy.asarray(codes, dtype=numpy.int64)
        return self.table[numpy.minimum(codes, N_POINTS - 1)] if self else codes

    def text(self, text: str) -> str:
        """The normalized text: the same length, character i for character i."""
        return text.translate(self._ready()) if self else text


@lru_cache(maxsize=16)
def get_normalizer(spec: Optional[str]) -> CharNormalizer:
    """The `CharNormalizer` of a spec as the installed OpenCC gives it, one per process and
    spec (its table is built when first used: E086 for an unknown step, E085 without OpenCC)."""
    spec = spec or ""
    check_spec(spec)
    return CharNormalizer(spec)
