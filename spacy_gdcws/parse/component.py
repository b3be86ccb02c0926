"""`gdcws_parser`: UPOS, XPOS, heads and relations on the segmenter's words, from one biaffine
model (`spacy_gdcws.BiaffineParser.v2`), with a tree decoder (one root per sentence, every head in
its sentence), sentences split at line breaks and sentence-final words, whitespace tokens SPACE.

The component coordinates, as the segmenter does: `data.features.words` turns docs into a
`ParseBatch`, the model scores it (`ml.parser`), `predict` decodes trees (`decoding.trees`) and asks
the model for the relations of the chosen arcs, `set_annotations` writes, `parse.loss` gives the
loss of an update and `parse.persist` saves and loads it (bytes and folders, one path).
"""
import functools
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

import numpy
from spacy.attrs import DEP, HEAD, POS, TAG
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab
from thinc.api import Model, Optimizer

from spacy_gdcws.data.features.words import FEATURES, TREEBANK_ROW, ParseBatch, WordFeaturizer, WordLexicon
from spacy_gdcws.decoding.dictionary_files import read_entries, tagged_lexicon
from spacy_gdcws.decoding.trees import best_relations, decode_trees
from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.parser import (
    NORMALIZER,
    ROOT_LABEL,
    ArcStates,
    ParseScores,
    arc_log_probs,
    arc_states,
    relation_input_gradient,
    size_outputs,
)
from spacy_gdcws.ml.precision import check_not_quantized
from spacy_gdcws.parse import persist
from spacy_gdcws.parse.loss import batch_loss
from spacy_gdcws.readers.corpus import PARSE_IN_KEY, TREEBANK_KEY
from spacy_gdcws.shipped import JIEBA_DICT

SPACE_POS, SPACE_TAG, SPACE_DEP = "SPACE", "_SP", "dep"
#: the root's relation on a doc, as spaCy's parsers write it (and zh_core_web_*): UD's `root` in CoNLL-U
ROOT = "ROOT"
#: CoNLL-U's empty field: a treebank without XPOS (UD Chinese HK, CFL) writes it in every row
MISSING = "_"


def parse_in_first(treebanks: List[str], parse_in: Optional[str]) -> List[str]:
    """The treebanks in the order of their rows: the one the parser parses in first (its row is
    `TREEBANK_ROW`, the row every sentence reads at prediction time), the others as the data
    named them. E141 where `parse_in` is none of them."""
    if parse_in is None:
        return treebanks
    if parse_in not in treebanks:
        raise ValueError(Errors.E141.format(parse_in=parse_in, options=treebanks))
    return [parse_in] + [t for t in treebanks if t != parse_in]


class DocParse(NamedTuple):
    """What `predict` gives for one doc, per token: the head's token index (a root its own), and the
    rows of its relation, UPOS and XPOS among the component's labels (-1: a whitespace token)."""

    heads: numpy.ndarray
    deps: numpy.ndarray
    upos: numpy.ndarray
    xpos: numpy.ndarray


