"""Named entities scored on character offsets, and on an IOB2 file's gold words.

Pipelines that tokenize the same text differently (the segmenter's words, another
segmenter's words, one token per character) are compared on one gold standard: a
predicted entity counts if its (start, end, label) in characters equals a gold one.
An entity whose first or last character falls inside a token cannot be predicted by
a token-level NER at all; the share of such *unreachable* gold entities is what a
tokenization costs before any model is trained.
"""
import time
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.vocab import Vocab

from spacy_gdcws.errors import Errors
from spacy_gdcws.eval.ud_eval import prf
from spacy_gdcws.pipeline.names import segmenter_names
from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.readers.char_bmes import Entity
from spacy_gdcws.readers.iob2 import entity_chars, sentence_spaces


def doc_entities(doc: Doc) -> List[Entity]:
    """`doc.ents` as (start_char, end_char, label)."""
    return [(e.start_char, e.end_char, e.label_) for e in doc.ents]


def token_edges(doc: Doc) -> Set[int]:
    """The character offsets where a token starts or ends."""
    edges: Set[int] = set()
    for token in doc:
        edges.add(token.idx)
        edges.add(token.idx + len(token.text))
    return edges


def unreachable(entities: Iterable[Entity], doc: Doc) -> List[Entity]:
    """The entities that do not start and end on token boundaries of `doc`."""
    edges = token_edges(doc)
    return [e for e in entities if e[0] not in edges or e[1] not in edges]


def score_entities(pairs: Iterable[Tuple[Sequence[Entity], Sequence[Entity]]]) -> Dict[str, dict]:
    """Exact-match scores of (predicted, gold) entity lists, one pair per document.

    RETURNS: {"overall": {"p", "r", "f", "correct", "predicted", "gold"},
        "per_type": {label: the same}}.
    """
    correct: Counter = Counter()
    predicted: Counter = Counter()
    gold: Counter = Counter()
    for pred, ref in pairs:
        pred_set, ref_set = set(pred), set(ref)
        predicted.update(e[2] for e in pred_set)
        gold.update(e[2] for e in ref_set)
        correct.update(e[2] for e in pred_set & ref_set)

    def table(c: int, p: int, g: int) -> Dict[str, float]:
        return {**prf(c, p, g), "correct": c, "predicted": p, "gold": g}

    labels = sorted(set(gold) | set(predicted))
    return {
        "overall": table(sum(correct.values()), sum(predicted.values()), sum(gold.values())),
        "per_type": {label: table(correct[label], predicted[label], gold[label]) for label in labels},
    }


def unreachable_counts(docs: Iterable[Doc], golds: Iterable[Doc]) -> Dict[str, float]:
    """How many of the gold docs' entities the tokens of `docs` (the same texts) leave
    unreachable: {"gold", "unreachable", "share"}."""
    return lost_entities(docs, (doc_entities(gold) for gold in golds))


def lost_entities(docs: Iterable[Doc], golds: Iterable[List[Entity]]) -> Dict[str, float]:
    """How many of the gold entities (character spans, a list per doc) the tokens of `docs` leave
    unreachable: {"gold", "unreachable", "share"}."""
    n_gold = n_lost = 0
    for doc, entities in zip(docs, golds):
        n_gold += len(entities)
        n_lost += len(unreachable(entities, doc))
    return {"gold": n_gold, "unreachable": n_lost, "share": n_lost / n_gold if n_gold else 0.0}


def run_on_texts(nlp: Language, texts: Sequence[str], batch_size: int,
                 source: Union[str, Path]) -> Tuple[List[Doc], float]:
    """The pipeline's docs of the texts and the seconds `nlp.pipe` took; E075 (naming `source`) where a
    doc's text is not its input's."""
    start = time.perf_counter()
    predicted = list(nlp.pipe(texts, batch_size=batch_size))
    seconds = time.perf_counter() - start
    for i, (doc, text) in enumerate(zip(predicted, texts)):
        if doc.text != text:
            raise ValueError(Errors.E075.format(path=source, i=i))
    return predicted, seconds


