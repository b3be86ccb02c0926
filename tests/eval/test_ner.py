"""`eval.ner_eval`: entities scored on character offsets, reachability, and a small NER trained over a frozen segmenter (configs/ner_segmenter.cfg)."""
import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc

from spacy_gdcws.eval.ner_eval import (
    evaluate_ner,
    reachability,
    score_entities,
    unreachable,
)
from tests.util import ner_sample_docs


def test_score_entities():
    gold = [(0, 2, "NAME"), (5, 9, "CONT"), (10, 12, "ORG")]
    pred = [(0, 2, "NAME"), (5, 9, "ORG"), (12, 14, "ORG")]
    scores = score_entities([(pred, gold), ([], [(0, 1, "NAME")])])
    assert scores["overall"]["correct"] == 1
    assert (scores["overall"]["predicted"], scores["overall"]["gold"]) == (3, 4)
    assert scores["overall"]["p"] == pytest.approx(1 / 3)
    assert scores["overall"]["r"] == pytest.approx(1 / 4)
    assert scores["overall"]["f"] == pytest.approx(2 / 7)
    assert scores["per_type"]["NAME"]["r"] == pytest.approx(0.5)
    assert scores["per_type"]["CONT"]["p"] == 0.0 and scores["per_type"]["CONT"]["gold"] == 1
    assert scores["per_type"]["ORG"]["predicted"] == 2


def test_unreachable():
    vocab = spacy.blank("zh").vocab
    doc = Doc(vocab, words=["张伟男", "，", "中国", "国籍"], spaces=[False] * 4)
    entities = [(0, 2, "NAME"), (4, 8, "CONT"), (4, 6, "LOC"), (3, 4, "X")]
    assert unreachable(entities, doc) == [(0, 2, "NAME")]


def test_ner_on_frozen_segmenter(ner_pipeline):
    nlp, tmp = ner_pipeline
    assert nlp.pipe_names == ["segmenter", "tok2vec", "ner"]
    golds = ner_sample_docs(nlp.vocab)
    predicted = list(nlp.pipe(g.text for g in golds))
    for doc, gold in zip(predicted, golds):
        assert doc.text == gold.text
        # the segmenter's words, and entities made of whole words, placed on the text's characters
        assert len(doc) < len(gold)
        edges = {t.idx for t in doc} | {t.idx + len(t) for t in doc}
        for ent in doc.ents:
            assert ent.start_char in edges and ent.end_char in edges
            assert doc.text[ent.start_char:ent.end_char] == ent.text
    # the scores are those of exact (start, end, label) matches on characters
    scores = evaluate_ner(nlp, golds)
    gold_sets = [{(e.start_char, e.end_char, e.label_) for e in g.ents} for g in golds]
    pred_sets = [{(e.start_char, e.end_char, e.label_) for e in d.ents} for d in predicted]
    correct = sum(len(p & g) for p, g in zip(pred_sets, gold_sets))
    assert scores["overall"]["correct"] == correct > 0
    assert scores["overall"]["predicted"] == sum(map(len, pred_sets))
    assert scores["overall"]["gold"] == sum(map(len, gold_sets)) == 29
    lost = sum(len(unreachable(sorted(g), d)) for g, d in zip(gold_sets, predicted))
    assert scores["unreachable"]["unreachable"] == lost
    assert reachability(nlp, golds)["unreachable"] == lost
    # what spaCy's own scorer reports on the same docs agrees (its spans align on characters too)
    from spacy.training import Example

    spacy_f = nlp.evaluate([Example(nlp.make_doc(g.text), g) for g in golds])["ents_f"]
    assert spacy_f == pytest.approx(scores["overall"]["f"])


