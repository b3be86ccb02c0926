"""Where the parser's sentences end, and where whitespace tokens hang."""
import spacy
from spacy.tokens import Doc

from spacy_gdcws.data.sentences import split_sentences


def _doc(words, spaces=None):
    nlp = spacy.blank("zh")
    return Doc(nlp.vocab, words=words, spaces=spaces or [False] * len(words))


def test_a_line_break_always_ends_a_sentence():
    doc = _doc(["我", "爱", "\n", "他", "笑"])
    split = split_sentences(doc, frozenset())
    assert split.sentences == [[0, 1], [3, 4]]
    assert split.space_heads == {2: 1}


def test_sentence_final_words_end_a_sentence_with_their_closing_quotes():
    doc = _doc(["他", "说", "“", "好", "。", "”", "我", "笑", "！"])
    split = split_sentences(doc)
    assert split.sentences == [[0, 1, 2, 3, 4, 5], [6, 7, 8]]
    assert split_sentences(doc, frozenset()).sentences == [list(range(9))]


def test_leading_whitespace_hangs_on_the_first_word_and_a_blank_doc_on_its_first_token():
    doc = _doc(["\n", "我", " ", "爱"])
    split = split_sentences(doc)
    assert split.space_heads == {0: 1, 2: 1}
    # #79: a doc without a word is one sentence: its first token heads the others
    blank = _doc(["\n", " ", "\x07"])
    split = split_sentences(blank)
    assert split.sentences == [] and split.space_heads == {0: 0, 1: 0, 2: 0}
    # control characters are no word either, wherever they stand
    assert split_sentences(_doc(["我", "\x07", "爱"])).space_heads == {1: 0}


def test_a_run_without_sentence_ends_is_cut_at_a_clause_mark_or_at_the_limit():
    words = (["我"] * 6 + ["，"] + ["他"] * 5) * 3
    doc = _doc(words)
    sentences = split_sentences(doc, max_words=10).sentences
    assert [len(s) for s in sentences] == [7, 10, 10, 9]  # the mark after 我我我我我我 only in the first half
    assert sum(sentences, []) == list(range(len(words)))
    assert all(len(s) <= 10 for s in split_sentences(_doc(["我"] * 95), max_words=10).sentences)
