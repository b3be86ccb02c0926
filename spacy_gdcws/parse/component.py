"""`gdcws_parser`: UPOS, XPOS, heads and relations on the segmenter's words, from one biaffine
model (`spacy_gdcws.BiaffineParser.v1`), with a tree decoder (one root per sentence, every head in
its sentence), sentences split at line breaks and sentence-final words, whitespace tokens SPACE."""
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
import srsly
from spacy import util
from spacy.attrs import DEP, HEAD, POS, TAG
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.pipeline.dep_parser import parser_score
from spacy.scorer import Scorer
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Model, Optimizer

from spacy_gdcws.decoding.trees import decode_trees
from spacy_gdcws.errors import Errors
from spacy_gdcws.parse.features import Lexicon, ParseBatch, WordFeaturizer
from spacy_gdcws.parse.model import Predicted, label_rows
from spacy_gdcws.parse.persist import load_parser, save_parser
from spacy_gdcws.pipeline.lexicons import JIEBA_DICT

SPACE_POS, SPACE_TAG, SPACE_DEP = "SPACE", "_SP", "dep"
#: CoNLL-U's empty field: a treebank without XPOS (UD Chinese HK, CFL) writes it in every row
MISSING = "_"


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
        self.cfg: Dict[str, Any] = {"labels": {"upos": [], "xpos": [], "deps": []}, "lexicon_tags": []}
        self.split_at = list(split_at)
        self.projective = bool(projective)
        self.lexicon = Lexicon()
        self._featurizer: Optional[WordFeaturizer] = None

    # -- labels and features -------------------------------------------------------------------

    @property
    def labels(self) -> Tuple[str, ...]:
        """The relation labels (the root's first)."""
        return tuple(self.cfg["labels"]["deps"])

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
                                              self.lexicon, self.cfg["lexicon_tags"], self.split_at)
        return self._featurizer

    def _rows(self) -> Dict[str, Dict[str, int]]:
        return {kind: {label: i for i, label in enumerate(labels)} for kind, labels in self.cfg["labels"].items()}

    # -- prediction ----------------------------------------------------------------------------

    def predict(self, docs: Iterable[Doc]) -> Tuple[List[Tuple[ParseBatch, Predicted]], List[Dict[int, int]]]:
        """The model's scores for each batch of sentences (sorted by length), and where each
        doc's whitespace tokens hang."""
        batches, space_heads = self.featurizer.batches(list(docs))
        return [(batch, self.model.predict(batch)) for batch in batches], space_heads

    def set_annotations(self, docs: Iterable[Doc],
                        scores: Tuple[List[Tuple[ParseBatch, Predicted]], List[Dict[int, int]]]) -> None:
        """Write UPOS, XPOS, heads and relations (and so the sentences) on each doc."""
        docs = list(docs)
        predicted, space_heads = scores
        labels = self.cfg["labels"]
        strings = self.vocab.strings
        upos_ids = numpy.array([strings.add(p) for p in labels["upos"]] or [0], dtype=numpy.uint64)
        xpos_ids = numpy.array([strings.add(t) for t in labels["xpos"]] or [0], dtype=numpy.uint64)
        dep_ids = numpy.array([strings.add(d) for d in labels["deps"]] or [strings.add("ROOT")], dtype=numpy.uint64)
        space = (strings.add(SPACE_POS), strings.add(SPACE_TAG), strings.add(SPACE_DEP))
        arrays = [_blank(doc) for doc in docs]
        for batch, (arcs, lab_dep, lab_head, upos, xpos) in predicted:
            decoded = decode_trees(arcs, batch.lengths, self.projective)
            rows_b = numpy.concatenate([numpy.full(len(h), b) for b, h in enumerate(decoded)])
            rows_k = numpy.concatenate([numpy.arange(len(h)) for h in decoded])
            heads = numpy.concatenate(decoded)
            best = label_rows(self.model, lab_dep[rows_b, rows_k], lab_head[rows_b, heads], heads == 0)
            deps = dep_ids[numpy.minimum(best, len(dep_ids) - 1)]
            pos = upos_ids[numpy.minimum(upos[rows_b, rows_k], len(upos_ids) - 1)]
            tags = xpos_ids[numpy.minimum(xpos[rows_b, rows_k], len(xpos_ids) - 1)]
            n = 0
            for b, (d, sent) in enumerate(batch.where):
                tokens = numpy.asarray(sent, dtype=numpy.int64)
                h = heads[n: n + len(sent)]
                a = arrays[d]
                head_tokens = numpy.where(h == 0, tokens, tokens[numpy.maximum(h - 1, 0)])
                a[tokens, 0] = _offsets(head_tokens - tokens)
                a[tokens, 1] = deps[n: n + len(sent)]
                a[tokens, 2] = pos[n: n + len(sent)]
                a[tokens, 3] = tags[n: n + len(sent)]
                n += len(sent)
        for d, doc in enumerate(docs):
            a = arrays[d]
            if space_heads[d]:
                spaces = numpy.fromiter(space_heads[d].keys(), dtype=numpy.int64)
                heads_of = numpy.fromiter(space_heads[d].values(), dtype=numpy.int64)
                a[spaces, 0] = _offsets(heads_of - spaces)
                a[spaces, 1] = numpy.where(heads_of == spaces, dep_ids[0], numpy.uint64(space[2]))
                a[spaces, 2] = space[0]
                a[spaces, 3] = space[1]
            if not len(doc):
                continue
            doc.from_array([HEAD, DEP, POS, TAG], a)

    # -- training ------------------------------------------------------------------------------

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd: Optional[Optimizer] = None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One step on the examples' predicted words, with their aligned gold."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "BiaffineParser.update")
        batch = self.featurizer.batch([eg.predicted for eg in examples], examples, self._rows())
        if not batch.where:
            return losses
        loss, backprop = self.model.begin_update(batch)
        backprop(1.0)
        if sgd is not None:
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def get_loss(self, examples: Iterable[Example], scores: Any) -> Tuple[float, Any]:
        raise NotImplementedError(Errors.E117.format(name=self.name))

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   lexicon: Optional[Path] = None) -> None:
        """Read the labels off the training data and the lexicon (`lexicon`, default the shipped
        jieba dictionary with parts of speech)."""
        validate_examples(get_examples(), "BiaffineParser.initialize")
        upos, xpos, deps = set(), set(), set()
        roots = set()
        for eg in get_examples():
            for token in eg.reference:
                if token.pos_ and token.pos_ != MISSING:
                    upos.add(token.pos_)
                if token.tag_ and token.tag_ != MISSING:  # HK and CFL write "_": no XPOS, not a tag
                    xpos.add(token.tag_)
                if token.dep_:
                    (roots if token.head.i == token.i else deps).add(token.dep_)
        root = sorted(roots)[0] if roots else "ROOT"
        deps.discard(root)
        self.cfg["labels"] = {"upos": sorted(upos), "xpos": sorted(xpos), "deps": [root] + sorted(deps)}
        attrs = self.model.attrs
        for kind, n in (("upos", attrs["n_upos"]), ("xpos", attrs["n_xpos"]), ("deps", attrs["n_labels"])):
            if len(self.cfg["labels"][kind]) > n:
                raise ValueError(Errors.E118.format(kind=kind, n=len(self.cfg["labels"][kind]), rows=n))
        self.lexicon = Lexicon.read(lexicon if lexicon is not None else JIEBA_DICT)
        self.cfg["lexicon_tags"] = self.lexicon.tags()
        self._featurizer = None
        self.model.initialize()

    # -- serialization -------------------------------------------------------------------------

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        serialize = {
            "cfg": lambda: srsly.json_dumps(self.cfg),
            "lexicon": lambda: self.lexicon.to_lines().encode("utf8"),
            "model": lambda: self.model.to_bytes(),
            "vocab": lambda: self.vocab.to_bytes(exclude=exclude),
        }
        return util.to_bytes(serialize, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "BiaffineParser":
        deserialize = {
            "cfg": lambda b: self.cfg.update(srsly.json_loads(b)),
            "lexicon": lambda b: setattr(self, "lexicon", Lexicon.from_lines(b.decode("utf8"))),
            "model": lambda b: self.model.from_bytes(b),
            "vocab": lambda b: self.vocab.from_bytes(b, exclude=exclude),
        }
        util.from_bytes(bytes_data, deserialize, exclude)
        self._featurizer = None
        return self

    def to_disk(self, path: Path, *, exclude: Iterable[str] = tuple()) -> None:
        save_parser(self, util.ensure_path(path), exclude)

    def from_disk(self, path: Path, *, exclude: Iterable[str] = tuple()) -> "BiaffineParser":
        load_parser(self, util.ensure_path(path), exclude)
        self._featurizer = None
        return self


def score_parse(examples: Iterable[Example], **kwargs: Any) -> Dict[str, Any]:
    """UPOS (pos_acc), XPOS (tag_acc), UAS/LAS (dep_*, spaCy's: punctuation left out) and
    sentence boundaries (sents_*), by spaCy's own scorers."""
    examples = list(examples)
    scores = Scorer.score_token_attr(examples, "pos", **kwargs)
    # a treebank without XPOS (UD Chinese HK, CFL) writes "_": not a tag to score
    scores.update(Scorer.score_token_attr(examples, "tag", missing_values={0, None, "", MISSING}, **kwargs))
    scores.update(parser_score(examples, **kwargs))
    return scores


@registry.scorers("spacy_gdcws.parser_scorer.v1")
def make_parser_scorer() -> Callable[..., Dict[str, Any]]:
    """The scorer of `gdcws_parser` (`score_parse`)."""
    return score_parse


def _offsets(deltas: numpy.ndarray) -> numpy.ndarray:
    """Head offsets as `Doc.from_array` reads them (two's complement in uint64)."""
    return deltas.astype(numpy.int64).view(numpy.uint64)


def _blank(doc: Doc) -> numpy.ndarray:
    """HEAD (an offset, as uint64 wraps it), DEP, POS, TAG for each token: every token its own
    root until set."""
    return numpy.zeros((len(doc), 4), dtype=numpy.uint64)
