"""The gold of training examples aligned to their predicted words, as the parser's rows, kept per
example across epochs.

spaCy's `Language.update` copies every example before a component sees it, so the alignment an
`Example` caches is lost each step and was computed again on every update (a tenth of a training
step of the `fast` parser on 2 cores). The aligned gold of an example is a function of its predicted
words and its reference's words and annotation only; `AlignedGold` keys it by a digest of those
arrays and computes it once.
"""
import hashlib
from typing import Dict, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import DEP, ENT_IOB, ENT_TYPE, HEAD, ORTH, POS, TAG
from spacy.training import Example

#: a row with no gold (not scored)
IGNORE = -1
#: the row of the root's relation among the parser's labels (the first)
ROOT_ROW = 0

Rows = Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]
#: spaCy's BILUO prefixes of an aligned entity tag -> IOB2's
_IOB2 = {"B": "B", "U": "B", "I": "I", "L": "I"}


class AlignedGold:
    """Per example, on its predicted words: the gold head (a predicted token's index, the token
    itself for the root, -1 where there is none), the relation, UPOS, XPOS and IOB2 entity tag rows
    (IGNORE where unknown: an entity tag where the reference has no entity annotation, or where a
    predicted word does not align with its words), computed once per example and labels.

    limit (int): Examples kept; past it the cache starts again (a training set larger than
        this aligns its examples every epoch, as without the cache).
    """

    def __init__(self, limit: int = 500_000) -> None:
        self.limit = limit
        self._rows: Dict[bytes, Rows] = {}
        self._labels: Optional[Dict[str, Dict[str, int]]] = None

    def __call__(self, eg: Example, labels: Dict[str, Dict[str, int]]) -> Rows:
        """The rows of `eg` under `labels` ({"upos"|"xpos"|"deps"|"ents": {label: row}})."""
        if labels != self._labels:
            self._rows.clear()
            self._labels = {kind: dict(rows) for kind, rows in labels.items()}
        key = _key(eg)
        rows = self._rows.get(key)
        if rows is None:
            if len(self._rows) >= self.limit:
                self._rows.clear()
            rows = self._rows[key] = _align(eg, labels)
        return rows


def _key(eg: Example) -> bytes:
    """A digest of what the aligned gold depends on: the predicted words and the reference's
    words, heads, relations, tags and entities (spaCy aligns by the tokens' texts)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(eg.predicted.to_array(ORTH).tobytes())
    digest.update(b"|")
    digest.update(eg.reference.to_array([ORTH, HEAD, DEP, POS, TAG, ENT_IOB, ENT_TYPE]).tobytes())
    return digest.digest()


def _align(eg: Example, labels: Dict[str, Dict[str, int]]) -> Rows:
    gold_heads, gold_deps = eg.get_aligned_parse(projectivize=False)
    gold_pos = eg.get_aligned("POS", as_string=True)
    gold_tag = eg.get_aligned("TAG", as_string=True)
    deps, upos, xpos = labels.get("deps", {}), labels.get("upos", {}), labels.get("xpos", {})
    n = len(eg.predicted)
    heads = numpy.full(n, -1, dtype=numpy.int64)
    dep_rows = numpy.full(n, IGNORE, dtype=numpy.int64)
    for i, (h, dep) in enumerate(zip(gold_heads, gold_deps)):
        if h is not None and dep:
            heads[i] = h
            # the root's relation, whatever the data calls it (root, ROOT)
            dep_rows[i] = ROOT_ROW if h == i else deps.get(dep, IGNORE)
    upos_rows = numpy.array([upos.get(p, IGNORE) if p else IGNORE for p in gold_pos], dtype=numpy.int64)
    xpos_rows = numpy.array([xpos.get(t, IGNORE) if t else IGNORE for t in gold_tag], dtype=numpy.int64)
    return heads, dep_rows, upos_rows, xpos_rows, entity_rows(eg, labels.get("ents", {}))


def entity_rows(eg: Example, ents: Dict[str, int]) -> numpy.ndarray:
    """The IOB2 entity tag row of each predicted word (IGNORE where the reference has no entity
    annotation, the word is not aligned with its words, or its tag has no row)."""
    rows = numpy.full(len(eg.predicted), IGNORE, dtype=numpy.int64)
    if not ents or not eg.reference.has_annotation("ENT_IOB"):
        return rows
    for i, tag in enumerate(eg.get_aligned_ner()):
        if tag == "O":
            rows[i] = ents.get("O", IGNORE)
        elif tag and tag[:1] in _IOB2 and tag[1:2] == "-":
            rows[i] = ents.get(f"{_IOB2[tag[0]]}-{tag[2:]}", IGNORE)
    return rows


def aligned_gold(examples: Sequence[Example], where: List[Tuple[int, List[int]]], max_len: int,
                 labels: Dict[str, Dict[str, int]], cache: AlignedGold) -> Rows:
    """(heads, relations, UPOS, XPOS, entity tags), each (len(where), max_len): the gold of the
    sentences `where` names (doc index, token indices), heads as 0 = root and k + 1 = word k of the
    sentence, IGNORE where unknown or where the gold head lies outside the sentence."""
    n = len(where)
    out = tuple(numpy.full((n, max_len), IGNORE, dtype=numpy.int64) for _ in range(5))
    heads, deps, upos, xpos, ents = out
    by_doc: Dict[int, Rows] = {}
    for b, (d, sent) in enumerate(where):
        if d not in by_doc:  # a doc's sentences share its rows
            by_doc[d] = cache(examples[d], labels)
        gold_heads, gold_deps, gold_upos, gold_xpos, gold_ents = by_doc[d]
        tokens = numpy.asarray(sent, dtype=numpy.int64)
        k = len(tokens)
        position = numpy.full(len(gold_heads), -1, dtype=numpy.int64)
        position[tokens] = numpy.arange(k)
        h = gold_heads[tokens]
        head_position = numpy.where(h >= 0, position[numpy.maximum(h, 0)], -1)
        root = h == tokens
        inside = (h >= 0) & ~root & (head_position >= 0)
        heads[b, :k] = numpy.where(root, 0, numpy.where(inside, head_position + 1, IGNORE))
        deps[b, :k] = numpy.where(root | inside, gold_deps[tokens], IGNORE)
        upos[b, :k] = gold_upos[tokens]
        xpos[b, :k] = gold_xpos[tokens]
        ents[b, :k] = gold_ents[tokens]
    return heads, deps, upos, xpos, ents
