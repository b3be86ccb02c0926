"""The `gdcws_segmenter` pipeline component: merges character tokens into words.

The component coordinates: the model scores a batch (`predict`), the decoder
turns scores into boundaries (`decoding.decoder`), `pipeline.words` turns
boundaries into word docs, `pipeline.loss` scores them against gold words,
`pipeline.counts` reads the training data and `pipeline.serialize` saves and
loads it. Its settings and their defaults: `pipeline.factory`.
"""
import functools
from itertools import islice
from pathlib import Path
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Model, Optimizer
from thinc.types import Floats2d

from spacy_gdcws.data.clusters import ClusterView
from spacy_gdcws.data.doc_arrays import DocBatch
from spacy_gdcws.decoding.decoder import Decoder, threshold_value
from spacy_gdcws.decoding.dictionary_files import load_user_dict
from spacy_gdcws.decoding.settings import Setting
from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.resources import (
    GENERAL_WORDS,
    TRAINING_WORDS,
    FeatureResources,
    feature_resources,
    ModelWords,
    model_normalizer,
    record_ngram_vocab,
)
from spacy_gdcws.ml.precision import check_not_quantized
from spacy_gdcws.ml.state import (
    ENSEMBLE_ATTR,
    output_kind,
    set_model_vectors,
    uses_general_lexicon,
)
from spacy_gdcws.pipeline import serialize
from spacy_gdcws.pipeline.counts import (
    DecodingCounts,
    HeldOutPriors,
    TrainingData,
    check_training_state,
    has_known_spaces,
    store_decoding_counts,
    training_state,
)
from spacy_gdcws.pipeline.lexicons import coarse_words, lexicon_words
from spacy_gdcws.pipeline.loss import Gold, batch_loss, check_loss, gold_gaps
from spacy_gdcws.pipeline.words import (
    BATCH_CHARS,
    Segmentation,
    WordDocs,
    has_words,
    check_char_tokens,
    doc_batches,
    merge_words,
)
from spacy_gdcws.training.augment import PseudoWords, check_rate
from spacy_gdcws.training.resume import UPDATES_KEY