# a system's entities for tests/fixtures/uner_invented.iob2, by sentence text, as character spans: right,
# of the wrong type, cut short, spurious and missed ones
_SYSTEM = {
    "习近平在北京会见了联合国秘书长古特雷斯。": [("习近平", "PER"), ("北京", "LOC"), ("联合国", "LOC"), ("秘书长", "PER")],
    "他住在 New York 的 中央 公园 旁边。": [("New York", "LOC"), ("中央", "LOC")],
    "上海交通大学的学生": [("上海交通大学", "ORG")],
}


@Language.component("test_fixed_entities")
def _fixed_entities(doc: Doc) -> Doc:
    """The system's entities (`_SYSTEM`) on a doc of that text, whatever its tokens."""
    spans = []
    for surface, label in _SYSTEM.get(doc.text, []):
        start = doc.text.index(surface)
        spans.append(doc.char_span(start, start + len(surface), label=label, alignment_mode="strict"))
    doc.ents = [span for span in spans if span is not None]
    return doc


def _seqeval_chunks(tags):
    """seqeval's (and conlleval's) chunks of one IOB2 tag sequence, written out on their own: a chunk
    begins at B-X, or at I-X after O or another type, and ends before the next tag that does not continue it."""
    chunks, begin, kind = [], None, None
    for i, tag in enumerate(list(tags) + ["O"]):
        prefix, _, label = tag.partition("-")
        continues = prefix == "I" and label == kind
        if begin is not None and not continues:
            chunks.append((begin, i, kind))
            begin, kind = None, None
        if prefix == "B" or (prefix == "I" and not continues):
            begin, kind = i, label
    return chunks


def test_78_evaluate_iob2_counts_as_a_seqeval_span_count_on_a_hand_made_file():
    """#78: `evaluate_iob2` on a hand-made IOB2 file against a seqeval-style count of the same file:
    on gold words, exact word spans (the gold tags and the system's tags over the same words, chunked
    as seqeval chunks them); from raw text, exact character spans, which here are the same entities."""
    from spacy_gdcws.eval.ner_eval import evaluate_iob2
    from spacy_gdcws.readers import read_sentences
    from tests.util import ROOT

    sentences = list(read_sentences(ROOT / "tests" / "fixtures" / "uner_invented.iob2"))
    nlp = spacy.blank("zh")  # one token a character
    nlp.add_pipe("test_fixed_entities")
    report = evaluate_iob2(nlp, sentences)
    # the reference: gold and system tags over the gold words, chunked by seqeval's rule
    correct, predicted, gold = {}, {}, {}
    for sent in sentences:
        words = list(sent.words)
        text = sent.meta["text"]
        starts, at = [], 0
        for word in words:
            at = text.index(word, at)
            starts.append(at)
            at += len(word)
        system_tags = ["O"] * len(words)
        for surface, label in _SYSTEM[text]:
            begin = text.index(surface)
            inside = [k for k, s in enumerate(starts) if begin <= s < begin + len(surface)]
            system_tags[inside[0]] = f"B-{label}"
            for k in inside[1:]:
                system_tags[k] = f"I-{label}"
        gold_chunks = set(_seqeval_chunks(sent.meta["tags"]))
        system_chunks = set(_seqeval_chunks(system_tags))
        for counts, chunks in ((gold, gold_chunks), (predicted, system_chunks), (correct, gold_chunks & system_chunks)):
            for *_, label in chunks:
                counts[label] = counts.get(label, 0) + 1
    tp, n_pred, n_gold = sum(correct.values()), sum(predicted.values()), sum(gold.values())
    assert (tp, n_pred, n_gold) == (4, 7, 7)  # the file's 7 entities; 4 right
    for mode in ("gold_words", "raw_text"):
        overall = report[mode]["overall"]
        assert (overall["correct"], overall["predicted"], overall["gold"]) == (tp, n_pred, n_gold)
        assert overall["f"] == pytest.approx(2 * tp / (n_pred + n_gold))
        for label in gold:
            row = report[mode]["per_type"][label]
            assert (row["correct"], row["predicted"], row["gold"]) == (correct.get(label, 0), predicted.get(label, 0),
                                                                       gold[label])
