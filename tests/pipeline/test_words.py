"""`pipeline.words`: word docs cut from a whole batch carry the input's data; batches decode as their docs alone."""
import pytest
import spacy
from spacy.tokens import Doc

from tests.util import ODD_TEXTS, ROOT


def test_pipe_returns_new_docs_with_user_data_cats_and_spans():
    if not Doc.has_extension("source"):
        Doc.set_extension("source", default=None)
    nlp = spacy.load(ROOT / "tests" / "fixtures" / "legacy_gd_v2")
    doc = nlp.make_doc("我爱北京天安门。")
    doc._.source = "web"
    doc.cats = {"news": 1.0}
    doc.spans["places"] = [doc.char_span(2, 4, label="LOC")]
    out = nlp.get_pipe("gdcws_segmenter")(doc)
    assert out.text == "我爱北京天安门。"
    assert out._.source == "web" and out.cats == {"news": 1.0}
    assert [(s.text, s.label_) for s in out.spans["places"]] == [("北京", "LOC")]
    assert [d.text for d in nlp.pipe(ODD_TEXTS)] == ODD_TEXTS


@pytest.mark.parametrize("priors", [0.0, 1.0, 3.0])
@pytest.mark.parametrize("user_dict", [False, True])
def test_batch_decoding_equals_each_doc_alone(texts, priors, user_dict):
    """Decoding lays a batch's docs end to end (`doc_arrays.batch_arrays`): gap
    rules, priors and the Viterbi chain must give every doc the words it gets
    alone, whatever its neighbours (line breaks, whitespace, units at the edges)."""
    nlp = spacy.load(ROOT / "tests" / "fixtures" / "legacy_gd_v2")
    seg = nlp.get_pipe(nlp.pipe_names[0])
    seg.transition_weight = seg.tag_prior_weight = seg.bigram_prior_weight = priors
    if user_dict:
        seg.add_words(["北京大学", "天气", "ab"], mode="force")
        seg.add_words(["中国", "今天"], mode="prefer")
    sample = texts[:200] + ODD_TEXTS + ["http://a.cn/x", "3.5%北京", "北京3.5%", "e\u0301", "\u0301开头", "结尾\u200d"]
    docs = [nlp.make_doc(t) for t in sample]
    scores = seg.scores(docs)
    together = seg.decode(docs, scores)
    for doc, score, bounds in zip(docs, scores, together):
        alone = seg.decode([doc], [score])[0]
        assert (bounds is None) == (alone is None), doc.text
        if bounds is not None:
            assert bounds.tolist() == alone.tolist(), doc.text


def test_a_batch_merged_in_place_is_read_again():
    """Docs merged into words in place are read again from their tokens:
    predicting on them again reports the words (E014)."""
    nlp = spacy.load(ROOT / "tests" / "fixtures" / "legacy_gd_v2")
    seg = nlp.get_pipe("gdcws_segmenter")
    docs = [nlp.make_doc(t) for t in ["我爱北京天安门。", "今天天气很好"]]
    seg.set_annotations(docs, seg.predict(docs))
    assert any(len(t) > 1 for d in docs for t in d)
    with pytest.raises(ValueError, match="E014"):
        seg.predict(docs)
