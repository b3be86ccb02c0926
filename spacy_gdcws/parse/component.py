"""`gdcws_parser`: UPOS, XPOS, heads, relations and entities on the segmenter's words, from one
biaffine model (`spacy_gdcws.BiaffineParser.v3`), with a tree decoder (one root per sentence, every
head in its sentence) and an IOB2 decoder (entities within a sentence, never across a whitespace
token), sentences split at line breaks and sentence-final words, whitespace tokens SPACE.

The component coordinates, as the segmenter does: `data.features.words` turns docs into a
`ParseBatch`, the model scores it (`ml.parser`), `predict` decodes trees (`decoding.trees`) and asks
the model for the relations of the chosen arcs, `set_annotations` writes, `parse.loss` gives the
loss of an update and `parse.persist` saves and loads it (bytes and folders, one path).
"""
import functools
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

import numpy
from spacy.attrs import DEP, ENT_IOB, ENT_TYPE, HEAD, IS_SPACE, POS, TAG
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab
from thinc.api import Model, Optimizer

from spacy_gdcws.data.features.words import FEATURES, TREEBANK_ROW, ParseBatch, WordFeaturizer, WordLexicon
from spacy_gdcws.decoding.dictionary_files import read_entries, tagged_lexicon
from spacy_gdcws.decoding.entities import OUTSIDE, allowed_steps, begin_rows, best_tags, entity_tags, tag_spans
from spacy_gdcws.decoding.trees import best_relations, decode_trees
from spacy_gdcws.decoding.units import addresses
from spacy_gdcws.data.sentences import doc_texts
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
from spacy_gdcws.parse.loss import EntityChain, batch_loss
from spacy_gdcws.readers.corpus import PARSE_IN_KEY, TREEBANK_KEY
from spacy_gdcws.shipped import JIEBA_DICT

SPACE_POS, SPACE_TAG, SPACE_DEP = "SPACE", "_SP", "dep"
#: a token of control or format characters alone: no word (UPOS X, no XPOS, hanging as whitespace does)
BLANK_POS = "X"
#: the root's relation on a doc, as spaCy's parsers write it (and zh_core_web_*): UD's `root` in CoNLL-U
ROOT = "ROOT"
#: CoNLL-U's empty field: a treebank without XPOS (UD Chinese HK, CFL) writes it in every row
MISSING = "_"


#: spaCy's ENT_IOB values
IOB_IN, IOB_OUT, IOB_BEGIN = 1, 2, 3


