"""`app.precision`: torch threads for segmenting, and the precision of a loaded pipeline's segmenters and parsers (int8 predicts only)."""
import pytest

from tests.util import make_examples


def test_set_threads_default_divides_the_cores_among_processes():
    import os

    import torch

    from spacy_gdcws.app.precision import set_threads

    before = torch.get_num_threads()
    try:
        cores = len(os.sched_getaffinity(0))
        assert set_threads(None, 1) == cores == torch.get_num_threads()
        assert set_threads(None, 2 * cores) == 1
        assert set_threads(3, 1) == 3
    finally:
        torch.set_num_threads(before)


def words(doc):
    return [t.text for t in doc if not t.is_space]


def test_int8_quantized_segmenter_predicts_but_cannot_train_or_save(trained_copy, sxu_sentences, tmp_path):
    from spacy_gdcws.app.precision import quantize_segmenter
    from spacy_gdcws.pipeline.words import doc_words

    nlp = trained_copy
    texts = ["".join(s.words) for s in sxu_sentences[:10]]
    before = [doc_words(d) for d in nlp.pipe(texts)]
    quantize_segmenter(nlp)
    after = [doc_words(d) for d in nlp.pipe(texts)]
    assert ["".join(w) for w in after] == texts
    # int8 weights move a few logits, not the segmentation as a whole
    same = sum(a == b for a, b in zip(before, after))
    assert same >= 7
    with pytest.raises(ValueError, match="E025"):
        nlp.update(make_examples(nlp, sxu_sentences[:2]))
    with pytest.raises(ValueError, match="E025"):
        nlp.to_disk(tmp_path / "q")


def _analysis(nlp, texts):
    from tests.parse.test_component import _analysis as doc_analysis

    return [doc_analysis(doc) for doc in nlp.pipe(texts)]


def test_an_int8_parser_parses_like_the_float_one_and_cannot_train_or_save(tagged_model, ud_sentences, tmp_path):
    """#68: `set_precision(nlp, "int8", components=["parser"])` quantises the parser's Linear and
    LSTM layers (the segmenter stays as saved): the same words, trees still trees, nearly the same
    analyses; it predicts only (E025) until it is float again, which gives the float analyses back."""
    import spacy
    from spacy.training import Example

    from spacy_gdcws.app.precision import precision_components, set_precision
    from spacy_gdcws.ml.shims import torch_shims

    nlp = spacy.load(tagged_model)
    assert precision_components(nlp) == ["segmenter", "parser"]
    texts = ["".join(s.words) for s in ud_sentences[:20]] + ["", " ", "我爱北京天安门。\n今天天气很好"]
    before = _analysis(nlp, texts)
    set_precision(nlp, "int8", components=["parser"])
    net = torch_shims(nlp.get_pipe("parser").model)[0].net
    assert {type(m).__name__ for m in net.modules() if "quantized" in type(m).__module__} >= {"LSTM", "Linear"}
    assert not any("quantized" in type(m).__module__ for s in torch_shims(nlp.get_pipe("segmenter").model)
                   for m in s.net.modules())
    after = _analysis(nlp, texts)
    assert [[a[0] for a in doc] for doc in after] == [[b[0] for b in doc] for doc in before]
    for doc in nlp.pipe(texts):
        for sent in doc.sents:  # one root word, every head inside the sentence (decoded as before)
            words = [t for t in sent if not t.is_space]
            assert sum(t.head.i == t.i for t in words) == (1 if words else 0)
            assert all(sent.start <= t.head.i < sent.end for t in sent)
    tokens = [(a, b) for x, y in zip(after, before) for a, b in zip(x, y)]
    assert sum(a == b for a, b in tokens) >= 0.9 * len(tokens)
    doc = nlp.make_doc(texts[0])
    with pytest.raises(ValueError, match="E025"):
        nlp.get_pipe("parser").update([Example(doc, doc)])
    with pytest.raises(ValueError, match="E025"):
        nlp.to_disk(tmp_path / "q")
    with pytest.raises(ValueError, match="E025"):
        nlp.get_pipe("parser").to_bytes()
    set_precision(nlp, "saved")
    assert _analysis(nlp, texts) == before
    nlp.to_disk(tmp_path / "float")


def test_a_precision_for_a_component_that_has_none_is_a_coded_error(tagged_model):
    import spacy

    from spacy_gdcws.app.precision import set_precision

    nlp = spacy.load(tagged_model)
    with pytest.raises(ValueError, match="E137"):
        set_precision(nlp, "int8", components=["tagger"])
