"""Downstream evaluation aligned on characters, as in the CoNLL 2017/2018 UD
shared tasks: a predicted word counts only if its character span equals a gold
word's span, so segmentation errors cost tagging and parsing points.

- Words: precision, recall, F over matching spans.
- UPOS, XPOS: a matched word whose UPOS (XPOS: `tag_`) equals the gold one.
- UAS: a matched word whose head is the word with the gold head's span (or both
  are roots). LAS: UAS and the same relation label.

Each is reported as precision, recall and F (on gold segmentation P = R = F:
the plain accuracies).
"""
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from spacy_gdcws.errors import Errors
from spacy_gdcws.pipeline.names import find_segmenter

Span = Tuple[int, int]


def _word_spans(doc: Doc) -> List[Optional[Span]]:
    """Character spans of the non-space tokens (None for whitespace tokens),
    counted over the text without whitespace, so that a predicted doc and a
    gold doc whose texts differ only in spacing still align."""
    spans: List[Optional[Span]] = []
    offset = 0
    for token in doc:
        n = sum(1 for c in token.text if not c.isspace())
        if token.is_space or n == 0:
            spans.append(None)
        else:
            spans.append((offset, offset + n))
        offset += n
    return spans


def _analyses(doc: Doc) -> Dict[Span, Tuple[str, Optional[Span], str, str]]:
    """span -> (UPOS, head span or None for a root, relation, XPOS)."""
    spans = _word_spans(doc)
    out: Dict[Span, Tuple[str, Optional[Span], str, str]] = {}
    for token, span in zip(doc, spans):
        if span is None:
            continue
        head = None if token.head.i == token.i else spans[token.head.i]
        out[span] = (token.pos_, head, token.dep_.lower(), token.tag_)
    return out


def prf(correct: int, n_pred: int, n_gold: int) -> Dict[str, float]:
    """Precision, recall and F from counts (0 where undefined)."""
    p = correct / n_pred if n_pred else 0.0
    r = correct / n_gold if n_gold else 0.0
    return {"p": p, "r": r, "f": 2 * p * r / (p + r) if p + r else 0.0}


def score_ud(pairs: Iterable[Tuple[Doc, Doc]]) -> Dict[str, Dict[str, float]]:
    """Character-aligned scores of (predicted, gold) doc pairs.

    The texts of each pair must agree once whitespace is removed.
    RETURNS (Dict[str, Dict[str, float]]): {"words"|"upos"|"xpos"|"uas"|"las": {"p", "r", "f"}}.
    """
    n_pred = n_gold = 0
    correct = {"words": 0, "upos": 0, "xpos": 0, "uas": 0, "las": 0}
    for i, (pred, gold) in enumerate(pairs):
        if "".join(pred.text.split()) != "".join(gold.text.split()):
            raise ValueError(Errors.E023.format(i=i))
        p, g = _analyses(pred), _analyses(gold)
        n_pred += len(p)
        n_gold += len(g)
        for span, (pos, head, dep, tag) in p.items():
            if span not in g:
                continue
            gpos, ghead, gdep, gtag = g[span]
            correct["words"] += 1
            correct["upos"] += pos == gpos
            correct["xpos"] += tag == gtag
            if head == ghead:
                correct["uas"] += 1
                correct["las"] += dep == gdep
    return {name: prf(n, n_pred, n_gold) for name, n in correct.items()}


def gold_word_docs(golds: Sequence[Doc], nlp: Language) -> List[Doc]:
    """Docs of the gold words with no annotation (input for gold segmentation)."""
    return [Doc(nlp.vocab, words=[t.text for t in g], spaces=[bool(t.whitespace_) for t in g]) for g in golds]


def _sentence_ends(doc: Doc) -> List[int]:
    """The end offsets of a doc's sentences, counted over its text without whitespace."""
    spans = _word_spans(doc)
    ends = []
    for sent in doc.sents:
        last = [spans[t.i] for t in sent if spans[t.i] is not None]
        if last:
            ends.append(last[-1][1])
    return ends


