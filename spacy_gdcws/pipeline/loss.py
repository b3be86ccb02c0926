"""The segmenter's losses against gold words: binary cross-entropy of each gap,
the gap chain's CRF (gap logits plus the weighted decoding priors), and a BMES
CRF tagger's likelihood (with BCE on its auxiliary HiRED gap logits)."""
import re
from typing import Callable, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import LENGTH, ORTH, SPACY
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Ops
from thinc.types import Floats2d

from spacy_gdcws.data.doc_arrays import DocBatch
from spacy_gdcws.data.bmes import N_TAGS, TAG_COLUMNS, TAG_OF_GAPS
from spacy_gdcws.data.doc_arrays import doc_text
from spacy_gdcws.data.ragged import ragged_positions
from spacy_gdcws.decoding.chain import chain_marginals
from spacy_gdcws.decoding.crf import aux_gap_scores
from spacy_gdcws.decoding.decoder import Decoder
from spacy_gdcws.errors import Errors

LOSSES = ("bce", "crf")


def check_loss(name: str, value: str) -> str:
    """A checked loss of the segmenter (E034 unless one of `LOSSES`)."""
    if value not in LOSSES:
        raise ValueError(Errors.E034.format(loss=value, options=LOSSES))
    return value


_WHITESPACE = re.compile(r"\s")
# an example's gold gaps: float32 labels and a bool mask per gap of its predicted doc
Gold = Tuple[numpy.ndarray, numpy.ndarray]


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
    same = _same_text_gaps(eg.predicted, eg.reference)
    if same is not None:
        return same
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


def _same_text_gaps(predicted: Doc, reference: Doc) -> Optional[Tuple[numpy.ndarray, numpy.ndarray]]:
    """`gold_gaps` read off the token arrays, for the common case: one-character
    tokens over the reference's exact text, without whitespace (every token then
    aligns to the one word that holds its character, as spaCy's alignment says);
    None otherwise (the caller aligns)."""
    x = predicted.to_array([ORTH, LENGTH, SPACY])
    y = reference.to_array([ORTH, LENGTH, SPACY])
    if (x[:, 1] != 1).any() or x[:, 2].any() or y[:, 2].any() or int(y[:, 1].sum()) != len(x):
        return None
    text = doc_text(predicted, x[:, 0], x[:, 2].astype(bool))
    if _WHITESPACE.search(text) or len(text.lower()) != len(text):
        return None
    if text != doc_text(reference, y[:, 0], y[:, 2].astype(bool)):
        return None
    word = numpy.repeat(numpy.arange(len(y)), y[:, 1].astype(numpy.int64))
    return (word[:-1] != word[1:]).astype("f"), numpy.ones(len(x) - 1, dtype=bool)


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


def gap_loss(docs: Sequence[Doc], golds: Sequence[Gold], scores: Sequence[Floats2d], forced: Sequence[numpy.ndarray],
             decoder: Decoder, kind: str, held_out: HeldOut) -> Tuple[float, List[numpy.ndarray]]:
    """BCE over the gold gaps, summed over the score columns (main + HiRED) and
    averaged over the gaps with a gold label; with `kind = "crf"` the final
    scorer's column is scored by the gap chain's CRF instead (`chain_loss`).
    `forced`: each predicted doc's gaps next to whitespace (`DocBatch.forced`).
    `held_out(doc)`: the tag prior without the doc's block, or None.
    `docs`: the predicted docs the scores are of; `golds`: their gaps (`gold_gaps`)."""
    n_gold = max(sum(int(mask.sum()) for _, mask in golds), 1)
    loss = 0.0
    d_scores = []
    for doc, (labels, mask), doc_scores, doc_forced in zip(docs, golds, scores, forced):
        s = numpy.asarray(doc_scores, dtype="f")
        if kind == "crf" and len(s):
            # the final scorer's column by the CRF, the others (HiRED) by BCE
            crf, d_final = chain_loss(doc, s[:, 0], labels, mask, doc_forced, decoder, held_out(doc))
            rest, d_rest = bce(s[:, 1:], labels, mask, n_gold)
            loss += crf / n_gold + rest
            d_doc = numpy.concatenate([(d_final / n_gold)[:, None], d_rest], axis=1)
        else:
            doc_loss, d_doc = bce(s, labels, mask, n_gold)
            loss += doc_loss
        d_scores.append(d_doc.astype("f"))
    return loss, d_scores


