"""The parser's labels decoded under constraints: relations that UD's validator requires (the
left-headed relations, at most one subject per predicate) and UPOS-XPOS pairs seen in training.

Each is exact for what it constrains, given the arcs: the relation of every arc is the best label
its direction allows; where several dependents of one head would be subjects, the one that loses
least by being a subject keeps it and the others take their best other label; a word's (UPOS, XPOS)
is the pair of highest joint log-probability among the pairs the training data has.
"""
from typing import Iterable, Sequence, Tuple

import numpy

#: relations whose head precedes the dependent (UD's validator, level 3: `conj`, `fixed`, `flat`,
#: `goeswith`, `appos` are left-headed), subtypes included
LEFT_HEADED = frozenset({"conj", "fixed", "flat", "goeswith", "appos"})
#: relations a predicate has at most one of (UD's validator: `nsubj` and `csubj`, their subtypes
#: but `:outer`, which marks the outer subject of a double-subject clause)
SUBJECTS = frozenset({"nsubj", "csubj"})


def _base(label: str) -> str:
    return label.split(":", 1)[0]


def relation_masks(labels: Sequence[str]) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Boolean masks over the relation rows: (left-headed, subject)."""
    left = numpy.array([_base(label) in LEFT_HEADED for label in labels], dtype=bool)
    subject = numpy.array([_base(label) in SUBJECTS and not label.endswith(":outer") for label in labels], dtype=bool)
    return left, subject


def constrained_relations(logits: numpy.ndarray, is_root: numpy.ndarray, root_label: int,
                          right_headed: numpy.ndarray, heads: numpy.ndarray, left_headed: numpy.ndarray,
                          subject: numpy.ndarray) -> numpy.ndarray:
    """The relation of each of N decoded arcs under UD's constraints: the root's label for a root
    word; elsewhere the best label that is not the root's, not left-headed on an arc whose head
    follows its dependent, and a subject for at most one dependent of each head.

    logits (numpy.ndarray): (N, L) relation logits of the arcs.
    is_root (numpy.ndarray): (N,) whether each arc is the root's.
    root_label (int): The row of the root's relation.
    right_headed (numpy.ndarray): (N,) whether each arc's head follows its dependent.
    heads (numpy.ndarray): (N,) a key of each arc's head, equal for arcs of the same head (e.g. the
        sentence's number times the longest sentence plus the head's position).
    left_headed, subject (numpy.ndarray): (L,) masks of `relation_masks`.
    RETURNS (numpy.ndarray): (N,) relation rows.
    """
    if not len(logits):
        return numpy.zeros(0, dtype=numpy.int64)
    scores = numpy.array(logits, dtype=numpy.float32, copy=True)
    scores[:, root_label] = -numpy.inf
    scores[numpy.ix_(numpy.asarray(right_headed, dtype=bool), left_headed)] = -numpy.inf
    best = scores.argmax(-1)
    chosen = numpy.flatnonzero(subject[best] & ~is_root)
    keys, counts = numpy.unique(heads[chosen], return_counts=True)
    for key in keys[counts > 1]:
        arcs = chosen[heads[chosen] == key]
        others = scores[arcs][:, ~subject]
        loss = scores[arcs, best[arcs]] - others.max(-1)
        keep = arcs[int(loss.argmax())]
        for arc, row in zip(arcs, others.argmax(-1)):
            if arc != keep:
                best[arc] = numpy.flatnonzero(~subject)[row]
    return numpy.where(is_root, root_label, best).astype(numpy.int64)


def tag_pair_mask(pairs: Iterable[Sequence[str]], upos: Sequence[str], xpos: Sequence[str]) -> numpy.ndarray:
    """(U, X) whether each (UPOS, XPOS) row pair was seen in training; a UPOS with no pair seen
    (or labels not in `pairs`) allows every XPOS."""
    u_rows = {label: i for i, label in enumerate(upos)}
    x_rows = {label: i for i, label in enumerate(xpos)}
    mask = numpy.zeros((len(upos), len(xpos)), dtype=bool)
    for u, x in pairs:
        if u in u_rows and x in x_rows:
            mask[u_rows[u], x_rows[x]] = True
    mask[~mask.any(-1)] = True
    return mask


def _log_softmax(logits: numpy.ndarray) -> numpy.ndarray:
    logits = numpy.asarray(logits, dtype=numpy.float32)
    shifted = logits - logits.max(-1, keepdims=True)
    return shifted - numpy.log(numpy.exp(shifted).sum(-1, keepdims=True))


def agreeing_tags(upos_logits: numpy.ndarray, xpos_logits: numpy.ndarray,
                  allowed: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Each word's (UPOS, XPOS) rows: the pair of highest log p(UPOS) + log p(XPOS) among the
    allowed pairs.

    upos_logits (numpy.ndarray): (N, U) logits; xpos_logits (numpy.ndarray): (N, X) logits.
    allowed (numpy.ndarray): (U, X) `tag_pair_mask`.
    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): (N,) UPOS rows and (N,) XPOS rows.
    """
    n_xpos = allowed.shape[1]
    joint = _log_softmax(upos_logits)[:, :, None] + _log_softmax(xpos_logits)[:, None, :]
    joint = numpy.where(allowed[None], joint, -numpy.inf).reshape(len(joint), -1)
    best = joint.argmax(-1)
    return (best // n_xpos).astype(numpy.int64), (best % n_xpos).astype(numpy.int64)
