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
lookup per code point (`CharNormalizer.points`), built once per process and spec.
"""
import unicodedata
from functools import lru_cache
from typing import Dict, Optional

import numpy

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


class CharNormalizer:
    """A length-preserving map of characters (see the module docstring).

    spec (str): Steps joined by "+": OpenCC configurations and "width". "" = identity.
    """

    def __init__(self, spec: str) -> None:
        self.spec = spec
        steps = [s.strip() for s in spec.split("+") if s.strip()] if spec else []
        if spec and not steps:
            raise ValueError(Errors.E086.format(step=spec, options=", ".join(sorted(_known_configs()))))
        table = numpy.arange(N_POINTS, dtype=numpy.int64)
        for step in steps:
            pairs = _width_pairs() if step == "width" else _opencc_pairs(step.replace(".json", ""))
            if not pairs:
                continue
            source = numpy.fromiter((ord(c) for c in pairs), dtype=numpy.int64, count=len(pairs))
            target = numpy.fromiter((ord(c) for c in pairs.values()), dtype=numpy.int64, count=len(pairs))
            # a later step reads what the earlier ones wrote
            lookup = numpy.arange(N_POINTS, dtype=numpy.int64)
            lookup[source] = target
            table = lookup[table]
        self.table = table
        changed = numpy.flatnonzero(table != numpy.arange(N_POINTS))
        self._translation = {int(c): int(table[c]) for c in changed}

    def __bool__(self) -> bool:
        return bool(self._translation)

    def __len__(self) -> int:
        """How many code points it changes."""
        return len(self._translation)

    def points(self, codes: numpy.ndarray) -> numpy.ndarray:
        """The normalized code points of `codes` (int64; values beyond Unicode kept)."""
        codes = numpy.asarray(codes, dtype=numpy.int64)
        return self.table[numpy.minimum(codes, N_POINTS - 1)] if self else codes

    def text(self, text: str) -> str:
        """The normalized text: the same length, character i for character i."""
        return text.translate(self._translation) if self else text


@lru_cache(maxsize=16)
def get_normalizer(spec: Optional[str]) -> CharNormalizer:
    """The `CharNormalizer` of a spec, built once per process."""
    return CharNormalizer(spec or "")