def sentence_entities(rows: numpy.ndarray, tokens: numpy.ndarray, tags: Sequence[str]) -> List[Tuple[int, int, str]]:
    """A sentence's entities as token spans: the chunks of its words' IOB2 tag rows, each cut where
    two of its words are not next to each other in the doc (a whitespace token between them)."""
    out: List[Tuple[int, int, str]] = []
    for a, b, label in tag_spans(rows.tolist(), tags):
        start = a
        for k in range(a + 1, b + 1):
            if k == b or tokens[k] != tokens[k - 1] + 1:
                out.append((int(tokens[start]), int(tokens[k - 1]) + 1, label))
                start = k
    return out


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
    """What `predict` gives for one doc, per token: the head's token index (a root its own), the
    rows of its relation, UPOS and XPOS among the component's labels (-1: a whitespace token), and
    its entities (token spans with their type: none across a sentence's end or a whitespace token)."""

    heads: numpy.ndarray
    deps: numpy.ndarray
    upos: numpy.ndarray
    xpos: numpy.ndarray
    ents: List[Tuple[int, int, str]]


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
        self.cfg: Dict[str, Any] = {"labels": {"upos": [], "xpos": [], "deps": [], "ents": []}, "lexicon_tags": [],
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

    @property
    def entity_types(self) -> Tuple[str, ...]:
        """The entity types it finds (PER, LOC, ORG for the main job's); none without an entity tagger."""
        return tuple(sorted({tag[2:] for tag in self.cfg["labels"].get("ents", []) if tag != OUTSIDE}))

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
                                  "n_labels": len(labels["deps"]), "n_ents": len(labels.get("ents", []))})

    def _rows(self) -> Dict[str, Dict[str, int]]:
        return {kind: {label: i for i, label in enumerate(labels)} for kind, labels in self.cfg["labels"].items()}

    def _treebank_rows(self, examples: Sequence[Example]) -> List[int]:
        """The treebank row of each example (its reference doc's `TREEBANK_KEY`; the first
        treebank's, `TREEBANK_ROW`, where it names none or one initialize did not see)."""
        rows = {name: TREEBANK_ROW + i for i, name in enumerate(self.cfg.get("treebanks", []))}
        return [rows.get(eg.reference.user_data.get(TREEBANK_KEY), TREEBANK_ROW) for eg in examples]

    # -- prediction ----------------------------------------------------------------------------

    def predict(self, docs: Iterable[Doc]) -> List[DocParse]:
        """Each doc's trees, labels and entities: the model scores its sentences (sorted by length),
        the best tree of each is decoded, the model gives the relations of the chosen arcs, and the
        best IOB2 tag sequence of each sentence gives its entities."""
        docs = list(docs)
        parses = [DocParse(numpy.arange(len(doc)), *(numpy.full(len(doc), -1) for _ in range(3)), []) for doc in docs]
        tags = self.cfg["labels"].get("ents", [])
        steps = allowed_steps(tags) if tags else None
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
            ents = None
            if steps is not None and scores.ents.shape[-1]:
                ents = best_tags(scores.ents, batch.lengths, *steps, transitions=scores.ent_steps)
            n = 0
            for b, (d, sent) in enumerate(batch.where):
                tokens = numpy.asarray(sent, dtype=numpy.int64)
                h = heads[n: n + len(sent)]
                parse = parses[d]
                parse.heads[tokens] = numpy.where(h == 0, tokens, tokens[numpy.maximum(h - 1, 0)])
                for column, values in ((parse.deps, relations), (parse.upos, upos), (parse.xpos, xpos)):
                    column[tokens] = values[n: n + len(sent)]
                if ents is not None:
                    parse.ents.extend(sentence_entities(ents[b, : len(sent)], tokens, tags))
                n += len(sent)
        for parse, spaces in zip(parses, space_heads):
            for token, head in spaces.items():
                parse.heads[token] = head
        self._tag_addresses(docs, parses)
        return parses

    def _tag_addresses(self, docs: Sequence[Doc], parses: Sequence[DocParse]) -> None:
        """A word that is an address whole (a URL, an e-mail address, a file path: `decoding.units`)
        is UPOS X, XPOS ADD, as GSD tags them, whatever its context (where the labels have them)."""
        labels = self.cfg["labels"]
        x_row = labels["upos"].index("X") if "X" in labels["upos"] else -1
        add_row = labels["xpos"].index("ADD") if "ADD" in labels["xpos"] else -1
        for doc, parse in zip(docs, parses):
            for i in addresses(doc_texts(doc)):
                if parse.deps[i] >= 0:
                    parse.upos[i] = x_row if x_row >= 0 else parse.upos[i]
                    parse.xpos[i] = add_row if add_row >= 0 else parse.xpos[i]

    def set_annotations(self, docs: Iterable[Doc], parses: Sequence[DocParse]) -> None:
        """Write UPOS, XPOS, heads and relations (and so the sentences) on each doc, and, where the
        model tags entities, its entities (every other token outside one)."""
        strings = self.vocab.strings
        labels = self.cfg["labels"]
        has_ents = bool(labels.get("ents"))
        # a row past the labels (a model of v1 with more rows than labels) reads as the last label
        upos_ids, xpos_ids, dep_ids = (numpy.array([strings.add(x) for x in labels[kind]] or [strings.add(default)],
                                                   dtype=numpy.uint64)
                                       for kind, default in (("upos", ""), ("xpos", ""), ("deps", ROOT)))
        dep_ids[ROOT_LABEL] = strings.add(ROOT)  # spaCy's root label, also where the saved labels say `root`
        space = numpy.array([strings.add(SPACE_DEP), strings.add(SPACE_POS), strings.add(SPACE_TAG)], dtype=numpy.uint64)
        # a token of control or format characters alone is no word either (`data.sentences.is_blank`)
        blank = numpy.array([strings.add(SPACE_DEP), strings.add(BLANK_POS), strings.add(MISSING)], dtype=numpy.uint64)
        attrs = [HEAD, DEP, POS, TAG] + ([ENT_IOB, ENT_TYPE] if has_ents else [])
        for doc, parse in zip(docs, parses):
            if not len(doc):
                continue
            no_word = parse.deps < 0
            is_space = doc.to_array(IS_SPACE).astype(bool)
            arrays = numpy.zeros((len(doc), len(attrs)), dtype=numpy.uint64)
            arrays[:, 0] = (parse.heads - numpy.arange(len(doc))).astype(numpy.int64).view(numpy.uint64)
            for k, (rows, ids) in enumerate(((parse.deps, dep_ids), (parse.upos, upos_ids), (parse.xpos, xpos_ids)), 1):
                arrays[:, k] = numpy.where(no_word, numpy.where(is_space, space[k - 1], blank[k - 1]),
                                           ids[numpy.clip(rows, 0, len(ids) - 1)])
            if has_ents:
                arrays[:, 4] = IOB_OUT  # spaCy's ENT_IOB: 1 inside, 2 outside, 3 begins
                for start, end, label in parse.ents:
                    arrays[start, 4], arrays[start + 1: end, 4] = IOB_BEGIN, IOB_IN
                    arrays[start:end, 5] = strings.add(label)
            doc.from_array(attrs, arrays)

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
        loss, d_scores = batch_loss(scores, batch.gold, self.model.begin_update, self._chain(batch))
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
        return batch_loss(scores, batch.gold, self._relation_call, self._chain(batch))

    def _chain(self, batch: ParseBatch) -> Optional[EntityChain]:
        """What the entity CRF's loss needs besides the scores (None without entity tags)."""
        tags = self.cfg["labels"].get("ents", [])
        return EntityChain(batch.lengths, *allowed_steps(tags), begin_rows(tags)) if tags else None

    def _relation_call(self, states: ArcStates) -> Tuple[numpy.ndarray, Callable[[numpy.ndarray], ArcStates]]:
        """The relation call of `get_loss`: the logits, and a backprop that accumulates nothing."""
        return self.model.predict(states), functools.partial(relation_input_gradient, self.model, states)

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   lexicon: Optional[Path] = None, parse_in: Optional[str] = None) -> None:
        """Read the labels, the entity types and the treebanks off the training data (the model's
        output sizes: `size_model`; entity tags only where the data has entity annotation and the
        model an entity tagger) and the lexicon.

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
        types: set = set()
        for eg in get_examples():
            types.update(ent.label_ for ent in eg.reference.ents)
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
        tags_entities = self.model.attrs["net_args"].get("entity_width", 0) > 0
        self.cfg["labels"] = {"upos": sorted(upos), "xpos": sorted(xpos), "deps": [ROOT] + sorted(deps),
                              "ents": entity_tags(types) if types and tags_entities else []}
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
