"""Choosing the decoding of a trained segmenter on dev: the weights of its priors.

The model is run once over the dev docs; every combination of weights (`transition_weight`,
`tag_prior_weight`, `bigram_prior_weight`) then only decodes those gap scores again
(`GDSegmenter.boundaries`) and is scored against the gold words (token F, OOV and IV recall with
the training vocabulary). The combination with the highest dev F wins; on a tie, the one listed
first (so list greedy decoding, all 0, first). The chosen weights go into the segmenter and into
the pipeline's config, so a pipeline saved afterwards loads with them.
"""
from typing import Dict, Iterable, List, Optional, Sequence

import numpy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example

from spacy_gdcws.decoding.decoder import Decoder
from spacy_gdcws.errors import Errors
from spacy_gdcws.eval.scorer import score_segmentation
from spacy_gdcws.pipeline.names import find_segmenter
from spacy_gdcws.pipeline.segmenter import GDSegmenter
from spacy_gdcws.pipeline.words import merge_words

DEFAULT_TRANSITION_WEIGHTS = (0.0, 0.5, 1.0)
DEFAULT_TAG_PRIOR_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)
DEFAULT_BIGRAM_PRIOR_WEIGHTS = (0.0, 0.5, 1.0, 2.0)


def gap_logits(nlp: Language, texts: Sequence[str], segmenter: Optional[str] = None,
               batch_size: int = 64) -> List[numpy.ndarray]:
    """The segmenter's scores of every gap of every text (`GDSegmenter.scores`:
    (n_gaps, n_scores) per text), computed on fresh character docs."""
    pipe = nlp.get_pipe(find_segmenter(nlp, segmenter))
    out: List[numpy.ndarray] = []
    for start in range(0, len(texts), batch_size):
        docs = [nlp.make_doc(text) for text in texts[start : start + batch_size]]
        out.extend(numpy.asarray(scores, dtype="f") for scores in pipe.scores(docs))
    return out


def score_decoding(nlp: Language, segmenter: GDSegmenter, golds: Sequence[Doc],
                   logits: Sequence[numpy.ndarray]) -> Dict[str, float]:
    """Segment each gold text from its gap scores with the segmenter's current
    decoding (threshold, weights, forced boundaries) and score against the gold
    docs (token_f, token_p, token_r, token_oov_r, token_iv_r, in percent)."""
    examples = []
    for gold, doc_logits in zip(golds, logits):
        doc = nlp.make_doc(gold.text)
        if len(doc) > 1:
            merge_words(doc, segmenter.decode([doc], [doc_logits])[0])
        examples.append(Example(doc, gold))
    result = score_segmentation(examples, vocabulary=segmenter.train_words)
    keys = ("token_f", "token_p", "token_r", "token_oov_r", "token_iv_r")
    return {key: None if result[key] is None else round(100 * result[key], 2) for key in keys}


def tune_decoding(
    nlp: Language,
    golds: Sequence[Doc],
    transition_weights: Iterable[float] = DEFAULT_TRANSITION_WEIGHTS,
    tag_prior_weights: Iterable[float] = DEFAULT_TAG_PRIOR_WEIGHTS,
    segmenter: Optional[str] = None,
    train: Optional[Iterable[Example]] = None,
    *,
    bigram_prior_weights: Iterable[float] = DEFAULT_BIGRAM_PRIOR_WEIGHTS,
) -> Dict:
    """Choose the segmenter's decoding weights on gold dev docs and set them.

    nlp (Language): A pipeline with a trained `gdcws_segmenter`.
    golds (Sequence[Doc]): Dev docs with the gold words (not the test set).
    transition_weights, tag_prior_weights (Iterable[float]): The grid; every pair is tried.
    segmenter (Optional[str]): The segmenter's name (default: the first one).
    train (Optional[Iterable[Example]]): Gold training examples whose counts to
        record first (`GDSegmenter.record_transitions`), for pipelines trained
        before `initialize` recorded them.
    bigram_prior_weights (Iterable[float]): The grid of `bigram_prior_weight`,
        tried with every pair.
    RETURNS (Dict): "grid" (the weights and dev scores of every combination,
        in the order tried), "best" (the chosen one and its scores), "segmenter".
        A segmenter with a CRF tagger (`spacy_gdcws.CRFTagger.v1`) has no
        decoding weights: the grid is its own decoding alone.
    """
    name = find_segmenter(nlp, segmenter)
    pipe = nlp.get_pipe(name)
    if not golds:
        raise ValueError(Errors.E032)
    if train is not None:
        pipe.record_transitions(train)
    combos = [(float(t), float(c), float(b)) for t in transition_weights for c in tag_prior_weights
              for b in bigram_prior_weights]
    if pipe.scores_tags:
        # a CRF tagger decodes with its own transitions: there are no weights to choose
        combos = [(0.0, 0.0, 0.0)]
    if not combos:
        raise ValueError(Errors.E033)
    for weights in combos:  # the setters check the values before the model runs
        pipe.transition_weight, pipe.tag_prior_weight, pipe.bigram_prior_weight = weights
    # and the counts each prior needs are there (E031 otherwise, before the model runs)
    pipe.decoder.check_counts(**{w: max(weights[i] for weights in combos) for i, w in enumerate(Decoder.COUNTS)})
    logits = gap_logits(nlp, [gold.text for gold in golds], name)
    grid = []
    for t, c, b in combos:
        pipe.transition_weight, pipe.tag_prior_weight, pipe.bigram_prior_weight = t, c, b
        grid.append({"transition_weight": t, "tag_prior_weight": c, "bigram_prior_weight": b,
                     **score_decoding(nlp, pipe, golds, logits)})
    best = max(grid, key=lambda row: (row["token_f"], -grid.index(row)))
    set_decoding(nlp, best["transition_weight"], best["tag_prior_weight"], name,
                 bigram_prior_weight=best["bigram_prior_weight"])
    return {"segmenter": name, "grid": grid, "best": best}


def set_decoding(nlp: Language, transition_weight: float, tag_prior_weight: float,
                 segmenter: Optional[str] = None, *, bigram_prior_weight: float = 0.0) -> None:
    """Set the segmenter's weights (`bigram_prior_weight`: 0, off, unless
    given) and write them into the pipeline's config, so that `nlp.to_disk`
    saves them."""
    name = find_segmenter(nlp, segmenter)
    pipe = nlp.get_pipe(name)
    pipe.transition_weight, pipe.tag_prior_weight = transition_weight, tag_prior_weight
    pipe.bigram_prior_weight = bigram_prior_weight
    config = nlp.get_pipe_config(name)
    config["transition_weight"] = pipe.transition_weight
    config["tag_prior_weight"] = pipe.tag_prior_weight
    config["bigram_prior_weight"] = pipe.bigram_prior_weight
