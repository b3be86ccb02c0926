"""UD v2's punctuation attachment for trees converted to GSDSimp's conventions: a mark hangs from
the head of the phrase beside it, the highest node that keeps the tree projective
(https://universaldependencies.org/u/dep/punct.html); brackets and quotes from the heads of what they
enclose; the sentence's final mark from the root. Written after the UD guideline (udapi's
`ud.FixPunct`, which implements it, is GPL-3.0; this package is MIT). Heads are 0-based, a root
points to itself (`Sentence`'s convention)."""
from typing import Dict, List, Optional, Sequence, Tuple

from spacy_gdcws.treebanks.ud_trees import is_ancestor, subtree_spans

# a bracket or quote that opens, and the mark that closes it
PAIRED_PUNCT = {"(": ")", "（": "）", "[": "]", "［": "］", "{": "}", "《": "》", "〈": "〉", "「": "」",
                "『": "』", "【": "】", "〔": "〕", "“": "”", "‘": "’"}
# marks that end a sentence: attached to the left (to the root where they end it)
FINAL_PUNCT = frozenset("。？！.?!")

def _projective(heads: Sequence[int], spans: Sequence[Tuple[int, int]], punct: int, head: int) -> bool:
    """Whether `punct` (a leaf) may hang from `head` without crossing an arc: every word
    between them under `head`, and no other subtree around `punct` left with a gap."""
    lo, hi = sorted((punct, head))
    if not all(is_ancestor(heads, head, i) for i in range(lo + 1, hi)):
        return False
    for node, (first, last) in enumerate(spans):
        if node != punct and first < punct < last and not is_ancestor(heads, node, head):
            return False  # node's subtree would have the mark in a gap
    return True


def _climb(heads: Sequence[int], spans: Sequence[Tuple[int, int]], start: int, punct: int, left: bool) -> List[int]:
    """Nodes from `start` up through the heads that stay on the same side of `punct` and
    whose subtrees do not reach across it."""
    path = [start]
    node = start
    while heads[node] != node:
        head = heads[node]
        if (head > punct) == left or (spans[node][1] > punct if left else spans[node][0] < punct):
            break
        node = head
        path.append(node)
    return path


def _neighbour(upos: Sequence[str], kinds: Dict[int, str], heads: Sequence[int], punct: int, step: int) -> Optional[int]:
    """The nearest word that is not punctuation beside `punct` (`step` -1 left, 1 right);
    None past the sentence or past a bracket that belongs to something else."""
    i = punct + step
    while 0 <= i < len(upos) and upos[i] == "PUNCT":
        if kinds.get(i) == ("opening" if step < 0 else "closing") and heads[i] != punct:
            return None
        i += step
    return i if 0 <= i < len(upos) else None


def _pair_brackets(heads: List[int], forms: Sequence[str], upos: Sequence[str]) -> Dict[int, str]:
    """Attach each bracket or quote pair to the first and last head of what it encloses;
    returns which positions are opening and closing marks."""
    kinds: Dict[int, str] = {}
    n = len(forms)
    for opening, form in enumerate(forms):
        closing_form = PAIRED_PUNCT.get(form)
        if closing_form is None or upos[opening] != "PUNCT" or opening in kinds:
            continue
        depth, closing = 0, None
        for i in range(opening + 1, n):
            if forms[i] == closing_form and depth == 0:
                closing = i
                break
            depth += (forms[i] == form) - (forms[i] == closing_form)
        if closing is None:
            continue
        inside = range(opening + 1, closing)
        enclosed = {i for i in inside if not opening < heads[i] < closing or heads[i] == i}
        enclosed |= {heads[i] for i in range(n)
                     if i not in inside and i not in (opening, closing) and i != heads[i] and heads[i] in inside}
        words = sorted(i for i in enclosed if upos[i] != "PUNCT")
        if not words:  # a quoted mark: the pair is left to the rule for single marks
            continue
        kinds[opening], kinds[closing] = "opening", "closing"
        for mark, head in ((opening, words[0]), (closing, words[-1])):
            if _projective(heads, subtree_spans(heads), mark, head):
                heads[mark] = head
    return kinds


def attach_punctuation(heads: List[int], forms: Sequence[str], upos: Sequence[str]) -> None:
    """UD v2's punctuation attachment (see the module's docstring), in place."""
    n = len(heads)
    for i in range(n):  # a mark has no dependents: they go to its head
        steps = 0
        while heads[i] != i and upos[heads[i]] == "PUNCT" and heads[heads[i]] != heads[i] and steps <= n:
            heads[i] = heads[heads[i]]
            steps += 1
    kinds = _pair_brackets(heads, forms, upos)
    for punct in range(n):
        if upos[punct] != "PUNCT" or punct in kinds or heads[punct] == punct:
            continue
        spans = subtree_spans(heads)
        left = _neighbour(upos, kinds, heads, punct, -1)
        right = None if forms[punct][:1] in FINAL_PUNCT else _neighbour(upos, kinds, heads, punct, 1)
        left_path, right_path = (
            [] if start is None else
            [i for i in _climb(heads, spans, start, punct, start < punct) if _projective(heads, spans, punct, i)]
            for start in (left, right))
        lc = left_path[-1] if left_path else None
        rc = right_path[-1] if right_path else None
        if lc is not None and rc is not None and is_ancestor(heads, rc, lc):
            cand, path = lc, left_path
        elif lc is not None and rc is not None and is_ancestor(heads, lc, rc):
            cand, path = rc, right_path
        elif lc is not None or rc is not None:
            cand, path = (lc if lc is not None else rc), left_path + right_path  # type: ignore[assignment]
        else:
            continue
        if heads[punct] not in path:  # keep a head the guideline allows, else the lowest it names
            heads[punct] = cand
    last = n - 1
    root = next((i for i, h in enumerate(heads) if h == i), None)
    if root is not None and last != root and upos[last] == "PUNCT" and forms[last][:1] in FINAL_PUNCT:
        if _projective(heads, subtree_spans(heads), last, root):
            heads[last] = root
