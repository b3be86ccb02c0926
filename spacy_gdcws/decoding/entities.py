"""Entity tag scores -> entities (numpy): the best IOB2 tag sequence of each sentence under IOB2's
constraints (an `I-X` only after `B-X` or `I-X`) and a CRF's transition scores, by Viterbi over a
batch of sentences at once, and its chunks as word spans.

The tags of a model are its labels in row order: `O`, then `B-X` and `I-X` for each type
(`entity_tags`).
"""
from typing import List, Optional, Sequence, Tuple

import numpy

from spacy_gdcws.readers.iob2 import OUTSIDE, Span, iob2_spans

#: an entity over the words of a sentence: (first word, end word, label), end exclusive
WordSpan = Span


def entity_tags(types: Sequence[str]) -> List[str]:
    """The IOB2 tags of entity types, in row order: `O`, then `B-X`, `I-X` per type (sorted)."""
    return [OUTSIDE] + [f"{prefix}-{kind}" for kind in sorted(types) for prefix in ("B", "I")]


def allowed_steps(tags: Sequence[str]) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """IOB2's constraints: `allowed[i, j]` whether tag j may follow tag i, and `first[j]` whether a
    sentence may begin with tag j (neither lets an `I-X` begin an entity)."""
    n = len(tags)
    inside = [t[2:] if t.startswith("I-") else None for t in tags]
    kind = [t[2:] if t != OUTSIDE else None for t in tags]
    allowed = numpy.ones((n, n), dtype=bool)
    for j in range(n):
        if inside[j] is not None:
            allowed[:, j] = [kind[i] == inside[j] for i in range(n)]
    first = numpy.array([inside[j] is None for j in range(n)], dtype=bool)
    return allowed, first


def best_tags(log_probs: numpy.ndarray, lengths: numpy.ndarray, allowed: numpy.ndarray,
              first: numpy.ndarray, transitions: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """The best allowed tag sequence of each sentence (Viterbi over the batch at once).

    log_probs (numpy.ndarray): (B, T, K) each word's tag scores (log-probabilities, or a CRF's emissions).
    lengths (numpy.ndarray): (B,) words per sentence.
    allowed, first (numpy.ndarray): `allowed_steps`' constraints.
    transitions (Optional[numpy.ndarray]): (K, K) a CRF's score of tag j following tag i (None: 0).
    RETURNS (numpy.ndarray): (B, T) tag rows, -1 past each sentence's end.
    """
    n_sents, n_words, n_tags = log_probs.shape
    out = numpy.full((n_sents, n_words), -1, dtype=numpy.int64)
    if n_sents == 0 or n_words == 0:
        return out
    steps = numpy.where(allowed, 0.0 if transitions is None else transitions, -numpy.inf)
    score = numpy.where(first, log_probs[:, 0], -numpy.inf)
    back = numpy.zeros((n_sents, n_words, n_tags), dtype=numpy.int64)
    for t in range(1, n_words):
        candidates = score[:, :, None] + steps[None]  # (B, previous, next)
        best = candidates.argmax(1)
        stepped = numpy.take_along_axis(candidates, best[:, None, :], 1)[:, 0] + log_probs[:, t]
        live = (t < lengths)[:, None]
        back[:, t] = best
        score = numpy.where(live, stepped, score)
    # back from each sentence's last word, all sentences at once
    tag = score.argmax(-1)
    rows = numpy.arange(n_sents)
    for t in range(n_words - 1, -1, -1):
        live = t < lengths
        out[live, t] = tag[live]
        tag = numpy.where(live, back[rows, t, tag], tag)
    return out


def begin_rows(tags: Sequence[str]) -> numpy.ndarray:
    """The row of the tag that begins an entity of each tag's type: `B-X` for `I-X`, each other tag's own."""
    index = {tag: i for i, tag in enumerate(tags)}
    return numpy.array([index.get("B-" + t[2:], i) if t.startswith("I-") else i for i, t in enumerate(tags)],
                       dtype=numpy.int64)


def tag_spans(rows: Sequence[int], tags: Sequence[str]) -> List[WordSpan]:
    """The entities of one sentence's tag rows (-1: past its end), chunked as an IOB2 file's tags are
    (`readers.iob2.iob2_spans`)."""
    return iob2_spans([tags[row] if row >= 0 else OUTSIDE for row in rows])[0]