def chain_loss(doc: Doc, logits: numpy.ndarray, labels: numpy.ndarray, mask: numpy.ndarray, forced: numpy.ndarray,
               decoder: Decoder, held_out: Optional[Tuple[dict, numpy.ndarray]]) -> Tuple[float, numpy.ndarray]:
    """Negative log-likelihood of the gold gaps under the linear-chain model
    that decoding maximises (`chain.chain_marginals`): gap logits plus the
    weighted priors. Gaps without a gold label are summed over; gaps next to
    whitespace (`forced`) are boundaries. RETURNS the loss and its gradient per gap."""
    logits = logits - decoder.threshold_logit
    free = numpy.where(forced, 1, -1)
    gold = numpy.where(mask, labels > 0.5, free).astype(numpy.int64)
    log_trans, pairs = decoder.pair_scores([t.text for t in doc], held_out)
    log_z, p_free = chain_marginals(logits, log_trans, decoder.transition_weight, free, pairs)
    log_z_gold, p_gold = chain_marginals(logits, log_trans, decoder.transition_weight, gold, pairs)
    return log_z - log_z_gold, p_free - p_gold


def tagger_loss(golds: Sequence[Gold], scores: Sequence[numpy.ndarray],
                forced: Sequence[numpy.ndarray]) -> Tuple[float, List[numpy.ndarray]]:
    """The BMES CRF's negative log-likelihood of the gold gaps (`crf_loss`),
    plus binary cross-entropy on the encoder's auxiliary gap logits (HiRED).
    `golds`: each doc's gaps (`gold_gaps`); `scores`: host arrays; `forced`: each
    predicted doc's gaps next to whitespace."""
    n_gold = max(sum(int(mask.sum()) for _, mask in golds), 1)
    host = [numpy.asarray(s, dtype="f") for s in scores]
    d_host = [numpy.zeros_like(s) for s in host]
    index = [i for i, s in enumerate(host) if len(s) >= 2]
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


