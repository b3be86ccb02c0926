"""`gdcws_subwords` (#49): a search granularity, the dictionary words inside each word."""
import pickle

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_gdcws.pipeline.lexicons import shipped_general_words
from spacy_gdcws.pipeline.subwords import (
    add_search,
    inner_spans,
    search_words,
    subword_texts,
)
from tests.util import cli

PRC = "中华人民共和国"
JIEBA_SEARCH = ["中华", "华人", "人民", "共和", "共和国"]  # jieba.cut_for_search's sub-words of 中华人民共和国
# ours with the shipped lexicon: jieba's (it looks only at 2 and 3 characters) and 人民共和国
OURS = ["中华", "华人", "人民", "人民共和国", "共和", "共和国"]


def test_inner_words_are_the_shorter_dictionary_words_inside():
    from spacy.tokens import Doc

    from spacy_gdcws.data.normalize import get_normalizer
    from spacy_gdcws.decoding.user_dict import UserDictionary

    vocabulary = UserDictionary()
    vocabulary.add(["中华", "华人", "人民", "共和", "共和国", "中华人民共和国", "民共"[::-1]], "combine")
    nlp = spacy.blank("zh")

    def inner_words(word):
        doc = Doc(nlp.vocab, words=[word] if word else [], spaces=[False] if word else [])
        return inner_spans(doc, [vocabulary], get_normalizer(""))

    found = [PRC[s:e] for s, e in inner_words(PRC)]
    assert found == ["中华", "华人", "人民", "共和", "共和国"]  # by start, then length; not the word itself
    assert inner_words("人民") == [] and inner_words("") == []
    # matched as the decoder matches: on normalized characters, a traditional entry finds simplified text
    t2s = get_normalizer("t2s")
    traditional = UserDictionary(normalizer=t2s)
    traditional.add(["臺灣"], "combine")
    doc = Doc(nlp.vocab, words=["台湾大学"], spaces=[False])
    assert inner_spans(doc, [traditional], t2s) == [(0, 2)]


def test_the_shipped_lexicon_gives_jiebas_search_words(trained_copy):
    nlp = trained_copy
    assert set(JIEBA_SEARCH) <= shipped_general_words()
    nlp.get_pipe("gdcws_segmenter").add_words([PRC], mode="force")
    before = [t.text for t in nlp(f"我爱{PRC}。")]
    add_search(nlp)
    assert add_search(nlp) == "gdcws_subwords" and nlp.pipe_names.count("gdcws_subwords") == 1
    doc = nlp(f"我爱{PRC}。")
    assert [t.text for t in doc] == before and doc.text == f"我爱{PRC}。" and PRC in before
    assert subword_texts(doc) == OURS and set(JIEBA_SEARCH) <= set(OURS)
    assert search_words(doc) == [w for t in before for w in (OURS if t == PRC else []) + [t]]


def test_subwords_are_dictionary_words_inside_one_model_word(trained_copy, lines):
    """200 lines (SXU test where ../shared is beside the repo): every sub-word is a user-dictionary
    or lexicon word strictly inside one token; tokens and text as without the component."""
    nlp = trained_copy
    segmenter = nlp.get_pipe("gdcws_segmenter")
    segmenter.add_words(["人民代表大会", "北京大学生"], mode="combine")
    plain = [[t.text for t in doc] for doc in nlp.pipe(lines[:200])]
    add_search(nlp)
    vocabulary = shipped_general_words() | {"人民代表大会", "北京大学生"}
    n = 0
    for text, words, doc in zip(lines[:200], plain, nlp.pipe(lines[:200])):
        assert doc.text == text and [t.text for t in doc] == words
        for start, end in doc._.subwords:
            token = next(t for t in doc if t.idx <= start < t.idx + len(t))
            assert token.idx <= start and end <= token.idx + len(token) and end - start < len(token)
            assert doc.text[start:end] in vocabulary
            n += 1
    assert n > 0


def test_subwords_survive_docbin_and_pickle(trained_copy):
    nlp = trained_copy
    nlp.get_pipe("gdcws_segmenter").add_words([PRC], mode="force")
    add_search(nlp)
    doc = nlp(PRC)
    again = list(DocBin(docs=[doc], store_user_data=True).get_docs(nlp.vocab))[0]
    assert subword_texts(again) == subword_texts(pickle.loads(pickle.dumps(doc))) == OURS


def test_subwords_are_a_list_of_tuples_on_every_path(trained_copy):
    """#61 (9): a list of tuples in process, a tuple of tuples after DocBin, a list of lists after
    n_process=2 (where `(3, 5) in doc._.subwords` was False)."""
    nlp = trained_copy
    nlp.get_pipe("gdcws_segmenter").add_words([PRC], mode="force")
    add_search(nlp)
    texts = [PRC, f"我爱{PRC}。"]
    here = [doc._.subwords for doc in nlp.pipe(texts)]
    binned = [doc._.subwords for doc in DocBin(docs=list(nlp.pipe(texts)), store_user_data=True).get_docs(nlp.vocab)]
    forked = [doc._.subwords for doc in nlp.pipe(texts, n_process=2, batch_size=1)]
    for spans in (here, binned, forked):
        assert spans == here
        assert all(type(doc_spans) is list and all(type(s) is tuple for s in doc_spans) for doc_spans in spans)
    start, end = here[1][0]
    assert (start, end) in forked[1] and (start, end) in binned[1]


def test_segment_search_writes_subwords_before_each_word(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "model")
    (tmp_path / "words.txt").write_text(PRC + "\n", encoding="utf8")
    out = cli("segment", tmp_path / "model", "--user-dict", tmp_path / "words.txt", "--search", "-d", "/",
              stdin=f"{PRC}\n\n".encode("utf8"))
    assert out.split("\n")[:2] == ["/".join([*OURS, PRC]), ""]


@pytest.mark.parametrize("attr", ["search_terms"])
def test_the_extension_name_is_the_components_setting(trained_copy, attr):
    nlp = trained_copy
    nlp.get_pipe("gdcws_segmenter").add_words([PRC], mode="force")
    add_search(nlp, attr=attr)
    assert subword_texts(nlp(PRC), attr) == OURS
