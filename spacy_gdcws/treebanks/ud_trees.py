"""Move the heads of pre-v2 UD Chinese GSD trees to the shapes of GSDSimp's UD v2 trees.

`relabel.py` renames UPOS and relations; the trees themselves differ too. On the 500 GSD
dev sentences both annotations share, 80.5% of the heads agree, and the disagreements
are a few systematic conventions (counted there, `research/scripts/gsd_v1_to_v2.py`):

- classifiers: v1 attaches the numeral to the classifier and the classifier to the noun
  (一 → 个 → 平台); v2 attaches the numeral to the noun and the classifier to the numeral
  (个 → 一 → 平台);
- clause chains: v1 heads a sentence of clauses by its last clause, the earlier ones its
  `dep` dependents; v2 by its first, the later ones its `parataxis` dependents;
- names: v1 heads a person's name by its last part, v2 by its first (`flat:name`);
- the 把/将 construction: v1 attaches the marker to the verb (`aux:caus`), v2 to the object it
  introduces (`case`), the object the verb's `obl:patient`;
- apposition: v1 attaches the first of two nominals to the second (`appos`), v2 the second
  to the first (UD v2's `appos` is head-first);
- coordination: v1 attaches `cc` to the first conjunct, v2 to the conjunct that follows it;
- punctuation: v2 attaches a mark to the head of the phrase beside it (`treebanks.punct`);
- forms: the release before v2.5 writes ASCII `,` `.` `(` where v2.5 writes East Asian
  `，` `。` `（` (the release notes' "punctuation fix").

Every function takes and returns 0-based heads where a root points to itself (`Sentence`'s
convention); each that sets relations returns the words it labelled (what the label table is not
learned from: `research/scripts/gsd_v1_to_v2.py`).
"""
from typing import FrozenSet, List, Optional, Sequence, Set, Tuple

# ASCII marks that the UD v2.5 release of GSD writes in their East Asian forms
EAST_ASIAN_PUNCT = {",": "，", ".": "。", "(": "（", ")": "）", ":": "：", ";": "；", "?": "？", "!": "！"}


def east_asian_punct(form: str) -> str:
    """A punctuation token's East Asian form where every character of it has one
    (`,` → `，`, `..` → `。。`); other tokens unchanged."""
    if form and all(ch in EAST_ASIAN_PUNCT for ch in form):
        return "".join(EAST_ASIAN_PUNCT[ch] for ch in form)
    return form


def children(heads: Sequence[int], head: int) -> List[int]:
    """The dependents of `head`, left to right."""
    return [i for i, h in enumerate(heads) if h == head and i != head]


def is_ancestor(heads: Sequence[int], node: int, of: int) -> bool:
    """Whether `node` is `of` or dominates it."""
    seen = 0
    while of != node:
        if heads[of] == of or seen > len(heads):
            return False
        of = heads[of]
        seen += 1
    return True


def subtree_spans(heads: Sequence[int]) -> List[Tuple[int, int]]:
    """The first and last position of each node's subtree."""
    spans = [(i, i) for i in range(len(heads))]
    for i in range(len(heads)):
        node, steps = i, 0
        while heads[node] != node and steps <= len(heads):
            node = heads[node]
            lo, hi = spans[node]
            spans[node] = (min(lo, i), max(hi, i))
            steps += 1
    return spans


#: the XPOS of nouns (GSD's PTB-like tags): a measure word under one is a classifier
NOUN_TAGS = frozenset({"NN", "NNB", "NNP"})


def attach_classifiers(heads: List[int], deps: List[str], tags: Sequence[str],
                       old_deps: Optional[Sequence[str]] = None) -> Set[int]:
    """v2's classifier attachment: a classifier (XPOS `NNB`: v2's relation `clf`, or, read off the
    old annotation, v1's `nmod` of a noun with a numeral among its dependents: 三 个 平台, 2008 年 8 月,
    not 1957 年 (成立), a time of its verb) with a numeral to its left goes under the numeral, as its
    `clf`, and the numeral under the classifier's head, as its `nummod` (个 → 一 → 平台). RETURNS the
    words it labelled."""
    labelled: Set[int] = set()
    for clf, tag in enumerate(tags):
        if tag != "NNB" or heads[clf] == clf:
            continue
        in_noun_phrase = old_deps is not None and old_deps[clf] == "nmod" and tags[heads[clf]] in NOUN_TAGS
        if deps[clf] != "clf" and not in_noun_phrase:
            continue
        numerals = [i for i in children(heads, clf) if (deps[i] == "nummod" or (old_deps is not None and old_deps[i] == "nummod"))
                    and i < clf]
        determined = old_deps is not None and any(old_deps[i] == "det" for i in children(heads, clf))
        if numerals and determined:
            continue  # 这 五 篇 散文: with a determiner, v2 keeps the numeral on the classifier (`nmod`)
        if numerals:
            numeral = numerals[-1]
            heads[numeral] = heads[clf]
            heads[clf] = numeral
            deps[clf], deps[numeral] = "clf", "nummod"
            labelled |= {clf, numeral}
        elif in_noun_phrase and any(old_deps[i] == "det" and i < clf for i in children(heads, clf)):
            deps[clf] = "clf"  # 这 类 动画: a determiner's classifier stays under the noun, as `clf`
            labelled.add(clf)
    return labelled


