"""`readers.segmented` (`spacy_gdcws.SegmentedCorpus.v1`): the parser's training examples, the gold
docs of a DocBin with the frozen segmenter's words as predicted docs, segmented once."""
import pytest
from spacy.tokens import DocBin
from spacy.util import registry

from spacy_gdcws.readers.corpus import sentence_to_doc
from spacy_gdcws.readers.segmented import create_segmented_corpus


@pytest.fixture
def docbin(trained_nlp, ud_sentences, tmp_path):
    path = tmp_path / "train.spacy"
    DocBin(docs=[sentence_to_doc(trained_nlp.vocab, s) for s in ud_sentences[:10]]).to_disk(path)
    return path


def test_it_is_the_registered_reader():
    assert registry.readers.get("spacy_gdcws.SegmentedCorpus.v1") is create_segmented_corpus


def test_examples_pair_the_segmenters_words_with_the_gold(trained_nlp, docbin):
    reader = create_segmented_corpus(docbin, segmenter="gdcws_segmenter", limit=0, batch_size=4)
    examples = list(reader(trained_nlp))
    assert len(examples) == 10
    seg = trained_nlp.get_pipe("gdcws_segmenter")
    for eg in examples:
        words = [t.text for t in seg(trained_nlp.make_doc(eg.reference.text))]
        assert [t.text for t in eg.predicted] == words
        assert eg.predicted.text == eg.reference.text
        assert eg.reference.has_annotation("DEP")


def test_the_words_are_segmented_once_and_a_limit_applies(trained_nlp, docbin, monkeypatch):
    reader = create_segmented_corpus(docbin, segmenter="gdcws_segmenter", limit=3, batch_size=2)
    seg = trained_nlp.get_pipe("gdcws_segmenter")
    calls = []
    real = type(seg).pipe
    monkeypatch.setattr(type(seg), "pipe", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    first = [[t.text for t in eg.predicted] for eg in reader(trained_nlp)]
    second = [[t.text for t in eg.predicted] for eg in reader(trained_nlp)]
    assert len(first) == 3 and first == second
    assert len(calls) == 1  # the second epoch reuses the first pass's words


def test_a_missing_file_is_a_coded_error(trained_nlp, tmp_path):
    reader = create_segmented_corpus(tmp_path / "missing.spacy", segmenter="gdcws_segmenter", limit=0, batch_size=4)
    with pytest.raises(ValueError, match="E016"):
        list(reader(trained_nlp))