def crf_loss(scores: Sequence[numpy.ndarray], labels: Sequence[numpy.ndarray], mask: Sequence[numpy.ndarray],
             forced: Sequence[numpy.ndarray], normalizer: float) -> Tuple[float, List[numpy.ndarray]]:
    """Negative log-likelihood of the gold gaps, summed over docs and divided by `normalizer`.

    The likelihood of the gold gaps is the sum over the tag sequences that agree
    with them (gaps without a gold label are free): log Z(forced) - log Z(gold, forced).
    The docs are laid end to end (`nn.crf.packed_log_partition`); a doc whose
    gaps are all fixed has one gold tag sequence, whose score is log Z(gold).

    scores: one (n, >= 16) array per doc. labels, mask: the gold gaps
        (`segmenter.gold_gaps`). forced: gaps next to whitespace.
    RETURNS (Tuple[float, List[numpy.ndarray]]): the loss and its gradient
        with respect to each doc's 16 potential columns (other columns 0).
    """
    import torch

    from spacy_gdcws.nn.crf import (
        packed_allowed_steps,
        packed_log_partition,
        packed_path_score,
    )

    free = [numpy.where(f, 1, -1) for f in forced]
    gold = [numpy.where(f, 1, numpy.where(m, lab > 0.5, -1)) for f, lab, m in zip(forced, labels, mask)]
    lengths = numpy.fromiter((len(s) for s in scores), dtype=numpy.int64, count=len(scores))
    starts = numpy.cumsum(lengths) - lengths
    first = numpy.zeros(int(lengths.sum()), dtype=bool)
    first[starts] = True
    flat = numpy.concatenate([numpy.asarray(s, dtype=numpy.float32)[:, :TAG_COLUMNS] for s in scores])
    psi = torch.from_numpy(flat.reshape(-1, N_TAGS, N_TAGS)).requires_grad_(True)
    first_t = torch.from_numpy(first)
    lengths_t = torch.from_numpy(lengths)
    log_z = packed_log_partition(psi, packed_allowed_steps(_gaps_before(free, first), first_t), lengths_t)
    fixed = numpy.fromiter((not (g < 0).any() for g in gold), dtype=bool, count=len(gold))
    log_z_gold = psi.new_zeros(len(scores))
    if fixed.any():
        doc_of_token = numpy.repeat(numpy.arange(len(scores)), lengths)
        keep = fixed[doc_of_token]
        tags = numpy.where(keep, _gold_tags(gold, first), 0)
        path = packed_path_score(psi, torch.from_numpy(tags), first_t, torch.from_numpy(doc_of_token), len(scores))
        log_z_gold = torch.where(torch.from_numpy(fixed), path, log_z_gold)
    if not fixed.all():
        # docs with free gaps: the gold partition over those docs' tokens alone
        docs = numpy.flatnonzero(~fixed)
        rows, cols = ragged_positions(lengths[docs])
        tokens = torch.from_numpy(starts[docs][rows] + cols)
        sub_first = cols == 0
        allowed = packed_allowed_steps(_gaps_before([gold[i] for i in docs], sub_first), torch.from_numpy(sub_first))
        sub = packed_log_partition(psi[tokens], allowed, torch.from_numpy(lengths[docs]))
        log_z_gold = log_z_gold.index_put((torch.from_numpy(docs),), sub)
    loss = (log_z - log_z_gold).sum() / normalizer
    loss.backward()
    grad = psi.grad.numpy().reshape(-1, TAG_COLUMNS)
    d_scores = []
    for s, o, n in zip(scores, starts.tolist(), lengths.tolist()):
        d = numpy.zeros(numpy.asarray(s).shape, dtype=numpy.float32)
        d[:, :TAG_COLUMNS] = grad[o : o + n]
        d_scores.append(d)
    return float(loss.detach()), d_scores


def _gaps_before(gaps: Sequence[numpy.ndarray], first: numpy.ndarray):
    """The constraint on the gap before each token of docs laid end to end (-1 for a
    doc's first token), from each doc's (n - 1,) gap constraints; as a LongTensor."""
    import torch

    out = numpy.full(len(first), -1, dtype=numpy.int64)
    if len(gaps):
        out[~first] = numpy.concatenate(list(gaps))
    return torch.from_numpy(out)


def _gold_tags(gold: Sequence[numpy.ndarray], first: numpy.ndarray) -> numpy.ndarray:
    """BMES tag ids of docs laid end to end from their gap labels (free gaps read as
    no boundary: their docs' tags are not used)."""
    gaps = numpy.concatenate(list(gold)) > 0 if len(gold) else numpy.zeros(0, dtype=bool)
    before = numpy.ones(len(first), dtype=numpy.int64)
    before[~first] = gaps
    last = numpy.roll(first, -1)
    after = numpy.ones(len(first), dtype=numpy.int64)
    after[~last] = gaps
    return numpy.asarray(TAG_OF_GAPS)[before, after]


def batch_loss(golds: List[Gold], batch: DocBatch, scores: Sequence[Floats2d], *, ops: Ops, tags: bool,
               decoder: Decoder, loss: str, priors: Optional[HeldOut]) -> Tuple[float, List[Floats2d]]:
    """A segmenter's loss of a batch (the `DocBatch` of the docs its model read) and the gradient per
    doc: the BMES CRF's for a tagger (`tags`), otherwise BCE per gap or, with `loss` "crf", the gap
    chain's CRF, with the `decoder`'s priors (`priors`: the training blocks' held-out ones)."""
    forced = [batch.forced(i) for i in range(len(batch))]
    if tags:
        value, d_scores = tagger_loss(golds, [ops.to_numpy(s) for s in scores], forced)
    else:
        value, d_scores = gap_loss(batch, golds, scores, forced, decoder, loss, priors or no_prior)
    return value, [ops.asarray2f(d) for d in d_scores]
