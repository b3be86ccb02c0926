"""One decoder from a batch's scores to word boundaries.

Gap rules first (whitespace always wins, then the user dictionary's "force"
words, then atomic units: `gap_rules`), then one of three decodings of the
whole batch laid end to end (`doc_arrays.BatchArrays`):
- a CRF tagger's scores: its Viterbi path (`decoding.crf`);
- gap logits with no chain prior: each gap against the threshold (greedy);
- gap logits with the transition or tag prior: the Viterbi path of the chain
  the priors make (`decoding.chain`).
The bigram prior and the user dictionary's "prefer" words add to the gap
logits before either of the last two; its "combine" words merge decoded words
last (`word_tables.Snapshot.combine`). A decode reads one snapshot of the user
dictionary from start to end (another thread may edit it meanwhile).

The granularity: "fine" gives the model's own words (its training data's standard);
"coarse" merges them further into the words of a general lexicon wherever the decoded
boundaries already fall at both of a lexicon word's edges (a "combine" pass of the lexicon,
after the user dictionary's, which never crosses a forced boundary): 电视/台 -> 电视台.

A decoding weight is a `Setting(decoding_weight)` attribute of `Decoder` (checked on
every assignment, `decoding.settings`); adding one is a line here, where it is used, and a setting of the
factory (`pipeline.factory`): see docs/add-a-decoding-weight.md.
"""
import math
import threading
import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy

from spacy_gdcws.data.doc_arrays import BatchArrays
from spacy_gdcws.data.normalize import CharNormalizer, get_normalizer
from spacy_gdcws.decoding.chain import padded_viterbi, tag_chain_emissions
from spacy_gdcws.decoding.crf import crf_boundaries
from spacy_gdcws.decoding.priors import (
    PairCounts,
    TagIndex,
    gap_keys_from_codes,
    prior_codes,
    tag_pmi,
    tag_potentials,
    transition_log_probs,
)
from spacy_gdcws.decoding.settings import Setting
from spacy_gdcws.decoding.units import inner_gaps
from spacy_gdcws.decoding.user_dict import UserDictionary
from spacy_gdcws.decoding.word_tables import Snapshot
from spacy_gdcws.errors import Errors, Warnings


def decoding_weight(name: str, value: Any) -> float:
    """A checked decoding weight (E030 unless a finite number >= 0)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(Errors.E030.format(name=name, value=value)) from None
    if not (number >= 0.0 and math.isfinite(number)):
        raise ValueError(Errors.E030.format(name=name, value=value))
    return number


def threshold_value(value: Any) -> float:
    """A checked threshold (E013 unless a number strictly between 0 and 1)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(Errors.E013.format(threshold=value)) from None
    if not 0.0 < number < 1.0:
        raise ValueError(Errors.E013.format(threshold=value))
    return number


# "fine": the model's words; "coarse": merged into a general lexicon's words where they fit
GRANULARITIES = ("fine", "coarse")


def check_switch(name: str, value: Any) -> bool:
    """A checked on/off setting: True or False (numpy's booleans, 0 and 1 too); E135 for anything
    else (the string "false" is true to Python: it would switch the setting on)."""
    if isinstance(value, (bool, numpy.bool_)) or (isinstance(value, (int, numpy.integer)) and value in (0, 1)):
        return bool(value)
    raise ValueError(Errors.E135.format(name=name, value=value))


def check_granularity(value: Any) -> str:
    """E107 unless `value` is one of `GRANULARITIES`."""
    if value not in GRANULARITIES:
        raise ValueError(Errors.E107.format(value=value, options=", ".join(GRANULARITIES)))
    return value


def keep_phrases(user_dict: Snapshot, arrays: Any, bounds: numpy.ndarray, real: numpy.ndarray,
                 constraint: numpy.ndarray) -> Tuple[numpy.ndarray, int]:
    """The user dictionary's phrases (words with single spaces, `Edu Trust认证`) kept whole where the
    text (`arrays.text`, normalized) has exactly their characters from one token's start to another's
    end: no boundary inside, one at each edge (a phrase is found after decoding, whatever the model
    or another dictionary word says there), unless an edge falls inside an atomic unit (`constraint`
    0 there: `New York` in `New Yorker`), which no dictionary word cuts open. RETURNS the boundaries
    and the number of phrases left out for an edge inside a unit (W004)."""
    spans = user_dict.phrase_spans(arrays.text) if user_dict.phrases else []
    if not spans:
        return bounds, 0
    idx = arrays.idx
    ends = idx + arrays.length
    bounds = bounds.copy()
    inside = 0
    for start, end in spans:
        a = int(numpy.searchsorted(idx, start))
        b = int(numpy.searchsorted(idx, end)) - 1
        if a >= len(idx) or b <= a or idx[a] != start or ends[b] != end:
            continue  # not on token edges
        edges = [gap for gap in (a - 1, b) if 0 <= gap < len(bounds)]
        if any(constraint[gap] == 0 for gap in edges):
            inside += 1  # an edge inside a unit: the phrase is not in the text as a whole
            continue
        bounds[a:b] = False
        for gap in edges:
            if real[gap]:
                bounds[gap] = True
    return bounds, inside


