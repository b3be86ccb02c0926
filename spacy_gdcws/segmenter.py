"""The `gdcws_segmenter` pipeline component: merges character tokens into words."""
import math
import os
import shutil
import warnings
from collections import Counter
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

import numpy
import srsly
from spacy import util
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model, Optimizer
from thinc.types import Floats2d

from .architectures import (
    ENSEMBLE_ATTR,
    HOLDOUT_FOLDS_ATTR,
    LEXICON_ATTR,
    LEXICON_COUNTS_ATTR,
    QUANTIZED_ATTR,
    output_kind,
    record_ngram_vocab,
    set_model_vectors,
)
from .errors import Errors, Warnings
from .decoding import (
    PairCounts,
    TagIndex,
    padded_viterbi,
    gap_keys_from_codes,
    prior_codes,
    tag_chain_emissions,
    PairTally,
    TagTally,
    chain_marginals,
    tag_pmi,
    tag_potentials,
    transition_counts,
    transition_log_probs,
)

from .augment import PseudoWords
from .doc_arrays import BatchArrays, DocMaker, batch_words, docs_batch_arrays, token_arrays
from .features import HoldoutFolds, WordCounts, source_text
from .io import replace_dir, verify_checksums, write_checksums
from .units import inner_gaps
from .user_dict import UserDictionary, read_user_dict
from .tagging import aux_gap_scores, crf_boundaries, crf_loss

LOSSES = ("bce", "crf")

DEFAULT_MODEL_CONFIG = """
[model]
@architectures = "spacy_gdcws.GDTransformer.v2"
width = 128
depth = 2
n_heads = 4
d_ff = 256
dropout = 0.1
sigma = 2.0
gaussian = true
directional = true
forward_encoder = true
centre_encoder = true
backward_encoder = true
hired = true
highway_in = true
highway_out = true
positions = true
fusion = "sum"
layer_norm = "pre"
char_rows = 20000
char_seeds = 2
bigrams = true
bigram_rows = 100000
bigram_width = 64
biaffine_width = 128
window = 512
batch_chars = 16384
mixed_precision = false
"""
DEFAULT_MODEL = Config().from_str(DEFAULT_MODEL_CONFIG)["model"]


@Language.factory(
    "gdcws_segmenter",
    default_config={
        "model": DEFAULT_MODEL,
        "threshold": 0.5,
        "transition_weight": 0.0,
        "tag_prior_weight": 0.0,
        "bigram_prior_weight": 0.0,
        "loss": "bce",
        "held_out_priors": False,
        "pseudo_words": 0.0,
        "pseudo_chars": 0.0,
        "atomic_units": True,
        "user_dict_bonus": 3.0,
        "scorer": {"@scorers": "spacy_gdcws.segmentation_scorer.v1"},
    },
    default_score_weights={"token_f": 1.0, "token_p": 0.0, "token_r": 0.0, "token_oov_r": 0.0, "token_iv_r": 0.0},
    retokenizes=True,
)
def make_segmenter(
    nlp: Language, name: str, model: Model[List[Doc], List[Floats2d]], threshold: float, scorer: Optional[Callable],
    transition_weight: float = 0.0,
    tag_prior_weight: float = 0.0,
    loss: str = "bce",
    held_out_priors: bool = False,
    pseudo_words: float = 0.0,
    pseudo_chars: float = 0.0,
    bigram_prior_weight: float = 0.0,
    atomic_units: bool = True,
    user_dict_bonus: float = 3.0,
) -> "GDSegmenter":
    """Create a GD-Transformer word segmenter.

    model (Model[List[Doc], List[Floats2d]]): Gap-scoring model.
    threshold (float): A gap is a word boundary if sigmoid(score) > threshold.
    scorer (Optional[Callable]): Scoring function (token P/R/F, OOV and IV recall).
    transition_weight (float): 0 = greedy decoding (each gap on its own);
        > 0 = Viterbi decoding with this weight on the gap-label transitions
        of the training data (`spacy_gdcws.decoding`; choose it on dev).
    tag_prior_weight (float): > 0 = Viterbi decoding with this weight on each
        character's word-position tags (B/M/E/S) in the training data: how the
        two gaps around it go together (`spacy_gdcws.decoding`; choose it on dev).
        Both weights 0 = greedy decoding.
    bigram_prior_weight (float): > 0 = add this weight times the log-odds of
        a word boundary between each gap's two characters in the training
        data (refined by the characters on either side where the training
        data has them: `decoding.PairCounts`) to the gap's score, before
        greedy or Viterbi decoding (choose it on dev). Not used in training.
    loss (str): "bce" = binary cross-entropy of every gap on its own; "crf" =
        the final scorer trained as a linear-chain CRF over the gaps whose
        pairwise scores are the two priors with the weights above (fixed, not
        learned: the model learns its gap scores with the priors in place).
    held_out_priors (bool): with `loss = "crf"` and a model with block
        leave-out (`holdout_folds`): in training, each doc's tag prior is
        counted without the doc's own block of the training data, as the
        dictionary and n-gram features are, so the prior the model learns next
        to is as reliable as on new text (decoding uses all the counts).
    pseudo_words (float): In training, the share of rare two-character
        words replaced by a pseudo-word (`spacy_gdcws.augment`: a pair of
        characters new to the model, in a word's place), so that the model
        learns to find unknown two-character words from their characters.
        0 = off.
    pseudo_chars (float): In training, the share of rare single-character
        words replaced by a character that the training words have only
        inside longer words (`spacy_gdcws.augment`), so that the model learns
        that such a character can stand alone. 0 = off.
    atomic_units (bool): Never split URLs, e-mail addresses, numbers (with
        decimals, thousands separators, percent), Latin words and grapheme
        clusters inside (`spacy_gdcws.units`); the model decides only whether
        they join their neighbours. Decoding only.
    user_dict_bonus (float): What a "prefer" word of the user dictionary
        (`add_words`) adds to the boundary logits at its edges (and subtracts
        inside it).
    """
    return GDSegmenter(nlp.vocab, model, name, threshold=threshold, scorer=scorer,
                       transition_weight=transition_weight, tag_prior_weight=tag_prior_weight, loss=loss,
                       held_out_priors=held_out_priors, pseudo_words=pseudo_words,
                       pseudo_chars=pseudo_chars, bigram_prior_weight=bigram_prior_weight,
                       atomic_units=atomic_units, user_dict_bonus=user_dict_bonus)