def score_sentences(nlp: Language, golds: Sequence[Doc], group: int = 10,
                    batch_size: int = 64) -> Dict[str, float]:
    """Sentence boundaries from raw text: every `group` consecutive gold sentences joined into one
    text (no separator, as running text comes), the pipeline's sentence ends against the gold ends
    (offsets over the text without whitespace). RETURNS {"p", "r", "f"}."""
    texts, gold_ends = [], []
    for start in range(0, len(golds), group):
        part = golds[start: start + group]
        texts.append("".join(g.text for g in part))
        ends, offset = [], 0
        for g in part:
            offset += sum(1 for c in g.text if not c.isspace())
            ends.append(offset)
        gold_ends.append(set(ends))
    n_pred = n_gold = correct = 0
    for doc, gold in zip(nlp.pipe(texts, batch_size=batch_size), gold_ends):
        pred = set(_sentence_ends(doc))
        n_pred += len(pred)
        n_gold += len(gold)
        correct += len(pred & gold)
    return prf(correct, n_pred, n_gold)


def evaluate_pipeline(nlp: Language, golds: Sequence[Doc], segmenter: Optional[str] = None,
                      batch_size: int = 64) -> Dict[str, Dict[str, Dict[str, float]]]:
    """Score a pipeline on gold docs twice: from raw text (the segmenter's
    words) and from the gold words (every component but the segmenter).
    segmenter (Optional[str]): Its name (default: the first gdcws_segmenter).

    RETURNS: {"predicted_segmentation": scores, "gold_segmentation": scores},
        each as returned by `score_ud`, and where the pipeline sets sentences from its parse,
        {"sentences": {"p", "r", "f"}} (`score_sentences`: ten gold sentences to a text).
    """
    segmenter = find_segmenter(nlp, segmenter)
    predicted = list(nlp.pipe((g.text for g in golds), batch_size=batch_size))
    with nlp.select_pipes(disable=[segmenter]):
        on_gold = list(nlp.pipe(gold_word_docs(golds, nlp), batch_size=batch_size))
    out = {
        "predicted_segmentation": score_ud(zip(predicted, golds)),
        "gold_segmentation": score_ud(zip(on_gold, golds)),
    }
    if predicted and predicted[0].has_annotation("DEP"):
        out["sentences"] = {"sentences": score_sentences(nlp, golds, batch_size=batch_size)}
    return out


def docs_from_sentences(vocab, sentences: Sequence, golds: Sequence[Doc]) -> List[Doc]:
    """A system's CoNLL-U sentences (`readers.conll.read_conll`, e.g. what `segment --format conllu`
    writes for one text a line) joined back into one doc per gold doc: consecutive sentences are
    taken until their characters (whitespace left out) are the gold doc's (E124 where they never
    are: the file is not the output for these texts)."""
    out: List[Doc] = []
    it = iter(sentences)
    for i, gold in enumerate(golds):
        target = "".join(gold.text.split())
        words: List[str] = []
        pos: List[str] = []
        tags: List[str] = []
        heads: List[int] = []
        deps: List[str] = []
        while len("".join(words)) < len(target):
            sent = next(it, None)
            if sent is None:
                raise ValueError(Errors.E124.format(i=i))
            offset = len(words)
            words += sent.words
            pos += sent.pos or ["_"] * len(sent.words)
            tags += sent.tags or ["_"] * len(sent.words)
            heads += [offset + h for h in (sent.heads or range(len(sent.words)))]
            deps += sent.deps or ["dep"] * len(sent.words)
        if "".join(words) != target:
            raise ValueError(Errors.E124.format(i=i))
        out.append(Doc(vocab, words=words, spaces=[False] * len(words), pos=pos, tags=tags, heads=heads,
                       deps=deps) if words else Doc(vocab, words=[]))
    return out
