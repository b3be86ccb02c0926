"""UD Chinese HK, CFL and PUD brought to the conventions of UD_Chinese-GSDSimp, where the difference
is systematic: the main job trains one tagger and parser on all four, and a word that one treebank
labels one way and another the other teaches the parser two answers to one question.

Four steps: the first is UD's own subtype system (`RENAMES`), the next two read
`gsdsimp_conventions.json` (learned from the converted GSD training file,
`research/scripts/gsdsimp_conventions.py`, never from a dev or test file):

- relations GSDSimp never writes take the one it writes for the same thing (`RENAMES`: `obl:tmod` →
  `nmod:tmod`, `case:loc` → `case`, `discourse:sp` → `discourse`, a directional complement's
  `compound:dir` → `mark`, a foreign `flat` → `flat:foreign`, another `flat` → `flat:name`);
- a function word that GSDSimp labels one way in 90% of its uses or more (也, 就, 都 as SCONJ/`mark`)
  takes that UPOS and relation where the other treebank gives it another function relation
  (ADV/`advmod`): `functions`;
- a word whose relation GSDSimp pairs with one UPOS (的 as `mark:rel` is SCONJ) takes it: `upos`;
- a numeral on its classifier (PUD: 三 → 个 → 人) goes to the noun, the classifier under it (GSDSimp:
  个 → 三 → 人), as `treebanks.ud_trees.attach_classifiers` does for GSD.

Forms are compared in simplified characters (OpenCC t2s, character by character, as the segmenter
reads them); the words written stay the treebank's.
"""
import json
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Callable, Dict, List, Optional

from spacy_gdcws.data.normalize import get_normalizer
from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.treebanks.ud_trees import children

TABLE_PATH = Path(__file__).with_name("gsdsimp_conventions.json")
#: GSDSimp's relation for each relation of HK, CFL or PUD that it never writes (PUD's `dep`,
#: `fixed` and `reparandum` have no counterpart there and are kept)
RENAMES = {"obl:tmod": "nmod:tmod", "case:loc": "case", "obl:agent": "obl", "discourse:sp": "discourse",
           "compound:dir": "mark", "compound:vv": "compound", "compound:vo": "compound", "mark:prt": "mark",
           "advmod:df": "advmod", "nsubj:outer": "nsubj", "obj:periph": "obj"}
#: the relations of a word's function (not of an argument or a modifier phrase): where one is
#: replaced by GSDSimp's usual function of the word
FUNCTION_RELATIONS = frozenset({"advmod", "mark", "case", "aux", "cc", "discourse", "det", "cop", "mark:rel",
                                "mark:adv", "compound:ext", "aux:pass"})


@lru_cache(maxsize=1)
def load_conventions(path: Path = TABLE_PATH) -> Dict[str, Dict[str, object]]:
    """The shipped table: {"functions": {form: [UPOS, rel]}, "upos": {"form\\trel": UPOS}}."""
    with open(path, encoding="utf8") as fileh:
        return json.load(fileh)


def to_gsdsimp(sent: Sentence, table: Optional[Dict[str, Dict[str, object]]] = None,
               normalize: Optional[Callable[[str], str]] = None) -> Sentence:
    """The sentence in GSDSimp's conventions (see the module's docstring): its words and XPOS kept.

    normalize (Optional[Callable[[str], str]]): How forms are compared (default: OpenCC t2s,
        character by character).
    """
    if sent.pos is None or sent.deps is None or sent.heads is None:
        return sent
    table = table or load_conventions()
    functions, upos_of = table["functions"], table["upos"]
    normalize = normalize or get_normalizer("t2s").text
    forms = [normalize(w) for w in sent.words]
    pos: List[str] = list(sent.pos)
    deps: List[str] = [_rename(d, p) for d, p in zip(sent.deps, sent.pos)]
    for i, form in enumerate(forms):
        if deps[i] in FUNCTION_RELATIONS and form in functions:
            pos[i], deps[i] = functions[form]  # type: ignore[index]
        elif f"{form}\t{deps[i]}" in upos_of:
            pos[i] = upos_of[f"{form}\t{deps[i]}"]  # type: ignore[index]
    heads = list(sent.heads)
    numerals_to_nouns(heads, deps)
    return replace(sent, pos=pos, deps=deps, heads=heads)


def _rename(dep: str, upos: str) -> str:
    if dep == "flat":
        return "flat:foreign" if upos == "X" else "flat:name"
    return RENAMES.get(dep, dep)


def numerals_to_nouns(heads: List[int], deps: List[str]) -> None:
    """GSDSimp's classifier: a `clf` with a numeral (`nummod`) to its left goes under the numeral,
    the numeral under the classifier's head (三 → 个 → 人 becomes 个 → 三 → 人)."""
    for clf, dep in enumerate(deps):
        if dep != "clf" or heads[clf] == clf:
            continue
        numerals = [i for i in children(heads, clf) if deps[i] == "nummod" and i < clf]
        if numerals:
            numeral = numerals[-1]
            heads[numeral], heads[clf] = heads[clf], numeral