class GDSegmenter(TrainablePipe):
    """Merge the character tokens of a doc into words.

    Runs first in the pipeline, after `spacy_gdcws.ChineseCharTokenizer.v1`
    (or `spacy.zh.ChineseTokenizer` in "char" mode: the same tokens). Gap j
    lies between tokens j and j + 1; it is a boundary when the model says so,
    and always next to whitespace, so `doc.text` never changes.
    """

    def __init__(
        self,
        vocab: Vocab,
        model: Model[List[Doc], List[Floats2d]],
        name: str = "gdcws_segmenter",
        *,
        threshold: float = 0.5,
        scorer: Optional[Callable] = None,
        transition_weight: float = 0.0,
        tag_prior_weight: float = 0.0,
        loss: str = "bce",
        held_out_priors: bool = False,
        pseudo_words: float = 0.0,
        pseudo_chars: float = 0.0,
        bigram_prior_weight: float = 0.0,
        atomic_units: bool = True,
        user_dict_bonus: float = 3.0,
    ) -> None:
        threshold = _threshold_value(threshold)
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        # cfg is saved with the component: the threshold and the training data's
        # gap-label transition counts ("transitions") and characters' tag counts
        # ("tags"), both recorded by initialize
        self.cfg: Dict[str, Any] = {"threshold": threshold}
        # the training data's boundary counts by character pair and window, for
        # bigram_prior_weight; recorded by initialize, saved in a file of its own
        self.pair_counts: Optional[PairCounts] = None
        self.transition_weight = transition_weight
        self.tag_prior_weight = tag_prior_weight
        self.bigram_prior_weight = bigram_prior_weight
        if loss not in LOSSES:
            raise ValueError(Errors.E034.format(loss=loss, options=LOSSES))
        self.loss = loss
        self.held_out_priors = held_out_priors
        if not 0.0 <= pseudo_words < 1.0:
            raise ValueError(Errors.E039.format(value=pseudo_words))
        self.pseudo_words = pseudo_words
        if not 0.0 <= pseudo_chars < 1.0:
            raise ValueError(Errors.E040.format(value=pseudo_chars))
        self.pseudo_chars = pseudo_chars
        # training only (not saved): where pseudo-words come from, set by initialize
        self._pseudo: Optional[PseudoWords] = None
        # decoding priors computed from the counts in cfg, with the counts they came from
        self._priors: Dict[str, Tuple[Any, Any]] = {}
        # training only (not saved): per block of the training data, the tag
        # prior counted without that block (`tag_pmi`), set by initialize with
        # held_out_priors
        self._held_out_priors: Optional[List[Tuple[Dict[str, int], numpy.ndarray]]] = None
        self.train_words = set()
        self.atomic_units = bool(atomic_units)
        self.user_dict_bonus = _decoding_weight("user_dict_bonus", user_dict_bonus)
        # words kept whole or favoured (`add_words`), saved with the component
        self.user_dict = UserDictionary()
        self._check_tag_settings()

    def add_words(self, words: Iterable[str], mode: str = "force") -> int:
        """Add words to the user dictionary. "force": each occurrence (by forward
        maximum matching) is one word, never split and never merged with its
        neighbours; "prefer": its edges are favoured as boundaries and its inside
        as no boundary by `user_dict_bonus` logits, and the model may override it.
        RETURNS (int): the number of words added."""
        return self.user_dict.add(words, mode)

    def remove_words(self, words: Iterable[str]) -> None:
        """Remove words from the user dictionary."""
        self.user_dict.remove(words)

    def gap_rules(self, arrays: Any) -> Tuple[numpy.ndarray, Optional[numpy.ndarray]]:
        """A doc's gap constraints (-1 free, 0 no boundary, 1 boundary) and logit
        bonuses (None: none) from whitespace, atomic units and the user dictionary
        (`doc_arrays.TokenArrays` in). Whitespace always wins, then "force" words."""
        forced = arrays.forced
        constraints = numpy.where(forced, 1, -1)
        bias = None
        if self.atomic_units:
            constraints[inner_gaps(arrays.text, arrays.idx, arrays.first) & ~forced] = 0
        if len(self.user_dict):
            words, bias = self.user_dict.gap_rules(arrays.codes, self.user_dict_bonus)
            constraints = numpy.where((words >= 0) & ~forced, words, constraints)
        return constraints, bias

    @property
    def scores_tags(self) -> bool:
        """Whether the model scores BMES tags with a CRF (`spacy_gdcws.CRFTagger.v1`)
        rather than gaps."""
        return output_kind(self.model) == "tags"

    def _check_tag_settings(self) -> None:
        """E044 if a setting for gap scorers is on with a CRF tagger."""
        if not self.scores_tags:
            return
        settings = (("loss", self.loss != "bce", '"bce" (the tagger trains its own CRF)'),
                    ("transition_weight", self.transition_weight > 0, "0"),
                    ("tag_prior_weight", self.tag_prior_weight > 0, "0"),
                    ("bigram_prior_weight", self.bigram_prior_weight > 0, "0"))
        for what, on, default in settings:
            if on:
                raise ValueError(Errors.E044.format(what=what, default=default))

    @property
    def train_words(self) -> Set[str]:
        """The words of the training data: the OOV dictionary of the scorer
        and, for a model with dictionary features, the model's lexicon."""
        return self._train_words

    @train_words.setter
    def train_words(self, words: Iterable[str]) -> None:
        self._train_words = set(words)
        lexicon = frozenset(self._train_words)
        for node in self.model.walk():  # the model, or each member of an ensemble
            if LEXICON_ATTR in node.attrs:
                node.attrs[LEXICON_ATTR] = lexicon

    @property
    def threshold(self) -> float:
        return self.cfg["threshold"]

    @threshold.setter
    def threshold(self, value: float) -> None:
        self.cfg["threshold"] = _threshold_value(value)

    @property
    def _threshold_logit(self) -> float:
        """The logit of the threshold: decoding compares gap logits against it."""
        return float(numpy.log(self.threshold / (1.0 - self.threshold)))

    @property
    def transition_weight(self) -> float:
        """Weight of the gap-label transitions in decoding (0 = greedy). Set by
        the config (`spacy.load(path, config={"components": {NAME:
        {"transition_weight": 1.0}}})`) or on the loaded component."""
        return self._transition_weight

    @transition_weight.setter
    def transition_weight(self, value: float) -> None:
        self._transition_weight = _decoding_weight("transition_weight", value)

    @property
    def tag_prior_weight(self) -> float:
        """Weight of the characters' word-position tags in decoding (0 = off);
        set like `transition_weight`."""
        return self._tag_prior_weight

    @tag_prior_weight.setter
    def tag_prior_weight(self, value: float) -> None:
        self._tag_prior_weight = _decoding_weight("tag_prior_weight", value)

    @property
    def bigram_prior_weight(self) -> float:
        """Weight of the character pairs' boundary log-odds in decoding (0 =
        off); set like `transition_weight`."""
        return self._bigram_prior_weight

    @bigram_prior_weight.setter
    def bigram_prior_weight(self, value: float) -> None:
        self._bigram_prior_weight = _decoding_weight("bigram_prior_weight", value)

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple()

    def add_label(self, label: str) -> int:
        raise NotImplementedError(Errors.E012.format(label=label))

    def predict(self, docs: Iterable[Doc]) -> List[Floats2d]:
        """Gap logits for a batch of docs.

        docs (Iterable[Doc]): The docs, still in characters.
        RETURNS (List[Floats2d]): One (len(doc) - 1, n_scores) array per doc.
        """
        docs = list(docs)
        check_char_tokens(docs)
        return self.model.predict(docs)

    def __call__(self, doc: Doc) -> Doc:
        """Segment one character doc: RETURNS a new doc of words (same text,
        `user_data` and `cats`); a doc of fewer than 2 tokens comes back as is."""
        error_handler = self.get_error_handler()
        try:
            return self.segmented_docs([doc], self.predict([doc]))[0]
        except Exception as e:
            error_handler(self.name, self, [doc], e)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Segment a stream of character docs in batches: yields new docs of words."""
        error_handler = self.get_error_handler()
        for docs in util.minibatch(stream, size=batch_size):
            try:
                yield from self.segmented_docs(docs, self.predict(docs))
            except Exception as e:
                error_handler(self.name, self, docs, e)

    def segmented_docs(self, docs: Sequence[Doc], scores: Sequence[Floats2d]) -> List[Doc]:
        """New docs of words, built from the words and spaces (no retokenization):
        the text is the input's exactly, and `user_data` (extension values),
        `cats` and span groups (by character offsets) are carried over. The
        words of the whole batch are cut from its texts at once (`batch_words`)."""
        docs = list(docs)
        if not docs:
            return []
        words, spaces, first, end = self._batch_words(docs, scores)
        make_doc = self._doc_maker(docs[0].vocab)
        out = []
        for doc, a, b in zip(docs, first.tolist(), end.tolist()):
            out.append(doc if b - a == len(doc) else new_words_doc(doc, words[a:b], spaces[a:b], make_doc))
        return out

    def segmented_words(self, docs: Sequence[Doc], scores: Sequence[Floats2d]) -> List[List[str]]:
        """The words of each doc, whitespace left out, cut from the batch's
        text at once (no `Doc` built): what `segmented_docs` gives as strings."""
        docs = list(docs)
        if not docs:
            return []
        words, _, first, end = self._batch_words(docs, scores)
        return [[w for w in words[a:b] if not w.isspace()] for a, b in zip(first.tolist(), end.tolist())]

    def _batch_words(self, docs: List[Doc], scores: Sequence[Floats2d]):
        """`doc_arrays.batch_words` of the decoded batch (at least one doc)."""
        laid = docs_batch_arrays(docs)
        return batch_words(laid, self._flat_boundaries(docs, scores, laid))

    def _doc_maker(self, vocab: Any) -> DocMaker:
        """The `DocMaker` (word ids kept) of the docs' vocab."""
        maker = getattr(self, "_maker", None)
        if maker is None or maker.vocab is not vocab:
            maker = self._maker = DocMaker(vocab)
        return maker

    def decode(self, docs: Sequence[Doc], scores: Sequence[Floats2d]) -> List[Optional[numpy.ndarray]]:
        """Where words end in each doc (`boundaries`; None for docs of fewer
        than 2 tokens). The batch's docs are laid end to end (`docs_batch_arrays`),
        so gap rules and priors run once per batch, and Viterbi (a CRF
        tagger's, or the chain of the decoding priors) once over the batch."""
        docs = list(docs)
        out: List[Optional[numpy.ndarray]] = [None] * len(docs)
        if not docs:
            return out
        laid = docs_batch_arrays(docs)
        bounds = self._flat_boundaries(docs, scores, laid)
        for i, (start, n) in enumerate(zip(laid.starts.tolist(), laid.lengths.tolist())):
            if n >= 2:
                out[i] = bounds[start : start + n - 1]
        return out

    def _flat_boundaries(self, docs: Sequence[Doc], scores: Sequence[Floats2d], laid: BatchArrays) -> numpy.ndarray:
        """`decode` over the flat gaps of the docs laid end to end: bool (N - 1,),
        True where a word ends (a doc's gaps only, False next to separators)."""
        flat = laid.arrays
        n_gaps = max(len(flat) - 1, 0)
        index = [i for i, n in enumerate(laid.lengths.tolist()) if n >= 2]
        bounds = numpy.zeros(n_gaps, dtype=bool)
        if not index:
            return bounds
        constraint, bias = self.gap_rules(flat)
        starts, lengths = laid.starts[index], laid.lengths[index]
        if self.scores_tags:
            self._check_tag_settings()
            gaps = [constraint[s : s + n - 1] for s, n in zip(starts.tolist(), lengths.tolist())]
            biases = None if bias is None else [bias[s : s + n - 1] for s, n in zip(starts.tolist(), lengths.tolist())]
            decoded = crf_boundaries([scores[i] for i in index], gaps, biases)
            for s, n, doc_bounds in zip(starts.tolist(), lengths.tolist(), decoded):
                bounds[s : s + n - 1] = doc_bounds
            return bounds
        self.check_decoding_counts(self.transition_weight, self.tag_prior_weight, self.bigram_prior_weight)
        real = laid.real_gaps
        # the scores' own dtype: the threshold is subtracted in it, as always
        logits = numpy.zeros(n_gaps, dtype=numpy.asarray(scores[index[0]]).dtype)
        for i, s, n in zip(index, starts.tolist(), lengths.tolist()):
            logits[s : s + n - 1] = numpy.asarray(scores[i])[:, 0]
        logits -= self._threshold_logit
        logits[~real] = 0.0
        if bias is not None:
            logits = logits + bias
        if self.bigram_prior_weight > 0.0:
            keys = gap_keys_from_codes(prior_codes(flat.first, flat.length), flat.breaks)
            logits = logits + self.bigram_prior_weight * self.pair_counts.log_odds_of_keys(*keys)
        if self.transition_weight > 0.0 or self.tag_prior_weight > 0.0:
            bounds = self._chain_boundaries(laid, logits, constraint, starts, lengths)
        else:
            bounds = numpy.where(constraint >= 0, constraint == 1, logits > 0)
        bounds &= real
        return bounds

    def _chain_boundaries(self, batch: BatchArrays, logits: numpy.ndarray, constraint: numpy.ndarray,
                          starts: numpy.ndarray, lengths: numpy.ndarray) -> numpy.ndarray:
        """The Viterbi labelling of a batch's flat gaps under the transition and
        tag priors (`tag_chain_emissions`), each doc decoded as a row of one padded batch."""
        flat = batch.arrays
        log_trans = numpy.zeros((2, 2))
        if self.transition_weight > 0.0:
            log_trans = self._prior("transitions", lambda counts: transition_log_probs(numpy.asarray(counts)))
        pairs = None
        if self.tag_prior_weight > 0.0:
            index_map, table = self._prior("tags", tag_pmi)
            tag_index = self._prior("tags_index", lambda _: TagIndex(index_map, len(table)), source="tags")
            pairs = self.tag_prior_weight * numpy.take(table, tag_index.rows_of(flat.codes), axis=0)
        emissions = tag_chain_emissions(logits, log_trans, self.transition_weight, pairs, flat.breaks,
                                        real_gaps=batch.real_gaps)
        return padded_viterbi(emissions, constraint, lengths, starts)  # the docs with gaps

    def set_annotations(self, docs: Iterable[Doc], scores: Sequence[Floats2d]) -> None:
        """Merge each doc's characters into words in place, in one
        retokenization per doc (`__call__` and `pipe` build new docs instead)."""
        docs = list(docs)
        for doc, bounds in zip(docs, self.decode(docs, scores)):
            if bounds is not None:
                merge_words(doc, bounds)

    def boundaries(self, doc: Doc, doc_scores: Floats2d) -> numpy.ndarray:
        """Where words end: the final scorer's logit above the threshold's
        logit (with `transition_weight` or `tag_prior_weight`: the Viterbi
        path), or a gap next to whitespace. With `bigram_prior_weight`, the
        character pairs' boundary log-odds are added to the logits first.

        doc (Doc): A character doc with at least 2 tokens.
        doc_scores (Floats2d): Its scores from `predict`.
        RETURNS (numpy.ndarray): Bool (len(doc) - 1,), True = a word ends at gap j.
        """
        bounds = self.decode([doc], [doc_scores])[0]
        return numpy.zeros(0, dtype=bool) if bounds is None else bounds

    def _pair_scores(self, doc: Doc, training: bool = False) -> Tuple[numpy.ndarray, Optional[numpy.ndarray]]:
        """The transitions' log-probabilities (to weight by `transition_weight`)
        and the doc's weighted tag scores (None with `tag_prior_weight` 0);
        `training`: a training doc's tag scores held out from its block, where
        initialize recorded them (`held_out_priors`)."""
        log_trans = numpy.zeros((2, 2))
        if self.transition_weight > 0.0:
            log_trans = self._prior("transitions", lambda counts: transition_log_probs(numpy.asarray(counts)))
        pairs = None
        if self.tag_prior_weight > 0.0:
            held_out = self._held_out_prior(doc) if training else None
            index, table = held_out or self._prior("tags", tag_pmi)
            pairs = self.tag_prior_weight * tag_potentials([t.text for t in doc], index, table)
        return log_trans, pairs

    def check_decoding_counts(self, transition_weight: float, tag_prior_weight: float,
                              bigram_prior_weight: float) -> None:
        """Raise E031 if decoding with these weights needs counts that the
        segmenter does not have (pipelines trained before they were recorded)."""
        needs = (("transitions", transition_weight, "transitions" in self.cfg),
                 ("tags", tag_prior_weight, "tags" in self.cfg),
                 ("pairs", bigram_prior_weight, self.pair_counts is not None))
        for key, weight, present in needs:
            if weight > 0.0 and not present:
                raise ValueError(Errors.E031.format(name=self.name, key=key))

    def _held_out_prior(self, doc: Doc) -> Optional[Tuple[Dict[str, int], numpy.ndarray]]:
        """The tag prior without the training doc's block, None if there is
        none (not recorded, or the doc is not a training doc)."""
        folds = self.model.attrs.get(HOLDOUT_FOLDS_ATTR)
        if self._held_out_priors is None or folds is None:
            return None
        block = folds.fold(source_text(doc))
        return self._held_out_priors[block] if block >= 0 else None

    def _prior(self, key: str, compute: Callable[[Any], Any], source: Optional[str] = None) -> Any:
        """`compute(self.cfg[source or key])`, computed again only when those counts change."""
        counts = self.cfg.get(source or key)
        if counts is None:
            raise ValueError(Errors.E031.format(name=self.name, key=source or key))
        cached = self._priors.get(key)
        if cached is None or cached[0] is not counts:
            cached = self._priors[key] = (counts, compute(counts))
        return cached[1]

    def get_loss(self, examples: Iterable[Example], scores: Sequence[Floats2d]) -> Tuple[float, List[Floats2d]]:
        """Binary cross-entropy over the gold gaps, summed over the score columns
        (main + HiRED) and averaged over the gaps that have a gold label; with
        `loss = "crf"`, the final scorer's column is scored by the CRF instead
        (`_crf_loss`).

        RETURNS (Tuple[float, List[Floats2d]]): The loss and d_scores per doc.
        """
        examples = list(examples)
        golds = [gold_gaps(eg) for eg in examples]
        n_gold = max(sum(int(mask.sum()) for _, mask in golds), 1)
        if self.scores_tags:
            return self._tagger_loss(examples, golds, scores, n_gold)
        loss = 0.0
        d_scores = []
        for eg, (labels, mask), doc_scores in zip(examples, golds, scores):
            s = numpy.asarray(doc_scores, dtype="f")
            if self.loss == "crf" and len(s):
                # the final scorer's column by the CRF, the others (HiRED) by BCE
                crf, d_final = self._crf_loss(eg.predicted, s[:, 0], labels, mask)
                bce, d_rest = _bce(s[:, 1:], labels, mask, n_gold)
                loss += crf / n_gold + bce
                d_doc = numpy.concatenate([(d_final / n_gold)[:, None], d_rest], axis=1)
            else:
                bce, d_doc = _bce(s, labels, mask, n_gold)
                loss += bce
            d_scores.append(self.model.ops.asarray2f(d_doc.astype("f")))
        return loss, d_scores

    def _tagger_loss(self, examples: List[Example], golds: List[Tuple[numpy.ndarray, numpy.ndarray]],
                     scores: Sequence[Floats2d], n_gold: int) -> Tuple[float, List[Floats2d]]:
        """The BMES CRF's negative log-likelihood of the gold gaps (`tagging.crf_loss`),
        plus binary cross-entropy on the encoder's auxiliary gap logits (HiRED)."""
        host = [numpy.asarray(self.model.ops.to_numpy(s), dtype="f") for s in scores]
        d_host = [numpy.zeros_like(s) for s in host]
        index = [i for i, eg in enumerate(examples) if len(eg.predicted) >= 2]
        loss = 0.0
        if index:
            loss, d_crf = crf_loss([host[i] for i in index], [golds[i][0] for i in index],
                                   [golds[i][1] for i in index], [forced_boundaries(examples[i].predicted) for i in index],
                                   float(n_gold))
            for i, d in zip(index, d_crf):
                d_host[i] = d
        for i in index:
            aux = aux_gap_scores(host[i])
            if aux is None:
                continue
            labels, mask = golds[i]
            aux_loss, d_aux = _bce(aux, labels, mask, n_gold)
            loss += aux_loss
            d_host[i][:-1, host[i].shape[1] - aux.shape[1]:] = d_aux
        return loss, [self.model.ops.asarray2f(d) for d in d_host]

    def _crf_loss(self, doc: Doc, logits: numpy.ndarray, labels: numpy.ndarray,
                  mask: numpy.ndarray) -> Tuple[float, numpy.ndarray]:
        """Negative log-likelihood of the gold gaps under the linear-chain model
        that decoding maximises (`decoding.chain_marginals`): gap logits plus the
        weighted priors. Gaps without a gold label are summed over; gaps next to
        whitespace are boundaries. RETURNS the loss and its gradient per gap."""
        logits = logits - self._threshold_logit
        forced = forced_boundaries(doc)
        free = numpy.where(forced, 1, -1)
        gold = numpy.where(mask, labels > 0.5, free).astype(numpy.int64)
        log_trans, pairs = self._pair_scores(doc, training=True)
        log_z, p_free = chain_marginals(logits, log_trans, self.transition_weight, free, pairs)
        log_z_gold, p_gold = chain_marginals(logits, log_trans, self.transition_weight, gold, pairs)
        return log_z - log_z_gold, p_free - p_gold

    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optional[Optimizer] = None,
        losses: Optional[Dict[str, float]] = None,
    ) -> Dict[str, float]:
        """Learn from a batch of examples. Dropout is set in the architecture:
        `drop` (spaCy's `[training] dropout`) cannot reach the torch module."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = [eg for eg in examples if _has_known_spaces(eg)]
        if not examples:
            return losses
        validate_examples(examples, "GDSegmenter.update")
        self._check_not_quantized()
        if self._pseudo is not None and (self.pseudo_words > 0.0 or self.pseudo_chars > 0.0):
            examples = [self._pseudo.apply(eg, self.pseudo_words, self.pseudo_chars) for eg in examples]
        docs = [eg.predicted for eg in examples]
        scores, backprop = self.model.begin_update(docs)
        loss, d_scores = self.get_loss(examples, scores)
        backprop(d_scores)
        if sgd is not None:
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        user_dict: Optional[Union[str, Path]] = None,
        user_dict_mode: str = "force",
    ) -> None:
        """Check the training data and record its vocabulary (for OOV recall,
        the dictionary features and the n-gram vocabulary).

        user_dict (Optional[Union[str, Path]]): A user dictionary file to load
            (`[initialize.components.NAME] user_dict = "words.txt"`): one word
            per line, optionally followed by its mode (`user_dict.read_user_dict`).
        user_dict_mode (str): The mode of words given without one.

        The torch module is built eagerly from the config, so there is no
        shape inference to do here.
        """
        validate_get_examples(get_examples, "GDSegmenter.initialize")
        if user_dict is not None:
            for word, mode in read_user_dict(user_dict, user_dict_mode):
                self.user_dict.add([word], mode)
        if self.model.attrs.get(ENSEMBLE_ATTR):
            raise ValueError(Errors.E036)
        counts: Counter = Counter()
        # first and last example of each word, for block leave-out
        first: Dict[str, int] = {}
        last: Dict[str, int] = {}
        texts: List[str] = []
        decoding = _DecodingCounts()
        for eg in get_examples():
            if not _has_known_spaces(eg):
                continue
            check_char_tokens(eg.predicted)
            decoding.add(eg)
            words = [t.text for t in eg.reference if not t.is_space]
            counts.update(words)
            for word in words:
                first.setdefault(word, len(texts))
                last[word] = len(texts)
            texts.append(eg.predicted.text)
        if not texts:
            raise ValueError(Errors.E019)
        self.train_words = set(counts)
        augment = self.pseudo_words > 0.0 or self.pseudo_chars > 0.0
        self._pseudo = PseudoWords.from_counts(counts) if augment else None
        self._store_decoding_counts(decoding)
        k = self.model.attrs.get("holdout_folds", 0)
        local: Dict[str, int] = {}
        self._held_out_priors = None
        if k >= 2:
            self.model.attrs[HOLDOUT_FOLDS_ATTR] = HoldoutFolds.from_texts(texts, k)
            block = partial(HoldoutFolds.block_of_index, n=len(texts), k=k)
            local = {w: block(i) for w, i in first.items() if block(i) == block(last[w])}
            if self.held_out_priors:
                self._held_out_priors = [tag_pmi(c) for c in decoding.tags.held_out([block(i) for i in range(len(texts))], k)]
        if LEXICON_COUNTS_ATTR in self.model.attrs:
            self.model.attrs[LEXICON_COUNTS_ATTR] = WordCounts(counts, local)
        record_ngram_vocab(self.model, (eg.predicted for eg in get_examples() if _has_known_spaces(eg)))
        set_model_vectors(self.model, self.vocab)
        docs = [eg.predicted for eg in islice(get_examples(), 10)]
        self.model.initialize(X=docs)

    def record_transitions(self, examples: Iterable[Example]) -> None:
        """Count the gap-label transitions, the characters' word-position
        tags and the character pairs' boundaries of gold examples, for the
        decoding priors (`initialize` does this with the training data; this
        is for pipelines trained before it did)."""
        decoding = _DecodingCounts()
        for eg in examples:
            if _has_known_spaces(eg):
                decoding.add(eg)
        self._store_decoding_counts(decoding)

    def _store_decoding_counts(self, decoding: "_DecodingCounts") -> None:
        """Keep the counts of the decoding priors: in cfg (transitions, tags)
        and, saved in a file of its own, `pair_counts`."""
        self.cfg["transitions"] = decoding.transitions.tolist()
        self.cfg["tags"] = dict(sorted(decoding.tags.counts().items()))
        self.pair_counts = decoding.pairs.counts()

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, float]:
        """Token P/R/F, plus OOV and IV recall against the training vocabulary."""
        if self.scorer is None:
            return {}
        kwargs.setdefault("vocabulary", self.train_words)
        return self.scorer(examples, **kwargs)

    # Serialization: TrainablePipe handles cfg, vocab and model; we add the words.

    def _check_not_quantized(self) -> None:
        if self.model.attrs.get(QUANTIZED_ATTR):
            raise ValueError(Errors.E025.format(name=self.name))

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        self._check_not_quantized()
        self._validate_serialization_attrs()
        serialize = {
            "cfg": lambda: srsly.json_dumps(self.cfg),
            "model": lambda: self.model.to_bytes(),
            "words": lambda: srsly.msgpack_dumps(sorted(self.train_words)),
            "pairs": lambda: b"" if self.pair_counts is None else self.pair_counts.to_bytes(),
            "user_dict": lambda: srsly.json_dumps(self.user_dict.to_list()),
        }
        if hasattr(self, "vocab"):
            serialize["vocab"] = lambda: self.vocab.to_bytes(exclude=exclude)
        return util.to_bytes(serialize, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "GDSegmenter":
        self._validate_serialization_attrs()
        deserialize = {
            "cfg": lambda b: self.cfg.update(srsly.json_loads(b)),
            "model": lambda b: self.model.from_bytes(b),
            "words": lambda b: setattr(self, "train_words", set(srsly.msgpack_loads(b))),
            "pairs": lambda b: setattr(self, "pair_counts", PairCounts.from_bytes(b) if b else None),
            "user_dict": lambda b: setattr(self, "user_dict", UserDictionary.from_list(srsly.json_loads(b))),
        }
        if hasattr(self, "vocab"):
            deserialize["vocab"] = lambda b: self.vocab.from_bytes(b, exclude=exclude)
        util.from_bytes(bytes_data, deserialize, exclude)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        self._check_not_quantized()
        path = Path(path)
        serialize = {
            "cfg": lambda p: srsly.write_json(p, self.cfg),
            "model": lambda p: self.model.to_disk(p),
            "words.txt": lambda p: p.write_text("".join(w + "\n" for w in sorted(self.train_words)), encoding="utf8"),
            "pairs": lambda p: None if self.pair_counts is None else p.write_bytes(self.pair_counts.to_bytes()),
            "user_dict.json": lambda p: srsly.write_json(p, self.user_dict.to_list()),
        }
        if hasattr(self, "vocab"):
            serialize["vocab"] = lambda p: self.vocab.to_disk(p, exclude=exclude)
        # write beside the target, with checksums, then move into place: a failed
        # save leaves the previous folder (or none), never a half-written one
        tmp = path.parent / f".{path.name}.tmp-{os.getpid()}"
        if tmp.exists():
            shutil.rmtree(tmp)
        try:
            util.to_disk(tmp, serialize, exclude)
            write_checksums(tmp)
            replace_dir(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "GDSegmenter":
        path = Path(path)
        deserialize = {
            "cfg": lambda p: self.cfg.update(srsly.read_json(p)),
            "model": lambda p: self.model.from_disk(p),
            "words.txt": lambda p: setattr(self, "train_words", _read_words(p)),
            "pairs": lambda p: setattr(self, "pair_counts", PairCounts.from_bytes(p.read_bytes()) if p.exists() else None),
            # pipelines saved before the user dictionary have none
            "user_dict.json": lambda p: setattr(
                self, "user_dict", UserDictionary.from_list(srsly.read_json(p)) if p.exists() else UserDictionary()),
        }
        if hasattr(self, "vocab"):
            deserialize["vocab"] = lambda p: self.vocab.from_disk(p, exclude=exclude)
        verify_checksums(path)  # E063 / E064 (pipelines saved before 2026-11-25 have none)
        util.from_disk(path, deserialize, exclude)
        self._check_words_loaded(path / "words.txt")
        return self

    def _check_words_loaded(self, path: Path) -> None:
        """E065 if the model needs its training words (dictionary features) and none were loaded."""
        uses_lexicon = any(node.attrs.get("lexicon_max_len") for node in self.model.walk())
        if uses_lexicon and not self.train_words:
            raise ValueError(Errors.E065.format(path=path))


def _read_words(path: Path) -> Set[str]:
    if not path.exists():
        return set()
    return set(path.read_text(encoding="utf8").split("\n")) - {""}


def _has_known_spaces(eg: Example) -> bool:
    if eg.reference.has_unknown_spaces:
        warnings.warn(Warnings.W001, stacklevel=3)
        return False
    return True


def _bce(s: numpy.ndarray, labels: numpy.ndarray, mask: numpy.ndarray, n_gold: int) -> Tuple[float, numpy.ndarray]:
    """Binary cross-entropy of gap logits `s` (n_gaps, k) against gold labels,
    over the masked gaps, divided by n_gold; RETURNS the loss and d_s."""
    probs = 0.5 * (1.0 + numpy.tanh(0.5 * s))  # sigmoid without overflow
    weight = mask[:, None].astype("f") / n_gold
    # log(1 + exp(-|s|)) + max(s, 0) - s * y: stable BCE with logits
    bce = numpy.logaddexp(0.0, -numpy.abs(s)) + numpy.maximum(s, 0.0) - s * labels[:, None]
    return float((bce * weight).sum()), ((probs - labels[:, None]) * weight).astype("f")


def _threshold_value(value: Any) -> float:
    """A checked threshold (E013 unless a number strictly between 0 and 1)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(Errors.E013.format(threshold=value)) from None
    if not 0.0 < number < 1.0:
        raise ValueError(Errors.E013.format(threshold=value))
    return number


