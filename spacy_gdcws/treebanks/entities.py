"""Entities brought from one release of a sentence to another's words: Universal NER's GSDSimp
entities (over UD v2's words) onto the pre-v2.5 GSD copy the main job trains on, whose text differs in
a tenth of the sentences (ASCII punctuation, 著 for 着, mainland words: 盒饭 for 便当, and names
respelt: 卡塔尔 for 卡达).

The two texts (each sentence's words joined) are aligned character by character on what both read
(`t2s+width`: OpenCC traditional to simplified, full-width to ASCII) by difflib's matching blocks,
same-length replacements kept as one-to-one. An entity comes over where every one of its characters
has its counterpart, in order, and its edges fall on the other release's word edges; otherwise the
span between the counterparts of its neighbours is marked missing (no entity, and not "outside"
either: training learns nothing there).
"""
import difflib
from typing import Dict, List, Sequence, Tuple

from spacy_gdcws.data.normalize import get_normalizer
from spacy_gdcws.errors import Errors
from spacy_gdcws.readers.base import Sentence

CharSpan = Tuple[int, int]


def word_starts(words: Sequence[str]) -> List[int]:
    """Where each word starts in the words joined."""
    starts, pos = [], 0
    for word in words:
        starts.append(pos)
        pos += len(word)
    return starts


def char_map(source: str, target: str) -> Dict[int, int]:
    """The one-to-one counterparts of `source`'s characters in `target` (both read through
    `t2s+width`): matching blocks, and replacements of the same length."""
    normalizer = get_normalizer("t2s+width")
    matcher = difflib.SequenceMatcher(None, normalizer.text(source), normalizer.text(target), autojunk=False)
    mapped: Dict[int, int] = {}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            mapped.update(zip(range(i1, i2), range(j1, j2)))
    return mapped


def transfer_entities(target: Sentence, source: Sentence) -> Sentence:
    """`target` with the entities of `source` (`meta["entities"]`, word spans of its words) as
    character spans of its own words joined (`meta["entity_chars"]`), and the spans whose entity
    did not come over (`meta["entity_missing"]`); RETURNS `target` (its `meta` updated)."""
    source_text, target_text = "".join(source.words), "".join(target.words)
    mapped = char_map(source_text, target_text)
    starts = word_starts(source.words)
    edges = set(word_starts(target.words)) | {len(target_text)}
    found: List[Tuple[int, int, str]] = []
    missing: List[CharSpan] = []
    for a, b, label in source.meta["entities"]:
        start, end = starts[a], starts[b - 1] + len(source.words[b - 1])
        chars = [mapped.get(k) for k in range(start, end)]
        whole = None not in chars and chars == list(range(chars[0], chars[0] + len(chars)))
        if whole and chars[0] in edges and chars[-1] + 1 in edges:
            found.append((chars[0], chars[-1] + 1, label))
        else:
            before = [mapped[k] for k in range(start) if k in mapped]
            after = [mapped[k] for k in range(end, len(source_text)) if k in mapped]
            missing.append((before[-1] + 1 if before else 0, after[0] if after else len(target_text)))
    target.meta["entity_chars"] = found
    target.meta["entity_missing"] = missing
    return target


def transfer_all(targets: Sequence[Sentence], sources: Sequence[Sentence], source_name: str) -> Tuple[int, int]:
    """`transfer_entities` sentence by sentence (the two files hold the same sentences in the same
    order: E143 where their counts differ); RETURNS the entities that came over and those that did not."""
    if len(targets) != len(sources):
        raise ValueError(Errors.E143.format(path=source_name, n=len(sources), m=len(targets)))
    came = lost = 0
    for target, source in zip(targets, sources):
        transfer_entities(target, source)
        came += len(target.meta["entity_chars"])
        lost += len(target.meta["entity_missing"])
    return came, lost
