"""Bring the pre-v2 UD Chinese GSD annotation to the UD v2 labels of UD_Chinese-GSDSimp.

The GSD training file the project may ship (`ud_zh/train.conll`, hankcs' copy of a
release before UD v2.5) writes UD v1 relations (`dobj`, `case:dec`, `nsubjpass`, …)
and an older UPOS (`CONJ`, `PART` for subordinators), while GSDSimp test and the HK,
CFL and PUD treebanks write UD v2 (`obj`, `mark:rel`, `nsubj:pass`, `SCONJ`, `AUX`).
A tagger and parser trained on both would learn two names for one thing.

`gsd_v1_to_v2.json` holds the relabelling, learned from the one place where both
annotations of the same sentences exist and that is not a test set: GSD dev in both
versions (`research/scripts/gsd_v1_to_v2.py`; a two-fold check on dev agreed with the
v2 label on 93.3% of relations against 65.1% unchanged, UPOS 99.4% against 91.5%,
its keys reading the old relation as well as the form).
Each table maps a key of the old annotation, most specific first (the word form
and labels around it), to the v2 label its majority had on dev; a key that is not in
the table falls back to the next, and the last fallback is UD v2's rename of the old
relation (`UD_V2_RENAMES`) or the old label itself.
`relabel_gsd_v1` keeps the heads (80.5% of them agree between the versions);
`convert_gsd_v1` also moves them to UD v2's conventions (`ud_trees.py`: punctuation,
classifiers, clause chains, names, coordination) and writes punctuation in its v2.5 East
Asian forms: on the same dev sentences 96.4% of its heads agree with v2's and 95.3% of
heads with their relation (two-fold for the table), against 80.5% and 79.3% relabelled.
"""
import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from spacy_gdcws.errors import Errors
from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.treebanks.conventions import to_gsdsimp
from spacy_gdcws.treebanks.punct import attach_punctuation
from spacy_gdcws.treebanks.ud_trees import (
    attach_classifiers,
    ba_construction,
    adverbial_de,
    coordinating_conjunctions,
    flatten_adpositions,
    east_asian_punct,
    first_clause_root,
    head_first_appositions,
    head_first_names,
    potential_complements,
    verbal_copulas,
)

TABLE_PATH = Path(__file__).with_name("gsd_v1_to_v2.json")


# the relations UD v2 renamed (universaldependencies.org, v2 changes): the last fallback, for the
# rare ones GSD dev does not show (csubjpass: 5 words in GSD train, none in dev)
UD_V2_RENAMES = {"dobj": "obj", "nsubjpass": "nsubj:pass", "csubjpass": "csubj:pass", "auxpass": "aux:pass",
                 "name": "flat:name", "mwe": "fixed", "foreign": "flat:foreign", "remnant": "orphan", "neg": "advmod"}


def upos_keys(pos: str, form: str, dep: str) -> List[str]:
    """The UPOS table's keys for one word, most specific first: with its old relation (的 is
    v2's SCONJ as a relative clause's marker, `acl:relcl` in v1, and PART as `case:dec`)."""
    return [f"{pos}\t{form}\t{dep}", f"{pos}\t{form}", pos]


def deprel_keys(dep: str, pos: str, head_pos: str, form: str) -> List[str]:
    """The relation table's keys for one word, most specific first."""
    return [f"{dep}\t{pos}\t{head_pos}\t{form}", f"{dep}\t{pos}\t{head_pos}", f"{dep}\t{pos}", dep]


def word_deprel_keys(sent: Sentence, i: int) -> List[str]:
    """`deprel_keys` of word `i` of a sentence in its old annotation (its head's UPOS, "ROOT"
    for the root)."""
    head = sent.heads[i]  # type: ignore[index]
    return deprel_keys(sent.deps[i], sent.pos[i], "ROOT" if head == i else sent.pos[head], sent.words[i])  # type: ignore[index]


@lru_cache(maxsize=1)
def load_table(path: Path = TABLE_PATH) -> Dict[str, Dict[str, str]]:
    """The shipped table: {"upos": {key: label}, "deprel": {key: label}}."""
    with open(path, encoding="utf8") as fileh:
        return json.load(fileh)


def _lookup(table: Dict[str, str], keys: Sequence[str], default: str) -> str:
    for key in keys:
        if key in table:
            return table[key]
    return default


def _root_safe(label: str, old: str, is_root: bool) -> str:
    """Heads are kept, so the tree's root keeps its label and no other word becomes "root"
    (where v2 moved the root, v1's `dep` words often became v2's root: a head change)."""
    if is_root or label.lower() == "root":
        return old
    return label


def generic_deprels(sent: Sentence, table: Optional[Dict[str, Dict[str, str]]] = None) -> List[str]:
    """Each word's old relation in v2's name, read without its form (the table's keys after the
    form, then `UD_V2_RENAMES`): the relation a word passes on where a tree move puts another word in
    its place (the form-keyed entry would tie the label to the word that moved)."""
    table = table or load_table()
    deps = sent.deps or [""] * len(sent.words)
    return [_lookup(table["deprel"], word_deprel_keys(sent, i)[1:], UD_V2_RENAMES.get(d, d)) for i, d in enumerate(deps)]