def _decoding_weight(name: str, value: float) -> float:
    """A checked decoding weight (E030 unless finite and >= 0)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(Errors.E030.format(name=name, value=value)) from None
    if not (number >= 0.0 and math.isfinite(number)):
        raise ValueError(Errors.E030.format(name=name, value=value))
    return number


class _DecodingCounts:
    """The counts of the three decoding priors (gap-label transitions,
    characters' tags, character pairs' boundaries) over gold examples added
    one at a time, by `initialize` and `record_transitions`."""

    def __init__(self) -> None:
        self.transitions = numpy.zeros((2, 2))
        self.tags = TagTally()
        self.pairs = PairTally()

    def add(self, eg: Example) -> None:
        gaps = gold_gaps(eg)
        self.transitions += transition_counts([gaps])
        tokens, labels, mask, forced = _tag_input(eg, gaps)
        self.tags.add(tokens, labels, mask, forced)
        self.pairs.add(tokens, labels, mask)


def _tag_input(eg: Example, gaps: Tuple[numpy.ndarray, numpy.ndarray]) -> Tuple[List[str], numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """What `decoding.tag_counts` needs of one example, given its `gold_gaps`."""
    doc = eg.predicted
    forced = forced_boundaries(doc) if len(doc) > 1 else numpy.zeros(0, dtype=bool)
    return [t.text for t in doc], gaps[0], gaps[1], forced


def check_char_tokens(docs: Union[Doc, Sequence[Doc]]) -> None:
    """E014 unless every token of the docs that is not whitespace is one
    character (the segmenter merges characters: on words it would do nothing).
    One check over the batch's tokens laid end to end (`docs_batch_arrays`)."""
    docs = [docs] if isinstance(docs, Doc) else list(docs)
    if not docs:
        return
    laid = docs_batch_arrays(docs)
    wide = ~laid.arrays.is_space & (laid.arrays.length > 1)
    if wide.any():
        flat = int(numpy.flatnonzero(wide)[0])
        k = int(numpy.searchsorted(laid.starts, flat, side="right")) - 1
        token = docs[k][flat - int(laid.starts[k])]
        raise ValueError(Errors.E014.format(hint="spacy_gdcws.ChineseCharTokenizer.v1", token=token.text, n=len(token)))


