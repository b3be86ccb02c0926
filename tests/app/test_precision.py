"""`app.precision`: torch threads for segmenting, and the precision of a loaded pipeline's segmenters (int8 predicts only)."""
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
