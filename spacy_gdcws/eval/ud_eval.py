"""Downstream evaluation aligned on characters, as in the CoNLL 2017/2018 UD
shared tasks: a predicted word counts only if its character span equals a gold
word's span, so segmentation errors cost tagging and parsing points.

- Words: precision, recall, F over matching spans.
- UPOS, XPOS: a matched word whose UPOS (XPOS: `tag_`) equals the gold one.
- UAS: a matched word whose head is the word with the gold head's span (or both
  are roots). LAS: UAS and the same relation as the CoNLL 2018 scorer counts it (its universal
  part: `nmod:tmod` is `nmod`); `las_subtypes`: UAS and the same full relation.
- Per relation (`relations`): LAS precision, recall and F of each gold universal relation.

Each is reported as precision, recall and F (on gold segmentation P = R = F:
the plain accuracies). `tests/eval/test_ud_eval.py` checks the figures against the official
CoNLL 2018 scorer (udtools' `udeval`, run as a tool).
"""
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from spacy_gdcws.errors import Errors
from spacy_gdcws.pipeline.names import find_segmenter
from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.readers.corpus import sentence_to_doc

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
        dep = token.dep_.lower()
        out[span] = (token.pos_, head, "root" if head is None else dep, token.tag_)
    return out


def prf(correct: int, n_pred: int, n_gold: int) -> Dict[str, float]:
    """Precision, recall and F from counts (0 where undefined)."""
    p = correct / n_pred if n_pred else 0.0
    r = correct / n_gold if n_gold else 0.0
    return {"p": p, "r": r, "f": 2 * p * r / (p + r) if p + r else 0.0}


def _universal(dep: str) -> str:
    return dep.split(":", 1)[0]


def score_ud(pairs: Iterable[Tuple[Doc, Doc]], relations: bool = False) -> Dict[str, Dict[str, Any]]:
    """Character-aligned scores of (predicted, gold) doc pairs.

    The texts of each pair must agree once whitespace is removed.
    relations (bool): Also the LAS of each gold universal relation (`relations`).
    RETURNS (Dict[str, Dict[str, Any]]): {"words"|"upos"|"xpos"|"uas"|"las"|"las_subtypes": {"p", "r", "f"}}
        and, with `relations`, {"relations": {relation: {"p", "r", "f", "gold"}}}.
    """
    n_pred = n_gold = 0
    correct = {"words": 0, "upos": 0, "xpos": 0, "uas": 0, "las": 0, "las_subtypes": 0}
    by_rel: Dict[str, Counter] = defaultdict(Counter)
    for i, (pred, gold) in enumerate(pairs):
        if "".join(pred.text.split()) != "".join(gold.text.split()):
            raise ValueError(Errors.E023.format(i=i))
        p, g = _analyses(pred), _analyses(gold)
        n_pred += len(p)
        n_gold += len(g)
        for _, _, gdep, _ in g.values():
            by_rel[_universal(gdep)]["gold"] += 1
        for span, (pos, head, dep, tag) in p.items():
            by_rel[_universal(dep)]["pred"] += 1
            if span not in g:
                continue
            gpos, ghead, gdep, gtag = g[span]
            correct["words"] += 1
            correct["upos"] += pos == gpos
            correct["xpos"] += tag == gtag
            if head == ghead:
                correct["uas"] += 1
                if _universal(dep) == _universal(gdep):
                    correct["las"] += 1
                    by_rel[_universal(gdep)]["correct"] += 1
                correct["las_subtypes"] += dep == gdep
    out: Dict[str, Dict[str, Any]] = {name: prf(n, n_pred, n_gold) for name, n in correct.items()}
    if relations:
        out["relations"] = {rel: {**prf(c["correct"], c["pred"], c["gold"]), "gold": c["gold"]}
                            for rel, c in sorted(by_rel.items()) if c["gold"] or c["pred"]}
    return out


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


def read_gold(path: Path, vocab: Vocab) -> Tuple[List[Doc], List[str]]:
    """Gold docs and the raw text of each: a CoNLL-U file's sentences with their own `# text` (the
    text the treebank was annotated on, spaces between Latin words included), or a DocBin's docs
    with their text."""
    if Path(path).suffix == ".conllu":
        sentences = list(read_conll(path))
        docs = [sentence_to_doc(vocab, s) for s in sentences]
        return docs, [s.meta.get("text", doc.text) for s, doc in zip(sentences, docs)]
    docs = list(DocBin().from_disk(path).get_docs(vocab))
    return docs, [doc.text for doc in docs]