def forced_boundaries(doc: Doc) -> numpy.ndarray:
    """Gaps that are boundaries whatever the model says: next to a whitespace
    token, or after a token with trailing whitespace (`TokenArrays.forced`)."""
    return token_arrays(doc).forced


def new_words_doc(doc: Doc, words: List[str], spaces: List[bool], make_doc: DocMaker) -> Doc:
    """A new doc of `words` (which cover `doc`'s text exactly, as `batch_words`
    cuts them) that carries over `doc`'s `user_data`, `cats` and span groups
    (by character offsets, expanded to whole words). `make_doc`: a `DocMaker`
    of the doc's vocab."""
    new = make_doc(words, spaces, user_data=doc.user_data)
    new.cats = doc.cats
    for key, group in doc.spans.items():
        new.spans[key] = [new.char_span(span.start_char, span.end_char, label=span.label,
                                        kb_id=span.kb_id, alignment_mode="expand") for span in group]
    return new


def merge_words(doc: Doc, boundaries: numpy.ndarray) -> None:
    """Merge runs of tokens between boundaries, all in one retokenization.

    boundaries (numpy.ndarray): Bool (len(doc) - 1,), True = a word ends at gap j.
    """
    ends = numpy.flatnonzero(boundaries) + 1
    starts = numpy.concatenate([[0], ends])
    stops = numpy.concatenate([ends, [len(doc)]])
    multi = numpy.flatnonzero(stops - starts > 1)
    if not len(multi):
        return
    with doc.retokenize() as retokenizer:
        for i in multi:
            retokenizer.merge(doc[int(starts[i]) : int(stops[i])])


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