def first_clause_root(heads: List[int], deps: List[str], old_deps: Sequence[str]) -> Set[int]:
    """v2's clause chains: where v1's root has `dep` dependents to its left, the first of them
    becomes the root and the others, and the old root, its `parataxis` dependents; the old root's
    dependents before one of those clauses go with the clause they precede (with the new root
    where they open the sentence). RETURNS the words it labelled."""
    roots = [i for i, h in enumerate(heads) if h == i]
    if len(roots) != 1:
        return set()
    root = roots[0]
    earlier = [i for i in children(heads, root) if i < root and old_deps[i] == "dep"]
    if not earlier:
        return set()
    first = earlier[0]
    for i in children(heads, root):
        if i < earlier[-1] and i not in earlier:
            # what opens the sentence (同样, 第七季) modifies its new root; what opens a later
            # clause, that clause
            heads[i] = next(c for c in earlier if c > i) if i > first else first
    heads[first], deps[first] = first, "root"
    for i in earlier[1:] + [root]:
        heads[i], deps[i] = first, "parataxis"
    return {*earlier, root}


def coordinating_conjunctions(heads: List[int], deps: Sequence[str]) -> None:
    """v2's coordination: a `cc` after the first conjunct goes under the conjunct that
    follows it."""
    for cc, dep in enumerate(deps):
        head = heads[cc]
        if dep != "cc" or head == cc or head > cc:
            continue
        following = [i for i in children(heads, head) if deps[i] == "conj" and i > cc]
        if following:
            heads[cc] = following[0]


def _take_head_place(heads: List[int], deps: List[str], node: int, relation: str,
                     generic: Optional[Sequence[str]] = None) -> None:
    """`node` takes the place of its head: the head's own head (itself, where the head was the
    root) and relation (`generic[head]`, where given: the head's old relation in v2's name read
    without its form, whose label the form alone would tie to the head); the old head becomes
    `node`'s `relation` dependent."""
    head = heads[node]
    heads[node] = node if heads[head] == head else heads[head]
    deps[node] = generic[head] if generic is not None and heads[node] != node else deps[head]
    heads[head], deps[head] = node, relation


def head_first_names(heads: List[int], deps: List[str], old_deps: Sequence[str], upos: Sequence[str],
                     tags: Sequence[str], forms: Optional[Sequence[str]] = None,
                     generic: Optional[Sequence[str]] = None, places: FrozenSet[str] = frozenset()) -> Set[int]:
    """v2's names: a run of proper nouns (XPOS `NNP`, the earlier ones `nmod` of the last,
    at most punctuation such as `·` between) is headed by its first word, the others its
    `flat:name` dependents; the run's relation (`generic[last]`: the last word's old relation in v2's
    name, read without its form) and its other dependents go to the first. A run that opens with a
    place (`places`, e.g. 福建 泉州) and has no middle dot keeps its head: v2 writes `nmod` there.
    RETURNS the words it labelled."""
    labelled: Set[int] = set()

    def name(i: int) -> bool:
        return upos[i] == "PROPN" and tags[i] == "NNP"

    for last in range(len(heads)):
        if not name(last):
            continue
        run, i = [last], last - 1
        while i >= 0 and (upos[i] == "PUNCT" or (name(i) and heads[i] == last and old_deps[i] == "nmod")):
            if upos[i] != "PUNCT":
                run.insert(0, i)
            i -= 1
        if len(run) < 2:
            continue
        first = run[0]
        dotted = any(upos[k] == "PUNCT" for k in range(first, last))
        if forms is not None and not dotted and len(forms[first]) > 1 and forms[first] in places:
            continue
        _take_head_place(heads, deps, first, "flat:name", generic)
        for i in children(heads, last):
            if i not in run:
                heads[i] = first
        for i in run[1:]:
            heads[i], deps[i] = first, "flat:name"
        labelled |= set(run)
    return labelled


BA_MARKERS = frozenset("把将")


def ba_construction(heads: List[int], deps: List[str], words: Sequence[str], old_deps: Sequence[str]) -> Set[int]:
    """v2's 把/将 construction: a marker that v1 attaches to the verb after it (`aux:caus`) goes
    under the verb's object between them (v1's `dobj`), as its `case`; the object becomes the
    verb's `obl:patient`. RETURNS the markers (v2's UPOS for them is ADP, v1's VERB)."""
    markers: Set[int] = set()
    for marker, word in enumerate(words):
        verb = heads[marker]
        if word not in BA_MARKERS or old_deps[marker] != "aux:caus":
            continue
        markers.add(marker)
        if verb <= marker:
            continue
        objects = [i for i in children(heads, verb) if marker < i < verb and old_deps[i] == "dobj"]
        if objects:
            heads[marker], deps[marker] = objects[0], "case"
            deps[objects[0]] = "obl:patient"
    return markers