class Decoder:
    """Turns a batch's scores into word boundaries (see the module docstring).

    cfg (Dict[str, Any]): The component's cfg, shared (saved with it): the
        threshold and the training data's counts of the chain priors
        ("transitions", "tags").
    name (str): The component's name, for error messages.
    """

    # weight of the gap-label transitions of the training data (0 = off)
    transition_weight = Setting(decoding_weight)
    # weight of the characters' word-position tags of the training data (0 = off)
    tag_prior_weight = Setting(decoding_weight)
    # weight of the character pairs' boundary log-odds of the training data (0 = off)
    bigram_prior_weight = Setting(decoding_weight)
    # what a "prefer" word of the user dictionary adds at its edges (and subtracts inside)
    user_dict_bonus = Setting(decoding_weight)
    # how much a prefer word's frequency scales that bonus (word_tables.freq_weight; 0 = not at all)
    user_dict_freq_scale = Setting(decoding_weight)
    # "fine" (the model's words) or "coarse" (merged into the general lexicon's words where the
    # model's boundaries allow); E107 for anything else
    granularity = Setting(lambda name, value: check_granularity(value))
    # URLs, numbers, Latin words and grapheme clusters kept whole (`decoding.units`)
    atomic_units = Setting(check_switch)
    # the weights that need counts of the training data, with the cfg key of those counts
    COUNTS = {"transition_weight": "transitions", "tag_prior_weight": "tags", "bigram_prior_weight": "pairs"}

    def __init__(self, cfg: Dict[str, Any], name: str, *, transition_weight: float, tag_prior_weight: float,
                 bigram_prior_weight: float, user_dict_bonus: float, atomic_units: bool,
                 user_dict_freq_scale: float = 0.0,
                 granularity: str = "fine", coarse_words: Optional[Callable[[], Iterable[str]]] = None,
                 normalizer: Optional[CharNormalizer] = None) -> None:
        self.cfg = cfg
        self.name = name
        self._normalizer = normalizer if normalizer is not None else get_normalizer("")
        self.transition_weight = transition_weight
        self.tag_prior_weight = tag_prior_weight
        self.bigram_prior_weight = bigram_prior_weight
        self.user_dict_bonus = user_dict_bonus
        self.user_dict_freq_scale = user_dict_freq_scale
        self.atomic_units = atomic_units
        self._warned_units = False
        self._user_dict = UserDictionary(normalizer=self._normalizer)
        self.granularity = granularity
        # where "coarse" gets its words (the segmenter's general lexicon): asked at each coarse decode,
        # and the table rebuilt when they are another set than the one it was built from
        self._coarse_words = coarse_words
        self._coarse_dict: Optional[UserDictionary] = None
        self._coarse_source: Any = None
        self._coarse_lock = threading.Lock()
        # the training data's boundary counts by character pair and window (saved in a file of its own)
        self.pair_counts: Optional[PairCounts] = None
        # priors computed from the counts in cfg, with the counts they came from
        self._priors: Dict[str, Tuple[Any, Any]] = {}

    @property
    def normalizer(self) -> CharNormalizer:
        """The model's character normalization: the priors and the user dictionary read
        normalized characters. Set when the model's own is known (a loaded model carries
        the map it was trained with); the user dictionary follows."""
        return self._normalizer

    @normalizer.setter
    def normalizer(self, value: CharNormalizer) -> None:
        self._normalizer = value
        self._user_dict.normalizer = value
        if self._coarse_dict is not None:
            self._coarse_dict.normalizer = value

    def __getstate__(self) -> Dict[str, Any]:
        # no lock in a pickle; the coarse table is built again at the first coarse decode
        return {**self.__dict__, "_coarse_lock": None, "_coarse_dict": None, "_coarse_source": None}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._coarse_lock = threading.Lock()

    def coarse_dict(self) -> UserDictionary:
        """The general lexicon's words as "combine" words, matched under the model's
        normalization; built at the first coarse decode, again when the lexicon is another
        set (E108 without words)."""
        words = self._coarse_words() if self._coarse_words is not None else None
        with self._coarse_lock:
            if self._coarse_dict is None or words is not self._coarse_source:
                if not words:
                    raise ValueError(Errors.E108.format(name=self.name))
                coarse = UserDictionary(normalizer=self._normalizer)
                coarse.add(sorted(words), "combine")
                self._coarse_dict, self._coarse_source = coarse, words
            return self._coarse_dict

    @property
    def user_dict(self) -> UserDictionary:
        """The user dictionary; one assigned here matches the model's normalized
        characters from then on (its tables are built once, here, not in decoding)."""
        return self._user_dict

    @user_dict.setter
    def user_dict(self, value: UserDictionary) -> None:
        value.normalizer = self.normalizer
        self._user_dict = value

    @property
    def threshold_logit(self) -> float:
        """The logit of the threshold: gap logits are compared against it."""
        threshold = self.cfg["threshold"]
        return float(numpy.log(threshold / (1.0 - threshold)))

    @property
    def uses_chain(self) -> bool:
        """Whether a prior couples neighbouring gaps (Viterbi instead of greedy)."""
        return self.transition_weight > 0.0 or self.tag_prior_weight > 0.0

    def check_tagger_settings(self, loss: str) -> None:
        """E044 if a setting for gap scorers is on while the model is a CRF tagger:
        a loss other than "bce" (the tagger trains its own CRF) or a decoding weight."""
        if loss != "bce":
            raise ValueError(Errors.E044.format(what="loss", default='"bce" (the tagger trains its own CRF)'))
        for what in self.COUNTS:
            if getattr(self, what) > 0:
                raise ValueError(Errors.E044.format(what=what, default="0"))

    def check_counts(self, **weights: float) -> None:
        """E031 if decoding with these weights (default: the decoder's own) needs
        counts that it does not have (pipelines trained before they were recorded)."""
        for weight, key in self.COUNTS.items():
            present = self.pair_counts is not None if key == "pairs" else key in self.cfg
            if weights.get(weight, getattr(self, weight)) > 0.0 and not present:
                raise ValueError(Errors.E031.format(name=self.name, key=key))

    def gap_rules(self, arrays: Any, written: Any = None,
                  user_dict: Optional[Snapshot] = None) -> Tuple[numpy.ndarray, Optional[numpy.ndarray]]:
        """A doc's gap constraints (-1 free, 0 no boundary, 1 boundary) and logit
        bonuses (None: none) from whitespace, atomic units and the user dictionary
        (`doc_arrays.TokenArrays` in, normalized; `written`: the same as written,
        where atomic units are found). Whitespace always wins, then "force"
        words, except that no word boundary falls inside an atomic unit."""
        written = arrays if written is None else written
        forced = arrays.forced
        constraints = numpy.where(forced, 1, -1)
        bias = None
        inner = numpy.zeros(len(forced), dtype=bool)
        if self.atomic_units:
            inner = inner_gaps(written.text, written.idx, written.is_space) & ~forced
            constraints[inner] = 0
        user_dict = self.user_dict.snapshot() if user_dict is None else user_dict
        if len(user_dict):
            words, bias = user_dict.gap_rules(arrays.codes, self.user_dict_bonus, self.user_dict_freq_scale)
            # a dictionary word never cuts an atomic unit (a URL, a ZWJ emoji, a Latin word) open
            cuts_a_unit = inner & (words == 1)
            if cuts_a_unit.any() and not self._warned_units:
                self._warned_units = True  # once per segmenter: a text may hold the word thousands of times
                warnings.warn(Warnings.W004.format(name=self.name), stacklevel=3)
            constraints = numpy.where((words >= 0) & ~forced & ~cuts_a_unit, words, constraints)
        return constraints, bias

    def flat_boundaries(self, scores: Sequence[Any], laid: BatchArrays, tags: bool) -> numpy.ndarray:
        """Where words end over the flat gaps of a batch's docs laid end to end: bool (N - 1,),
        True where a word ends (a doc's gaps only, False next to separators); `tags`: the scores
        are a CRF tagger's. The segmenter's `predict` calls this once per batch."""
        written = laid.arrays
        laid = laid.normalized(self.normalizer)
        flat = laid.arrays
        bounds = numpy.zeros(max(len(flat) - 1, 0), dtype=bool)
        index = [i for i, n in enumerate(laid.lengths.tolist()) if n >= 2]
        if not index:
            return bounds
        user_dict = self.user_dict.snapshot()
        constraint, bias = self.gap_rules(flat, written, user_dict)
        spans = [(s, s + n - 1) for s, n in zip(laid.starts[index].tolist(), laid.lengths[index].tolist())]
        real = laid.real_gaps
        if tags:
            biases = None if bias is None else [bias[a:b] for a, b in spans]
            decoded = crf_boundaries([scores[i] for i in index], [constraint[a:b] for a, b in spans], biases,
                                     [flat.breaks[a : b + 1] for a, b in spans])
            for (a, b), doc_bounds in zip(spans, decoded):
                bounds[a:b] = doc_bounds
            return self._phrases(user_dict, flat, self._combine(user_dict, flat.codes, bounds, ~real, constraint), real,
                                 constraint)
        self.check_counts()
        # the scores' own dtype: the threshold is subtracted in it, as always
        logits = numpy.zeros(len(bounds), dtype=numpy.asarray(scores[index[0]]).dtype)
        for i, (a, b) in zip(index, spans):
            logits[a:b] = numpy.asarray(scores[i])[:, 0]
        logits -= self.threshold_logit
        logits[~real] = 0.0
        if bias is not None:
            logits = logits + bias
        if self.bigram_prior_weight > 0.0:
            keys = gap_keys_from_codes(prior_codes(flat.first, flat.length), flat.breaks)
            logits = logits + self.bigram_prior_weight * self.pair_counts.log_odds_of_keys(*keys)
        if self.uses_chain:
            bounds = self._chain_boundaries(laid, logits, constraint, index)
        else:
            bounds = numpy.where(constraint >= 0, constraint == 1, logits > 0)
        return self._phrases(user_dict, flat, self._combine(user_dict, flat.codes, bounds & real, ~real, constraint),
                             real, constraint)

    def _phrases(self, user_dict: Snapshot, flat: Any, bounds: numpy.ndarray, real: numpy.ndarray,
                 constraint: numpy.ndarray) -> numpy.ndarray:
        """`keep_phrases`, warning once (W004) where a phrase's edge falls inside an atomic unit."""
        bounds, inside = keep_phrases(user_dict, flat, bounds, real, constraint)
        if inside and not self._warned_units:
            self._warned_units = True
            warnings.warn(Warnings.W004.format(name=self.name), stacklevel=4)
        return bounds

    def _combine(self, user_dict: Snapshot, codes: numpy.ndarray, bounds: numpy.ndarray, edges: numpy.ndarray,
                 constraint: numpy.ndarray) -> numpy.ndarray:
        """The user dictionary's "combine" words merged, then, in "coarse", the general lexicon's."""
        bounds = user_dict.combine(codes, bounds, edges, constraint)
        if self.granularity == "coarse":
            bounds = self.coarse_dict().snapshot().combine(codes, bounds, edges, constraint)
        return bounds

    def _chain_boundaries(self, laid: BatchArrays, logits: numpy.ndarray, constraint: numpy.ndarray,
                          index: List[int]) -> numpy.ndarray:
        """The Viterbi labelling of a batch's flat gaps under the transition and
        tag priors (`chain.tag_chain_emissions`)."""
        pairs = None
        if self.tag_prior_weight > 0.0:
            index_map, table = self.prior("tags", tag_pmi)
            tag_index = self.prior("tags_index", lambda _: TagIndex(index_map, len(table)), source="tags")
            pairs = self.tag_prior_weight * numpy.take(table, tag_index.rows_of(laid.arrays.codes), axis=0)
        emissions = tag_chain_emissions(logits, self.log_transitions(), self.transition_weight, pairs,
                                        laid.arrays.breaks, real_gaps=laid.real_gaps)
        return padded_viterbi(emissions, constraint, laid.lengths[index], laid.starts[index], laid.arrays.breaks)

    def log_transitions(self) -> numpy.ndarray:
        """The gap-label transitions' log-probabilities (zeros when the weight is 0)."""
        if self.transition_weight <= 0.0:
            return numpy.zeros((2, 2))
        return self.prior("transitions", lambda counts: transition_log_probs(numpy.asarray(counts)))

    def pair_scores(self, tokens: Sequence[str],
                    held_out: Optional[Tuple[Dict[str, int], numpy.ndarray]] = None) -> Tuple[numpy.ndarray, Optional[numpy.ndarray]]:
        """The transitions' log-probabilities (to weight by `transition_weight`)
        and a doc's weighted tag scores (None with `tag_prior_weight` 0), from
        `held_out` (a tag prior counted without the doc's block) where given."""
        pairs = None
        if self.tag_prior_weight > 0.0:
            index, table = held_out or self.prior("tags", tag_pmi)
            pairs = self.tag_prior_weight * tag_potentials([self.normalizer.text(t) for t in tokens], index, table)
        return self.log_transitions(), pairs

    def prior(self, key: str, compute: Callable[[Any], Any], source: Optional[str] = None) -> Any:
        """`compute(cfg[source or key])`, computed again only when those counts change."""
        counts = self.cfg.get(source or key)
        if counts is None:
            raise ValueError(Errors.E031.format(name=self.name, key=source or key))
        cached = self._priors.get(key)
        if cached is None or cached[0] is not counts:
            cached = self._priors[key] = (counts, compute(counts))
        return cached[1]
