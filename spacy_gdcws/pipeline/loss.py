"""The segmenter's losses against gold words: binary cross-entropy of each gap,
the gap chain's CRF (gap logits plus the weighted decoding priors), and a BMES
CRF tagger's likelihood (with BCE on its auxiliary HiRED gap logits)."""
from typing import Callable, List, Optional, Sequence, Tuple

import numpy
from spacy.tokens import Doc
from spacy.training import Example
from thinc.types import Floats2d

from spacy_gdcws.data.bmes import N_TAGS, TAG_COLUMNS
from spacy_gdcws.data.ragged import ragged_positions
from spacy_gdcws.decoding.chain import chain_marginals
from spacy_gdcws.decoding.crf import aux_gap_scores
from spacy_gdcws.decoding.decoder import Decoder

LOSSES = ("bce", "crf")


def gold_gaps(eg: Example) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Gold labels and mask of the gaps of `eg.predicted`.

    Gap j is a boundary iff tokens j and j + 1 align to different gold words;
    it is masked (no loss) when either side is not aligned 1:1 to a gold word
    (whitespace tokens, characters that the reference lacks or splits).

    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): float32 labels and bool mask,
        each of shape (len(eg.predicted) - 1,).
    """
    n = len(eg.predicted)
    if n < 2:
        return numpy.zeros((0,), dtype="f"), numpy.zeros((0,), dtype=bool)
    x2y = eg.alignment.x2y
    lengths = numpy.asarray(x2y.lengths)
    data = numpy.asarray(x2y.data)
    one = lengths == 1
    starts = numpy.cumsum(lengths) - lengths
    word = numpy.full(n, -1, dtype=numpy.int64)
    word[one] = data[starts[one]]
    mask = one[:-1] & one[1:]
    labels = (word[:-1] != word[1:]).astype("f")
    return labels, mask


def bce(s: numpy.ndarray, labels: numpy.ndarray, mask: numpy.ndarray, n_gold: int) -> Tuple[float, numpy.ndarray]:
    """Binary cross-entropy of gap logits `s` (n_gaps, k) against gold labels,
    over the masked gaps, divided by n_gold; RETURNS the loss and d_s."""
    probs = 0.5 * (1.0 + numpy.tanh(0.5 * s))  # sigmoid without overflow
    weight = mask[:, None].astype("f") / n_gold
    # log(1 + exp(-|s|)) + max(s, 0) - s * y: stable BCE with logits
    loss = numpy.logaddexp(0.0, -numpy.abs(s)) + numpy.maximum(s, 0.0) - s * labels[:, None]
    return float((loss * weight).sum()), ((probs - labels[:, None]) * weight).astype("f")


HeldOut = Callable[[Doc], Optional[Tuple[dict, numpy.ndarray]]]


def no_prior(doc: Doc) -> None:
    """The `HeldOut` of a segmenter without held-out priors: none for any doc."""
    return None


def gap_loss(examples: List[Example], scores: Sequence[Floats2d], forced: Sequence[numpy.ndarray], decoder: Decoder,
             kind: str, held_out: HeldOut) -> Tuple[float, List[numpy.ndarray]]:
    """BCE over the gold gaps, summed over the score columns (main + HiRED) and
    averaged over the gaps with a gold label; with `kind = "crf"` the final
    scorer's column is scored by the gap chain's CRF instead (`chain_loss`).
    `forced`: each predicted doc's gaps next to whitespace (`DocBatch.forced`).
    `held_out(doc)`: the tag prior without the doc's block, or None."""
    golds = [gold_gaps(eg) for eg in examples]
    n_gold = max(sum(int(mask.sum()) for _, mask in golds), 1)
    loss = 0.0
    d_scores = []
    for eg, (labels, mask), doc_scores, doc_forced in zip(examples, golds, scores, forced):
        s = numpy.asarray(doc_scores, dtype="f")
        if kind == "crf" and len(s):
            # the final scorer's column by the CRF, the others (HiRED) by BCE
            crf, d_final = chain_loss(eg, s[:, 0], labels, mask, doc_forced, decoder, held_out(eg.predicted))
            rest, d_rest = bce(s[:, 1:], labels, mask, n_gold)
            loss += crf / n_gold + rest
            d_doc = numpy.concatenate([(d_final / n_gold)[:, None], d_rest], axis=1)
        else:
            doc_loss, d_doc = bce(s, labels, mask, n_gold)
            loss += doc_loss
        d_scores.append(d_doc.astype("f"))
    return loss, d_scores


def chain_loss(eg: Example, logits: numpy.ndarray, labels: numpy.ndarray, mask: numpy.ndarray, forced: numpy.ndarray,
               decoder: Decoder, held_out: Optional[Tuple[dict, numpy.ndarray]]) -> Tuple[float, numpy.ndarray]:
    """Negative log-likelihood of the gold gaps under the linear-chain model
    that decoding maximises (`chain.chain_marginals`): gap logits plus the
    weighted priors. Gaps without a gold label are summed over; gaps next to
    whitespace (`forced`) are boundaries. RETURNS the loss and its gradient per gap."""
    doc = eg.predicted
    logits = logits - decoder.threshold_logit
    free = numpy.where(forced, 1, -1)
    gold = numpy.where(mask, labels > 0.5, free).astype(numpy.int64)
    log_trans, pairs = decoder.pair_scores([t.text for t in doc], held_out)
    log_z, p_free = chain_marginals(logits, log_trans, decoder.transition_weight, free, pairs)
    log_z_gold, p_gold = chain_marginals(logits, log_trans, decoder.transition_weight, gold, pairs)
    return log_z - log_z_gold, p_free - p_gold