def reachability(nlp: Language, golds: Sequence[Doc], batch_size: int = 64) -> Dict[str, float]:
    """`unreachable_counts` for the pipeline's tokenization (tokenizer and
    segmenters, nothing after them) of the gold docs' texts."""
    keep = set(segmenter_names(nlp))
    with nlp.select_pipes(disable=[n for n in nlp.pipe_names if n not in keep]):
        return unreachable_counts(nlp.pipe((g.text for g in golds), batch_size=batch_size), golds)


def evaluate_ner(nlp: Language, golds: Sequence[Doc], batch_size: int = 64,
                 source: Optional[Union[str, Path]] = None) -> Dict[str, object]:
    """Run `nlp` on the gold docs' texts and score its entities on character offsets.

    golds (Sequence[Doc]): Reference docs with `doc.ents` (any tokenization).
    source: The gold file, named in errors.
    RETURNS: `score_entities`'s tables, plus "unreachable" (gold entities off the
        predicted token boundaries: count and share), "reachable_recall" (recall
        over the reachable ones), "tokens" and "chars_per_second".
    """
    predicted, seconds = run_on_texts(nlp, [g.text for g in golds], batch_size, source or "<docs>")
    gold_entities = [doc_entities(gold) for gold in golds]
    scores = score_entities((doc_entities(doc), gold) for doc, gold in zip(predicted, gold_entities))
    lost = lost_entities(predicted, gold_entities)
    n_reachable = lost["gold"] - lost["unreachable"]
    n_chars = sum(len(g.text) for g in golds)
    return {
        **scores,
        "unreachable": lost,
        "reachable_recall": scores["overall"]["correct"] / n_reachable if n_reachable > 0 else 0.0,
        "tokens": sum(len(doc) for doc in predicted),
        "chars": n_chars,
        "chars_per_second": round(n_chars / seconds) if seconds > 0 else None,
    }


def gold_word_doc(vocab: Vocab, sent: Sentence) -> Doc:
    """A doc of a sentence's gold words whose text is its `# text` (a word followed by whitespace
    there has a trailing space; E142 where the text does not spell the words)."""
    return Doc(vocab, words=list(sent.words), spaces=sentence_spaces(sent))


def evaluate_iob2(nlp: Language, sentences: Sequence[Sentence], batch_size: int = 64) -> Dict[str, object]:
    """Score a pipeline's entities on an IOB2 file's sentences (Universal NER's) two ways.

    - `raw_text`: the pipeline on each sentence's `# text` (its own words); an entity counts when its
      character span and type equal a gold one (`score_entities`), with the gold entities that its
      words leave unreachable;
    - `gold_words`: the pipeline's components after its segmenters on the gold words (a doc of them,
      `gold_word_doc`); an entity counts when its word span and type equal a gold one: seqeval's
      exact span match, as Universal NER scores.

    Both give P, R and F micro-averaged ("overall") and per type, with the counts.
    """
    texts = [sent.meta["text"] for sent in sentences]
    golds = [entity_chars(sent) for sent in sentences]
    source = sentences[0].meta.get("source", "<sentences>") if sentences else "<sentences>"
    predicted, seconds = run_on_texts(nlp, texts, batch_size, source)
    raw = score_entities((doc_entities(doc), gold) for doc, gold in zip(predicted, golds))
    raw["unreachable"] = lost_entities(predicted, golds)
    n_gold = raw["unreachable"]["gold"]
    with nlp.select_pipes(disable=segmenter_names(nlp)):
        on_words = list(nlp.pipe((gold_word_doc(nlp.vocab, sent) for sent in sentences), batch_size=batch_size))
    words = score_entities(([(e.start, e.end, e.label_) for e in doc.ents], sent.meta["entities"])
                           for doc, sent in zip(on_words, sentences))
    n_chars = sum(len(text) for text in texts)
    return {"raw_text": raw, "gold_words": words, "sentences": len(sentences), "entities": n_gold,
            "chars": n_chars, "chars_per_second": round(n_chars / seconds) if seconds > 0 else None}
