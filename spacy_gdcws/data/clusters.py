"""Extended grapheme clusters (Unicode's UAX #29, as `regex`'s `\\X` finds them) of character docs, and
the view of a batch that the segmenter's model reads: one position per cluster.

A cluster of several characters (a character and its combining marks, a zero-width joiner after a
character, an emoji sequence, a flag, a Hangul syllable of jamo, Devanagari's conjuncts, Thai กำ) is
never cut, and the model scores it as one character, its first: so a zero-width joiner or a
variation selector inside Han text, which joins nothing there, changes no word (`我们\\u200d热爱`
segments as `我们热爱`), and an emoji sequence stands as one emoji would. Whitespace tokens are
clusters of their own. Most text has no cluster of several characters; one `regex` search over a
batch's text finds that out (`NOT_FIRST`) and leaves it as it is.
"""
from typing import List, Optional

import numpy
import regex
from spacy.tokens import Doc

from spacy_gdcws.data.doc_arrays import DocBatch

CLUSTER = regex.compile(r"\X")
# the characters that can stand inside a cluster after its first (UAX #29's Grapheme_Cluster_Break values
# that join what precedes them, and Prepend and L, which join what follows): text without any has
# only clusters of one character
NOT_FIRST = regex.compile(r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}\p{GCB=Prepend}\p{GCB=L}\p{GCB=V}"
                          r"\p{GCB=T}\p{GCB=Regional_Indicator}]")


def continues(text: str, idx: numpy.ndarray, is_space: numpy.ndarray) -> Optional[numpy.ndarray]:
    """Bool per token: whether it continues the cluster of the token before it (`idx`: each token's
    offset in `text`; whitespace tokens never join one); None where no token does."""
    if not len(idx) or NOT_FIRST.search(text) is None:
        return None
    starts = numpy.fromiter((m.start() for m in CLUSTER.finditer(text)), dtype=numpy.int64)
    out = ~numpy.isin(idx, starts) & ~is_space
    out[1:] &= ~is_space[:-1]
    out[0] = False
    return out if out.any() else None


class ClusterView:
    """A batch as the model reads it where some token continues a cluster: each doc with one token
    per cluster (its first character; whitespace as it is), and the way back from its boundaries.

    batch (DocBatch): The character docs. joined (numpy.ndarray): `continues` over the laid-out batch.
    """

    def __init__(self, batch: DocBatch, joined: numpy.ndarray) -> None:
        self.batch = batch
        self.joined = joined
        laid = batch.arrays
        texts = [laid.token_texts(k) for k in range(len(batch))]
        docs: List[Doc] = []
        for k, (doc, tokens) in enumerate(zip(batch, texts)):
            start, n = int(laid.starts[k]), int(laid.lengths[k])
            keep = ~joined[start: start + n]
            trailing = laid.arrays.trailing[start: start + n]
            # a cluster's trailing space is its last token's
            ends = numpy.concatenate([numpy.flatnonzero(keep)[1:] - 1, [n - 1]]) if keep.any() else numpy.zeros(0, int)
            words = [tokens[i][0] if not tokens[i].isspace() else tokens[i] for i in numpy.flatnonzero(keep).tolist()]
            docs.append(Doc(doc.vocab, words=words, spaces=trailing[ends].tolist()) if words else doc)
        self.view = DocBatch(docs)

    @classmethod
    def of(cls, batch: DocBatch) -> Optional["ClusterView"]:
        """The view of a batch with a cluster of several tokens; None for one without (read as it is)."""
        if not batch:
            return None
        arrays = batch.arrays.arrays
        joined = continues(arrays.text, arrays.idx, arrays.is_space)
        return None if joined is None else cls(batch, joined)

    def bounds(self, view_bounds: numpy.ndarray) -> numpy.ndarray:
        """The batch's flat boundaries from the view's (`Decoder.flat_boundaries` over the view): no
        boundary inside a cluster; between two clusters, the view's gap between them."""
        laid, view_laid = self.batch.arrays, self.view.arrays
        out = numpy.zeros(max(len(laid.arrays) - 1, 0), dtype=bool)
        for k in range(len(self.batch)):
            start, n = int(laid.starts[k]), int(laid.lengths[k])
            if n < 2:
                continue
            cluster = numpy.cumsum(~self.joined[start: start + n]) - 1  # each token's cluster in the view
            gaps = view_bounds[int(view_laid.starts[k]):][: max(int(view_laid.lengths[k]) - 1, 0)]
            apart = cluster[1:] != cluster[:-1]
            out[start: start + n - 1] = apart & gaps[numpy.minimum(cluster[:-1], max(len(gaps) - 1, 0))] if len(gaps) else False
        return out