def evaluate_pipeline(nlp: Language, golds: Sequence[Doc], segmenter: Optional[str] = None,
                      batch_size: int = 64, texts: Optional[Sequence[str]] = None,
                      predicted: Optional[List[Doc]] = None) -> Dict[str, Dict[str, Any]]:
    """Score a pipeline on gold docs twice: from raw text (the segmenter's
    words) and from the gold words (every component but the segmenter).
    segmenter (Optional[str]): Its name (default: the first gdcws_segmenter).
    texts (Optional[Sequence[str]]): The raw text of each gold doc (default: its text).
    predicted (Optional[List[Doc]]): A list the docs analysed from raw text are added to.

    RETURNS: {"predicted_segmentation": scores, "gold_segmentation": scores},
        each as returned by `score_ud` (with each relation's LAS), and where the pipeline sets
        sentences from its parse, {"sentences": {"p", "r", "f"}} (`score_sentences`: ten gold
        sentences to a text).
    """
    segmenter = find_segmenter(nlp, segmenter)
    raw = list(nlp.pipe(texts if texts is not None else (g.text for g in golds), batch_size=batch_size))
    if predicted is not None:
        predicted.extend(raw)
    with nlp.select_pipes(disable=[segmenter]):
        on_gold = list(nlp.pipe(gold_word_docs(golds, nlp), batch_size=batch_size))
    out: Dict[str, Dict[str, Any]] = {
        "predicted_segmentation": score_ud(zip(raw, golds), relations=True),
        "gold_segmentation": score_ud(zip(on_gold, golds), relations=True),
    }
    if raw and raw[0].has_annotation("DEP"):
        out["sentences"] = {"sentences": score_sentences(nlp, golds, batch_size=batch_size)}
    return out


def check_tree(sent: Sentence, path: Path) -> None:
    """A system sentence must be a tree, as the CoNLL 2018 scorer requires: one root (E132) and no
    cycle (E133; a word whose HEAD is its own ID too)."""
    if sent.heads is None:
        return
    if sent.meta.get("self_heads"):  # a word that heads itself: a cycle, not a second root
        raise ValueError(Errors.E133.format(path=path, line=sent.line))
    roots = sum(h == i for i, h in enumerate(sent.heads))
    if roots != 1:
        raise ValueError(Errors.E132.format(path=path, line=sent.line, n=roots))
    for start in range(len(sent.heads)):
        node, steps = start, 0
        while sent.heads[node] != node:
            node = sent.heads[node]
            steps += 1
            if steps > len(sent.heads):
                raise ValueError(Errors.E133.format(path=path, line=sent.line))


def _bare(words: Sequence[str]) -> str:
    """The words' characters, whitespace left out."""
    return "".join("".join(w.split()) for w in words)


def docs_from_sentences(vocab, sentences: Sequence[Sentence], golds: Sequence[Doc],
                        path: Path = Path("the system file")) -> List[Doc]:
    """A system's CoNLL-U sentences (`readers.conll.read_conll`, e.g. what `segment --format conllu`
    writes for one text a line) joined back into one doc per gold doc: consecutive sentences are
    taken until their characters (whitespace left out) are the gold doc's (E124 where they never
    are: the file is not the output for these texts; E134 for sentences left after the last gold
    doc). Each sentence must be a tree (`check_tree`)."""
    out: List[Doc] = []
    it = iter(sentences)
    for i, gold in enumerate(golds):
        target = "".join(gold.text.split())
        words: List[str] = []
        pos: List[str] = []
        tags: List[str] = []
        heads: List[int] = []
        deps: List[str] = []
        # a word may hold a space (a dictionary phrase, `New York`): characters are compared without whitespace
        while len(_bare(words)) < len(target):
            sent = next(it, None)
            if sent is None:
                raise ValueError(Errors.E124.format(i=i))
            check_tree(sent, path)
            offset = len(words)
            words += sent.words
            pos += sent.pos or ["_"] * len(sent.words)
            tags += sent.tags or ["_"] * len(sent.words)
            heads += [offset + h for h in (sent.heads or range(len(sent.words)))]
            deps += sent.deps or ["dep"] * len(sent.words)
        if _bare(words) != target:
            raise ValueError(Errors.E124.format(i=i))
        out.append(Doc(vocab, words=words, spaces=[False] * len(words), pos=pos, tags=tags, heads=heads,
                       deps=deps) if words else Doc(vocab, words=[]))
    extra = next(it, None)
    if extra is not None:
        raise ValueError(Errors.E134.format(path=path, line=extra.line, n=len(golds)))
    return out