def head_first_appositions(heads: List[int], deps: List[str], old_deps: Optional[Sequence[str]] = None,
                           generic: Optional[Sequence[str]] = None) -> Set[int]:
    """v2's apposition: where an `appos` (read off `old_deps`, where given) precedes its head, the two
    change places: the first nominal takes its head's head and relation (the root's, where it was
    the root), the second becomes its `appos`, and the second's dependents before the first go with
    it. RETURNS the words it labelled."""
    labelled: Set[int] = set()
    relations = deps if old_deps is None else old_deps
    for first in range(len(heads)):
        second = heads[first]
        if relations[first] != "appos" or second <= first:
            continue
        for i in children(heads, second):
            if i < first:
                heads[i] = first
        _take_head_place(heads, deps, first, "appos", generic)
        labelled |= {first, second}
    return labelled


def flatten_adpositions(heads: List[int], deps: List[str], old_deps: Sequence[str], upos: Sequence[str]) -> Set[int]:
    """v2's adpositional phrase before a noun (与 其他 地区 的 交流): v1 hangs the phrase's noun and
    its 的 from the adposition (`det` of the noun); v2 hangs the adposition (`case`), the noun
    (`nmod`) and 的 (`case`) from the noun the phrase modifies. RETURNS the words it labelled."""
    labelled: Set[int] = set()
    for adp, pos in enumerate(upos):
        head = heads[adp]
        if pos != "ADP" or old_deps[adp] != "det" or head == adp:
            continue
        moved = [i for i in children(heads, adp) if old_deps[i] in ("nmod", "case:dec")]
        if not any(old_deps[i] == "case:dec" for i in moved):
            continue
        for i in moved:
            heads[i] = head
            deps[i] = "nmod" if old_deps[i] == "nmod" else "case"
        deps[adp] = "case"
        labelled |= {adp, *moved}
    return labelled


def verbal_copulas(heads: List[int], deps: List[str], old_deps: Sequence[str], tags: Sequence[str],
                   generic: Sequence[str]) -> Set[int]:
    """v2's verb before a predicate adjective (接触 甚少, 出手 阔绰), which v1 hangs from the adjective as
    its `cop` (XPOS `VV`: not 是 or 为, `VC`): the verb takes the adjective's place and relation, the
    adjective becomes its `xcomp`, and the adjective's dependents before the verb (its subject,
    adverbs, auxiliaries, punctuation; not a nominal modifier) go with the verb. RETURNS the words it
    labelled."""
    labelled: Set[int] = set()
    for verb, tag in enumerate(tags):
        predicate = heads[verb]
        if tag != "VV" or old_deps[verb] != "cop" or predicate == verb or predicate < verb:
            continue
        for i in children(heads, predicate):
            if i < verb and old_deps[i] != "nmod":
                heads[i] = verb
        _take_head_place(heads, deps, verb, "xcomp", generic)
        labelled |= {verb, predicate}
    return labelled


def potential_complements(heads: List[int], deps: List[str], old_deps: Sequence[str], forms: Sequence[str]) -> Set[int]:
    """v2's 不 inside a verb and its complement (达 不 到): v1 hangs it from the complement (`neg`),
    v2 from the verb (`advmod`). RETURNS the words it labelled."""
    labelled: Set[int] = set()
    for neg, form in enumerate(forms):
        complement = heads[neg]
        if form == "不" and old_deps[neg] == "neg" and 0 < neg and complement == neg + 1 \
                and heads[complement] == neg - 1:
            heads[neg], deps[neg] = neg - 1, "advmod"
            labelled.add(neg)
    return labelled


def adverbial_de(heads: List[int], deps: List[str], old_deps: Sequence[str], tags: Sequence[str],
                 forms: Sequence[str]) -> Set[int]:
    """v2's 地 and 得 (XPOS `DEV`), which v1 hangs from the word they mark (`mark`): v2 hangs 地 from
    the modifier it follows (准确 地 描述: 地 → 准确, `mark:adv`), where the modifier hangs from the same
    word, and 得 from the verb it follows (变 得 频繁: 得 → 变, `compound:ext`). RETURNS the words it
    labelled."""
    labelled: Set[int] = set()
    for de, tag in enumerate(tags):
        if tag != "DEV" or old_deps[de] != "mark" or de == 0 or heads[de] == de:
            continue
        if forms[de] == "地" and heads[de - 1] == heads[de]:
            heads[de], deps[de] = de - 1, "mark:adv"
            labelled.add(de)
        elif forms[de] == "得" and tags[de - 1].startswith("V"):
            heads[de], deps[de] = de - 1, "compound:ext"
            labelled.add(de)
    return labelled