class BiaffineParser(TrainablePipe):
    """Tags and parses the words of a doc (after `gdcws_segmenter`).

    split_at (List[str]): Words that end a sentence (line breaks always do).
    projective (bool): Decode projective trees (Eisner) or any tree (Chu-Liu-Edmonds).
    """

    def __init__(self, vocab: Vocab, model: Model, name: str = "parser", *, split_at: Sequence[str],
                 projective: bool, scorer: Optional[Callable] = None) -> None:
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        # saved with the component: what initialize read off the data (settings live in the config)
        self.cfg: Dict[str, Any] = {"labels": {"upos": [], "xpos": [], "deps": []}, "lexicon_tags": [],
                                    "treebanks": []}
        self.split_at = list(split_at)
        self.projective = bool(projective)
        self.lexicon = WordLexicon()
        self._featurizer: Optional[WordFeaturizer] = None

    @property
    def labels(self) -> Tuple[str, ...]:
        """The relation labels (the root's first: spaCy's ROOT)."""
        deps = self.cfg["labels"]["deps"]
        return (ROOT, *deps[1:]) if deps else ()

    @property
    def label_data(self) -> Dict[str, List[str]]:
        return self.cfg["labels"]

    def add_label(self, label: str) -> int:
        raise NotImplementedError(Errors.E116.format(name=self.name))

    @property
    def featurizer(self) -> WordFeaturizer:
        """The featurizer (built from the model's table sizes and the lexicon on first use)."""
        if self._featurizer is None:
            self._featurizer = WordFeaturizer(self.model.attrs["feature_rows"], self.model.attrs["char_rows"],
                                              self.lexicon, self.cfg["lexicon_tags"], self.split_at,
                                              normalizer=self.model.attrs.get(NORMALIZER))
        return self._featurizer

    def size_model(self) -> None:
        """Give the model the sizes of the labels in cfg (before initialize's first update, or before
        a saved model's weights load: `parse.persist`)."""
        labels = self.cfg["labels"]
        size_outputs(self.model, {"n_upos": len(labels["upos"]), "n_xpos": len(labels["xpos"]),
                                  "n_labels": len(labels["deps"])})

    def _rows(self) -> Dict[str, Dict[str, int]]:
        return {kind: {label: i for i, label in enumerate(labels)} for kind, labels in self.cfg["labels"].items()}

    def _treebank_rows(self, examples: Sequence[Example]) -> List[int]:
        """The treebank row of each example (its reference doc's `TREEBANK_KEY`; the first
        treebank's, `TREEBANK_ROW`, where it names none or one initialize did not see)."""
        rows = {name: TREEBANK_ROW + i for i, name in enumerate(self.cfg.get("treebanks", []))}
        return [rows.get(eg.reference.user_data.get(TREEBANK_KEY), TREEBANK_ROW) for eg in examples]

    # -- prediction ----------------------------------------------------------------------------

    def predict(self, docs: Iterable[Doc]) -> List[DocParse]:
        """Each doc's trees and labels: the model scores its sentences (sorted by length), the best
        tree of each is decoded, and the model gives the relations of the chosen arcs."""
        docs = list(docs)
        parses = [DocParse(numpy.arange(len(doc)), *(numpy.full(len(doc), -1) for _ in range(3))) for doc in docs]
        batches, space_heads = self.featurizer.batches(docs)
        for batch in batches:
            scores = self.model.predict(batch)
            decoded = decode_trees(arc_log_probs(scores.arcs), batch.lengths, self.projective)
            sentences = numpy.concatenate([numpy.full(len(h), b) for b, h in enumerate(decoded)])
            words = numpy.concatenate([numpy.arange(len(h)) for h in decoded])
            heads = numpy.concatenate(decoded)
            relations = best_relations(self.model.predict(arc_states(scores, sentences, words, heads)), heads == 0,
                                       ROOT_LABEL)
            upos, xpos = scores.upos.argmax(-1)[sentences, words], scores.xpos.argmax(-1)[sentences, words]
            n = 0
            for d, sent in batch.where:
                tokens = numpy.asarray(sent, dtype=numpy.int64)
                h = heads[n: n + len(sent)]
                parse = parses[d]
                parse.heads[tokens] = numpy.where(h == 0, tokens, tokens[numpy.maximum(h - 1, 0)])
                for column, values in ((parse.deps, relations), (parse.upos, upos), (parse.xpos, xpos)):
                    column[tokens] = values[n: n + len(sent)]
                n += len(sent)
        for parse, spaces in zip(parses, space_heads):
            for token, head in spaces.items():
                parse.heads[token] = head
        return parses

    def set_annotations(self, docs: Iterable[Doc], parses: Sequence[DocParse]) -> None:
        """Write UPOS, XPOS, heads and relations (and so the sentences) on each doc."""
        strings = self.vocab.strings
        labels = self.cfg["labels"]
        # a row past the labels (a model of v1 with more rows than labels) reads as the last label
        upos_ids, xpos_ids, dep_ids = (numpy.array([strings.add(x) for x in labels[kind]] or [strings.add(default)],
                                                   dtype=numpy.uint64)
                                       for kind, default in (("upos", ""), ("xpos", ""), ("deps", ROOT)))
        dep_ids[ROOT_LABEL] = strings.add(ROOT)  # spaCy's root label, also where the saved labels say `root`
        space = numpy.array([strings.add(SPACE_DEP), strings.add(SPACE_POS), strings.add(SPACE_TAG)], dtype=numpy.uint64)
        for doc, parse in zip(docs, parses):
            if not len(doc):
                continue
            is_space = parse.deps < 0
            arrays = numpy.zeros((len(doc), 4), dtype=numpy.uint64)
            arrays[:, 0] = (parse.heads - numpy.arange(len(doc))).astype(numpy.int64).view(numpy.uint64)
            for k, (rows, ids) in enumerate(((parse.deps, dep_ids), (parse.upos, upos_ids), (parse.xpos, xpos_ids)), 1):
                arrays[:, k] = numpy.where(is_space, space[k - 1], ids[numpy.clip(rows, 0, len(ids) - 1)])
            # a whitespace token alone in its doc is its own root, with the root's label
            arrays[:, 1] = numpy.where(is_space & (parse.heads == numpy.arange(len(doc))), dep_ids[0], arrays[:, 1])
            doc.from_array([HEAD, DEP, POS, TAG], arrays)

    # -- training ------------------------------------------------------------------------------

    def batch(self, examples: Sequence[Example]) -> ParseBatch:
        """The `ParseBatch` of the examples' predicted words, with their gold aligned to them and
        each sentence's treebank row: what `update` scores, and what `get_loss`'s scores score."""
        return self.featurizer.batch([eg.predicted for eg in examples], examples, self._rows(),
                                     self._treebank_rows(examples))

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd: Optional[Optimizer] = None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One step on the examples' predicted words, with their aligned gold: the model scores the
        batch and the relations of its gold arcs, and `parse.loss` gives the gradient of both."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "BiaffineParser.update")
        check_not_quantized(self.name, self.model)
        batch = self.batch(examples)
        if not batch.where or batch.gold is None:
            return losses
        scores, backprop_scores = self.model.begin_update(batch)
        loss, d_scores = batch_loss(scores, batch.gold, self.model.begin_update)
        backprop_scores(tuple(d_scores))
        if sgd is not None:
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def get_loss(self, examples: Iterable[Example], scores: ParseScores) -> Tuple[float, ParseScores]:
        """The loss of the examples' gold under `scores`, the model's scores of their batch
        (`self.model.predict(self.batch(examples))`), and the gradient of those scores (the
        relation projections' through the relation call), as `update` computes them
        (`parse.loss.batch_loss`). No parameter gradient is accumulated: nothing is trained."""
        examples = list(examples)
        validate_examples(examples, "BiaffineParser.get_loss")
        batch = self.batch(examples)
        if not batch.where or batch.gold is None:
            return 0.0, ParseScores(*(numpy.zeros_like(a) for a in scores))
        return batch_loss(scores, batch.gold, self._relation_call)

    def _relation_call(self, states: ArcStates) -> Tuple[numpy.ndarray, Callable[[numpy.ndarray], ArcStates]]:
        """The relation call of `get_loss`: the logits, and a backprop that accumulates nothing."""
        return self.model.predict(states), functools.partial(relation_input_gradient, self.model, states)

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   lexicon: Optional[Path] = None, parse_in: Optional[str] = None) -> None:
        """Read the labels and the treebanks off the training data (the model's output sizes:
        `size_model`) and the lexicon.

        lexicon (Optional[Path]): A word list with parts of speech (jieba's `word freq tag`); None:
            the shipped jieba dictionary.
        parse_in (Optional[str]): The treebank (a training doc's `user_data[TREEBANK_KEY]`) whose
            conventions the parser parses in, at prediction time: `[initialize.components.parser]`.
            None: the treebank the training data marks (`PARSE_IN_KEY`: `prepare` marks its corpus's
            `parse_in`), else the first one it names. E141 where no training doc names it.
        """
        validate_examples(get_examples(), "BiaffineParser.initialize")
        upos, xpos, deps = set(), set(), set()
        roots = set()
        treebanks: Dict[str, None] = {}
        marked: Dict[str, None] = {}
        for eg in get_examples():
            user_data = eg.reference.user_data
            if TREEBANK_KEY in user_data:
                treebanks.setdefault(user_data[TREEBANK_KEY], None)
                if user_data.get(PARSE_IN_KEY):
                    marked.setdefault(user_data[TREEBANK_KEY], None)
            for token in eg.reference:
                if token.pos_ and token.pos_ != MISSING:
                    upos.add(token.pos_)
                if token.tag_ and token.tag_ != MISSING:  # HK and CFL write "_": no XPOS, not a tag
                    xpos.add(token.tag_)
                if token.dep_:
                    (roots if token.head.i == token.i else deps).add(token.dep_)
        # the root's relation is spaCy's ROOT whatever the data calls it (UD's root: CoNLL-U writes that)
        deps -= roots | {ROOT}
        self.cfg["labels"] = {"upos": sorted(upos), "xpos": sorted(xpos), "deps": [ROOT] + sorted(deps)}
        rows = self.model.attrs["feature_rows"]
        if len(rows) == len(FEATURES) and TREEBANK_ROW + len(treebanks) > rows[-1]:
            raise ValueError(Errors.E138.format(n=len(treebanks), rows=rows[-1], need=TREEBANK_ROW + len(treebanks)))
        self.cfg["treebanks"] = parse_in_first(list(treebanks), parse_in if parse_in is not None else next(iter(marked), None))
        self.size_model()
        self.lexicon = WordLexicon(tagged_lexicon(read_entries(lexicon if lexicon is not None else JIEBA_DICT)))
        self.cfg["lexicon_tags"] = self.lexicon.tags()
        self._featurizer = None
        self.model.initialize()

    # -- serialization (one path for bytes and folders: `parse.persist`) -----------------------

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return persist.to_bytes(self, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "BiaffineParser":
        persist.from_bytes(self, bytes_data, exclude)
        self._featurizer = None
        return self

    def to_disk(self, path: Path, *, exclude: Iterable[str] = tuple()) -> None:
        persist.to_disk(self, Path(path), exclude)

    def from_disk(self, path: Path, *, exclude: Iterable[str] = tuple()) -> "BiaffineParser":
        persist.from_disk(self, Path(path), exclude)
        self._featurizer = None
        return self