def relabel_gsd_v1(sent: Sentence, table: Optional[Dict[str, Dict[str, str]]] = None) -> Sentence:
    """The sentence with its UPOS and relations in GSDSimp's UD v2 labels (words,
    XPOS and heads unchanged). Keys are read from the old annotation only."""
    table = table or load_table()
    if sent.pos is None:
        return sent
    old_deps = sent.deps or [""] * len(sent.words)
    pos = [_lookup(table["upos"], upos_keys(p, w, d), p) for p, w, d in zip(sent.pos, sent.words, old_deps)]
    deps = sent.deps
    if sent.heads is not None and sent.deps is not None:
        deps = [
            _root_safe(_lookup(table["deprel"], word_deprel_keys(sent, i), UD_V2_RENAMES.get(d, d)), d, h == i)
            for i, (d, h) in enumerate(zip(sent.deps, sent.heads))
        ]
    return replace(sent, pos=pos, deps=deps)


#: jieba's tags of place and organisation names (`ns`, `nt`, `nz`): a run of proper nouns that opens
#: with one (福建 泉州) is not a person's name
PLACE_TAGS = frozenset({"ns", "nt", "nz"})


def convert_gsd_v1(sent: Sentence, table: Optional[Dict[str, Dict[str, str]]] = None,
                   places: FrozenSet[str] = frozenset()) -> Sentence:
    """`relabel_gsd_v1`, then the trees and punctuation forms of GSDSimp's UD v2
    (`spacy_gdcws.treebanks.ud_trees`): classifiers under their numerals, a chain of clauses
    headed by its first, names and appositions by their first part, 把/将 under the object it
    introduces, an adposition's phrase flattened onto the noun it modifies, `cc` under the conjunct
    that follows, punctuation attached by UD v2's rule and written in its East Asian forms, and words
    in GSDSimp's spelling where the pre-v2.5 copy wrote mainland variants (the table's `forms`: 著 →
    着, 网络 → 网路, learned on GSD dev where OpenCC knows the pair as variants). The rules
    read the old relations and tags; `places` (words a tagged lexicon calls places or organisations:
    `PLACE_TAGS`) keeps a place's run of proper nouns (福建 泉州) from being taken for a name."""
    return convert_gsd_v1_moves(sent, table, places)[0]


def convert_gsd_v1_moves(sent: Sentence, table: Optional[Dict[str, Dict[str, str]]] = None,
                         places: FrozenSet[str] = frozenset()) -> Tuple[Sentence, Set[int]]:
    """`convert_gsd_v1`, and the words whose relation a tree move set (not the table: what
    `research/scripts/gsd_v1_to_v2.py` leaves out when it learns the table)."""
    new = relabel_gsd_v1(sent, table)
    if sent.heads is None or sent.deps is None or new.pos is None or new.deps is None:
        return new, set()
    heads, deps = list(sent.heads), list(new.deps)
    tags = sent.tags or [""] * len(sent.words)
    generic = generic_deprels(sent, table)
    moved = attach_classifiers(heads, deps, tags, sent.deps)
    moved |= flatten_adpositions(heads, deps, sent.deps, new.pos)
    moved |= first_clause_root(heads, deps, sent.deps)
    coordinating_conjunctions(heads, deps)
    moved |= head_first_names(heads, deps, sent.deps, new.pos, tags, sent.words, generic, places)
    # a word a move labelled passes its new label on (a name's first part, then its apposition)
    generic = [deps[i] if i in moved else g for i, g in enumerate(generic)]
    moved |= head_first_appositions(heads, deps, sent.deps, generic)
    moved |= verbal_copulas(heads, deps, sent.deps, tags, generic)
    moved |= adverbial_de(heads, deps, sent.deps, tags, sent.words)
    moved |= potential_complements(heads, deps, sent.deps, sent.words)
    markers = ba_construction(heads, deps, sent.words, sent.deps)
    pos = ["ADP" if i in markers else p for i, p in enumerate(new.pos)]
    spellings = (table or load_table()).get("forms", {})
    words = [east_asian_punct(w) if p == "PUNCT" else spellings.get(w, w) for w, p in zip(sent.words, pos)]
    attach_punctuation(heads, words, pos)
    deps = ["punct" if p == "PUNCT" and h != i else d for i, (d, p, h) in enumerate(zip(deps, pos, heads))]
    return replace(new, words=words, pos=pos, heads=heads, deps=deps), moved


RELABELS = ("gsd_v1_to_v2", "gsd_v1_to_v2_trees", "to_gsdsimp")


def relabel(name: str, sent: Sentence, places: FrozenSet[str] = frozenset()) -> Sentence:
    """Apply the relabelling `name` (one of RELABELS: `relabel_gsd_v1`, `convert_gsd_v1` with
    `places`, `conventions.to_gsdsimp`) to one sentence."""
    if name not in RELABELS:
        raise ValueError(Errors.E109.format(name=name, options=sorted(RELABELS)))
    if name == "to_gsdsimp":
        return to_gsdsimp(sent)
    return relabel_gsd_v1(sent) if name == "gsd_v1_to_v2" else convert_gsd_v1(sent, places=places)