class GDSegmenter(TrainablePipe):
    """Merge the character tokens of a doc into words.

    Runs first in the pipeline, after `spacy_gdcws.ChineseCharTokenizer.v1`
    (or `spacy.zh.ChineseTokenizer` in "char" mode: the same tokens). Gap j
    lies between tokens j and j + 1; it is a boundary when the model says so,
    and always next to whitespace, so `doc.text` never changes. The settings
    are described at `pipeline.factory.make_segmenter`.
    """

    # the decoding settings, kept (and checked) by the component's `Decoder`
    transition_weight = Setting(via="decoder")
    tag_prior_weight = Setting(via="decoder")
    bigram_prior_weight = Setting(via="decoder")
    user_dict_bonus = Setting(via="decoder")
    user_dict_freq_scale = Setting(via="decoder")
    atomic_units = Setting(via="decoder")
    user_dict = Setting(via="decoder")
    granularity = Setting(via="decoder")
    pair_counts = Setting(via="decoder")
    # the words of the training data (the scorer's OOV dictionary; a model with dictionary features
    # reads them) and the general lexicon (the word list given at initialize, e.g. jieba's dict.txt,
    # read by a model with `general_lexicon` features): kept here and given to the model's layers
    train_words = ModelWords(TRAINING_WORDS)
    general_words = ModelWords(GENERAL_WORDS)
    # the training settings, checked on every assignment
    loss = Setting(check_loss)
    pseudo_words = Setting(check_rate)
    pseudo_chars = Setting(check_rate)

    def __init__(self, vocab: Vocab, model: Model[List[Doc], List[Floats2d]], name: str = "gdcws_segmenter", *,
                 threshold: float, scorer: Optional[Callable], loss: str, held_out_priors: bool,
                 pseudo_words: float, pseudo_chars: float, **decoding: Any) -> None:
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        # saved with the component: the threshold and, recorded by initialize, the training
        # data's gap-label transition counts ("transitions") and characters' tag counts ("tags")
        self.cfg: Dict[str, Any] = {"threshold": threshold_value(threshold)}
        self.decoder = Decoder(self.cfg, name, normalizer=model_normalizer(model),
                               coarse_words=functools.partial(coarse_words, self), **decoding)
        self.loss, self.held_out_priors = loss, held_out_priors
        self.pseudo_words, self.pseudo_chars = pseudo_words, pseudo_chars
        # training only (not saved), set by initialize: where pseudo-words come from, and
        # per block of the training data the tag prior counted without it (held_out_priors)
        self._pseudo: Optional[PseudoWords] = None
        self._held_out_priors: Optional[HeldOutPriors] = None
        # whether initialize or continue_training built the state above (a loaded segmenter has not)
        self.training_ready = False
        self._words = WordDocs()
        self.train_words = set()
        self.general_words = set()
        # the decoding settings as the config built them (a change made later is saved in cfg)
        self.built_settings = serialize.live_settings(self.decoder)
        self._check_tag_settings()

    def add_words(self, words: Union[Iterable[str], Mapping[str, int]], mode: str = "force") -> int:
        """Add words (or {word: frequency}) to the user dictionary at once: "force", "prefer"
        or "combine" (`decoding.user_dict`). RETURNS (int): the number of words added."""
        freqs = dict(words) if isinstance(words, Mapping) else None
        return self.decoder.user_dict.add(list(words) if freqs else words, mode, freqs)

    def add_splits(self, splits: Dict[str, List[str]]) -> int:
        """Forced splits: `{"和服务": ["和", "服务"]}` cuts each occurrence into its parts."""
        return self.user_dict.add_splits(splits)

    def load_user_dict(self, path: Union[str, Path], mode: str = "force", encoding: Optional[str] = None,
                       strict: bool = False) -> int:
        """Load a dictionary file (jieba's, HanLP's or pkuseg's format, `decoding.dictionary_files`;
        `encoding` None: UTF-8, or UTF-16 by its BOM; a bad line is left out with a warning, or,
        `strict`, refuses the file). RETURNS (int): the number of entries."""
        return load_user_dict(self.user_dict, path, mode, encoding, strict)

    def remove_words(self, words: Iterable[str]) -> None:
        """Remove words from the user dictionary (`user_dict.reset()` removes all)."""
        self.user_dict.remove(words)

    @property
    def scores_tags(self) -> bool:
        """Whether the model scores BMES tags with a CRF (`spacy_gdcws.CRFTagger.v1`) rather than gaps."""
        return output_kind(self.model) == "tags"

    def _check_tag_settings(self) -> None:
        """E044 if a setting for gap scorers is on with a CRF tagger."""
        if self.scores_tags:
            self.decoder.check_tagger_settings(self.loss)

    @property
    def resources(self) -> List[FeatureResources]:
        """What each featurize layer of the model reads besides its settings (`ml.resources`)."""
        return feature_resources(self.model)

    @property
    def threshold(self) -> float:
        return self.cfg["threshold"]

    @threshold.setter
    def threshold(self, value: float) -> None:
        self.cfg["threshold"] = threshold_value(value)

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple()

    def add_label(self, label: str) -> int:
        raise NotImplementedError(Errors.E012.format(label=label))

    def scores(self, docs: Iterable[Doc]) -> List[Floats2d]:
        """The model's scores of character docs: gap logits (len(doc) - 1, n) or CRF potentials (len(doc), n)
        per doc (what `predict` decodes; `app.tuning` decodes them under other decoding weights)."""
        batch = DocBatch.of(docs)
        check_char_tokens(batch)
        return self.model.predict(batch)

    def predict(self, docs: Iterable[Doc]) -> Segmentation:
        """Where the words of character docs end: the model's `scores`, decoded (`decoding.decoder`) with the
        user dictionary and granularity as they are now; a grapheme cluster of several characters read as
        one (`data.clusters`). A `DocBatch` is read once for the model, the check and decoding."""
        batch = DocBatch.of(docs)
        view = ClusterView.of(batch)
        if view is None:
            return self.segmentation(batch, self.scores(batch))
        check_char_tokens(batch)
        return Segmentation(batch, view.bounds(self.segmentation(view.view, self.scores(view.view)).bounds))

    def segmentation(self, docs: Sequence[Doc], scores: Sequence[Floats2d]) -> Segmentation:
        """The decoding of given scores (`predict` decodes the model's): boundaries over the docs laid out."""
        batch = DocBatch.of(docs)
        self._check_tag_settings()
        if not batch:
            return Segmentation(batch, numpy.zeros(0, dtype=bool))
        return Segmentation(batch, self.decoder.flat_boundaries(scores, batch.arrays, self.scores_tags))

    def __call__(self, doc: Doc) -> Doc:
        """A new doc of words (same text, `user_data`, `cats`); a doc of fewer than 2 tokens, or whose
        words are set already (`pipeline.words.words_doc`), comes back as is."""
        error_handler = self.get_error_handler()
        try:
            return doc if has_words(doc) else self.segmented_docs(self.predict(DocBatch([doc])))[0]
        except Exception as e:
            error_handler(self.name, self, [doc], e)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Segment a stream of character docs in batches (`batch_size` docs, `BATCH_CHARS` at most): yields docs of words."""
        error_handler = self.get_error_handler()
        for docs in doc_batches(stream, batch_size, BATCH_CHARS):
            try:
                todo = [doc for doc in docs if not has_words(doc)]
                done = iter(self.segmented_docs(self.predict(DocBatch(todo))) if todo else [])
                yield from (doc if has_words(doc) else next(done) for doc in docs)
            except Exception as e:
                error_handler(self.name, self, docs, e)

    def segmented_docs(self, segmentation: Segmentation) -> List[Doc]:
        """New docs of words built from the words and spaces of `predict`'s segmentation
        (`pipeline.words`; no model call and no decoding: what `__call__` and `pipe` return)."""
        batch = segmentation.batch
        return self._words.docs(batch, batch.arrays, segmentation.bounds) if batch else []

    def segmented_words(self, segmentation: Segmentation) -> List[List[str]]:
        """The words of each doc of `predict`'s segmentation as strings, whitespace left out (no `Doc` built)."""
        batch = segmentation.batch
        return self._words.words(batch.arrays, segmentation.bounds) if batch else []

    def decode(self, docs: Sequence[Doc], scores: Sequence[Floats2d]) -> List[Optional[numpy.ndarray]]:
        """Where words end in each doc under given scores (bool per gap; None for docs of fewer than 2 tokens)."""
        return self.segmentation(docs, scores).per_doc()

    def set_annotations(self, docs: Iterable[Doc], segmentation: Segmentation) -> None:
        """Merge each doc's characters into the words `predict` found, in place (`__call__` and `pipe`
        build new docs instead); no model call and no decoding: `predict` did both."""
        for doc, bounds in zip(docs, segmentation.per_doc()):
            if bounds is not None:
                merge_words(doc, bounds)

    def get_loss(self, examples: Iterable[Example], scores: Sequence[Floats2d]) -> Tuple[float, List[Floats2d]]:
        """The loss of a batch and its gradient per doc (`pipeline.loss`): the
        BMES CRF's for a tagger, otherwise BCE per gap (or the gap chain's CRF
        for the final scorer with `loss = "crf"`)."""
        examples = list(examples)
        return self._batch_loss([gold_gaps(eg) for eg in examples], DocBatch(eg.predicted for eg in examples), scores)

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd: Optional[Optimizer] = None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """Learn from a batch of examples. Dropout is set in the architecture:
        `drop` (spaCy's `[training] dropout`) cannot reach the torch module."""
        losses = {} if losses is None else losses
        losses.setdefault(self.name, 0.0)
        examples = [eg for eg in examples if has_known_spaces(eg)]
        if not examples:
            return losses
        validate_examples(examples, "GDSegmenter.update")
        check_not_quantized(self.name, self.model)
        if not self.training_ready:
            check_training_state(self.name, self.model, self._augments)
        # pseudo-words keep every token: the gold gaps of an example hold for its respelled doc
        golds = [gold_gaps(eg) for eg in examples]
        if self._pseudo is not None and self._augments:
            batch = DocBatch(self._pseudo.respelled(eg, self.pseudo_words, self.pseudo_chars) for eg in examples)
        else:
            batch = DocBatch(eg.predicted for eg in examples)
        scores, backprop = self.model.begin_update(batch)
        loss, d_scores = self._batch_loss(golds, batch, scores)
        backprop(d_scores)
        if sgd not in (None, False):
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    @property
    def _augments(self) -> bool:
        """Whether training respells words or characters (pseudo-words)."""
        return self.pseudo_words > 0.0 or self.pseudo_chars > 0.0

    def _batch_loss(self, golds: List[Gold], batch: DocBatch, scores: Sequence[Floats2d]) -> Tuple[float, List[Floats2d]]:
        return batch_loss(golds, batch, scores, ops=self.model.ops, tags=self.scores_tags, decoder=self.decoder,
                          loss=self.loss, priors=self._held_out_priors)

    def finish_update(self, sgd: Optimizer) -> None:
        """One optimizer step (`spacy train` calls it after `update(sgd=False)`), counted
        in cfg (`updates`, saved): a run that continues from this pipeline resumes its
        learning-rate schedule there (`spacy_gdcws.resumed.v1`)."""
        super().finish_update(sgd)
        self.cfg[UPDATES_KEY] = int(self.cfg.get(UPDATES_KEY, 0)) + 1

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   user_dict: Optional[Union[str, Path]] = None, user_dict_mode: str = "force",
                   general_lexicon: Optional[Union[str, Path]] = None, general_lexicon_min_freq: int = 0) -> None:
        """Check the training data and record what it gives: its words (OOV
        recall, dictionary features), the n-gram vocabulary, block leave-out and
        the decoding priors' counts. The torch module is built eagerly from the
        config, so there is no shape inference to do here.

        user_dict (Optional[Union[str, Path]]): A user dictionary file to load
            (`[initialize.components.NAME] user_dict = "words.txt"`) in any of
            the formats of `decoding.dictionary_files`.
        user_dict_mode (str): The mode of words given without one.
        general_lexicon (Optional[Union[str, Path]]): The word list of a model with
            `general_lexicon` features, in any format of `read_user_dict` (jieba's
            dict.txt: `word freq tag`); words of one character are left out.
        general_lexicon_min_freq (int): Keep the words whose frequency (where the
            file gives one) is at least this.
        """
        validate_get_examples(get_examples, "GDSegmenter.initialize")
        if general_lexicon is not None:
            self.general_words = lexicon_words(general_lexicon, general_lexicon_min_freq)
        if uses_general_lexicon(self.model) and not self.general_words:
            raise ValueError(Errors.E091)
        if user_dict is not None:
            self.load_user_dict(user_dict, user_dict_mode)
        if self.model.attrs.get(ENSEMBLE_ATTR):
            raise ValueError(Errors.E036)
        data = TrainingData.read(get_examples, model_normalizer(self.model))
        self.train_words = set(data.counts)
        store_decoding_counts(self.cfg, self.decoder, data.decoding)
        self._pseudo, self._held_out_priors = training_state(data, self.model, self._augments, self.held_out_priors)
        self.training_ready = True
        self.cfg[UPDATES_KEY] = 0
        record_ngram_vocab(self.model, (eg.predicted for eg in get_examples() if has_known_spaces(eg)))
        set_model_vectors(self.model, self.vocab)
        self.model.initialize(X=[eg.predicted for eg in islice(get_examples(), 10)])

    def continue_training(self, get_examples: Callable[[], Iterable[Example]]) -> None:
        """Make a saved segmenter ready to train further (a sourced `model-last`):
        rebuild from the training examples what training needs and a saved pipeline
        does not keep (`spacy_gdcws.continue_training.v1` calls this). Its weights,
        words, n-gram vocabulary and priors stay as saved."""
        validate_get_examples(get_examples, "GDSegmenter.continue_training")
        data = TrainingData.read(get_examples, model_normalizer(self.model))
        self._pseudo, self._held_out_priors = training_state(data, self.model, self._augments, self.held_out_priors)
        self.training_ready = True

    def record_transitions(self, examples: Iterable[Example]) -> None:
        """Count the decoding priors of gold examples (`initialize` does this with
        the training data; this is for pipelines trained before it did)."""
        store_decoding_counts(self.cfg, self.decoder, DecodingCounts.of(examples, model_normalizer(self.model)))

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, float]:
        """Token P/R/F, plus OOV and IV recall against the training vocabulary."""
        if self.scorer is None:
            return {}
        kwargs.setdefault("vocabulary", self.train_words)
        return self.scorer(examples, **kwargs)

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        self._validate_serialization_attrs()
        return serialize.to_bytes(self, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "GDSegmenter":
        self._validate_serialization_attrs()
        serialize.from_bytes(self, bytes_data, exclude)
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        serialize.to_disk(self, Path(path), exclude)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "GDSegmenter":
        serialize.from_disk(self, Path(path), exclude)
        return self