def tagger_loss(examples: List[Example], scores: Sequence[numpy.ndarray],
                forced: Sequence[numpy.ndarray]) -> Tuple[float, List[numpy.ndarray]]:
    """The BMES CRF's negative log-likelihood of the gold gaps (`crf_loss`),
    plus binary cross-entropy on the encoder's auxiliary gap logits (HiRED).
    `scores`: host arrays; `forced`: each predicted doc's gaps next to whitespace."""
    golds = [gold_gaps(eg) for eg in examples]
    n_gold = max(sum(int(mask.sum()) for _, mask in golds), 1)
    host = [numpy.asarray(s, dtype="f") for s in scores]
    d_host = [numpy.zeros_like(s) for s in host]
    index = [i for i, eg in enumerate(examples) if len(eg.predicted) >= 2]
    loss = 0.0
    if index:
        loss, d_crf = crf_loss([host[i] for i in index], [golds[i][0] for i in index],
                               [golds[i][1] for i in index], [forced[i] for i in index],
                               float(n_gold))
        for i, d in zip(index, d_crf):
            d_host[i] = d
    for i in index:
        aux = aux_gap_scores(host[i])
        if aux is None:
            continue
        labels, mask = golds[i]
        aux_loss, d_aux = bce(aux, labels, mask, n_gold)
        loss += aux_loss
        d_host[i][:-1, host[i].shape[1] - aux.shape[1]:] = d_aux
    return loss, d_host


def _pad(scores: Sequence[numpy.ndarray], gap_values: Sequence[numpy.ndarray]) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Padded potentials (B, T, 4, 4), gap constraints (B, T - 1) and lengths (B,),
    scattered from the concatenated docs in one assignment each."""
    lengths = numpy.fromiter((len(s) for s in scores), dtype=numpy.int64, count=len(scores))
    length = int(lengths.max())
    rows, cols = ragged_positions(lengths)
    psi = numpy.zeros((len(scores), length, N_TAGS, N_TAGS), dtype=numpy.float32)
    flat = numpy.concatenate([numpy.asarray(s)[:, :TAG_COLUMNS] for s in scores])
    psi[rows, cols] = flat.reshape(-1, N_TAGS, N_TAGS)
    gaps = numpy.full((len(scores), length), -1, dtype=numpy.int64)
    inside = cols < lengths[rows] - 1  # a doc's gaps: after each of its tokens but the last
    gaps[rows[inside], cols[inside]] = numpy.concatenate(list(gap_values))
    return psi, gaps[:, : max(length - 1, 0)], lengths


def crf_loss(scores: Sequence[numpy.ndarray], labels: Sequence[numpy.ndarray], mask: Sequence[numpy.ndarray],
             forced: Sequence[numpy.ndarray], normalizer: float) -> Tuple[float, List[numpy.ndarray]]:
    """Negative log-likelihood of the gold gaps, summed over docs and divided by `normalizer`.

    The likelihood of the gold gaps is the sum over the tag sequences that agree
    with them (gaps without a gold label are free): log Z(forced) - log Z(gold, forced).

    scores: one (n, >= 16) array per doc. labels, mask: the gold gaps
        (`segmenter.gold_gaps`). forced: gaps next to whitespace.
    RETURNS (Tuple[float, List[numpy.ndarray]]): the loss and its gradient
        with respect to each doc's 16 potential columns (other columns 0).
    """
    import torch

    from spacy_gdcws.nn.crf import allowed_steps, log_partition

    free = [numpy.where(f, 1, -1) for f in forced]
    gold = [numpy.where(f, 1, numpy.where(m, lab > 0.5, -1)) for f, lab, m in zip(forced, labels, mask)]
    psi_np, free_gaps, lengths = _pad(scores, free)
    _, gold_gaps, _ = _pad(scores, gold)
    psi = torch.from_numpy(psi_np).requires_grad_(True)
    length = psi_np.shape[1]
    lengths_t = torch.from_numpy(lengths)
    log_z = log_partition(psi, allowed_steps(torch.from_numpy(free_gaps), length), lengths_t)
    log_z_gold = log_partition(psi, allowed_steps(torch.from_numpy(gold_gaps), length), lengths_t)
    loss = (log_z - log_z_gold).sum() / normalizer
    loss.backward()
    grad = psi.grad.numpy().reshape(len(scores), length, TAG_COLUMNS)
    d_scores = []
    for i, s in enumerate(scores):
        d = numpy.zeros(numpy.asarray(s).shape, dtype=numpy.float32)
        d[:, :TAG_COLUMNS] = grad[i, : len(s)]
        d_scores.append(d)
    return float(loss.detach()), d_scores
