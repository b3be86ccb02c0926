"""Training memory: give the heap's freed memory back to the system (#50).

Measured on the main job's 1,500 steps (`research/metrics/train_memory/`): the training
process's resident memory grew from 909 MB (step 250) to 1,504 MB (step 1,500), while after
glibc's `malloc_trim(0)` it was 765 MB and 800 MB: the growth was memory Python, numpy and
torch had freed, kept by glibc's allocator (arrays of a new shape at every step fragment its
arenas), not memory in use. `spacy_gdcws.trim_memory.v1`, as `[training] before_update`,
calls `malloc_trim(0)` every `every` steps; where the C library is not glibc it does nothing.
"""
import ctypes
import ctypes.util
from typing import Any, Callable, Dict, Optional

from spacy.language import Language
from spacy.util import registry


def malloc_trim() -> Optional[Callable[[int], int]]:
    """glibc's `malloc_trim`, or None where the C library has none (macOS, Windows, musl)."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


@registry.callbacks("spacy_gdcws.trim_memory.v1")
def make_trim_memory(every: int = 10) -> Callable[[Language, Dict[str, Any]], None]:
    """A `[training] before_update` callback: `malloc_trim(0)` before every `every`-th step."""
    trim = malloc_trim()
    every = max(1, int(every))

    def before_update(nlp: Language, args: Dict[str, Any]) -> None:
        if trim is not None and args.get("step", 0) % every == 0:
            trim(0)

    return before_update
