"""`data.tokenizer`: spaCy's char tokens in linear time, as `CharDoc`s; text spaCy cannot store is a coded error."""
import random

import pytest
import spacy

from spacy_gdcws.data.tokenizer import ChineseCharTokenizer, char_words_and_spaces
from tests.util import LEGACY_FIXTURE


def test_a_lone_surrogate_is_a_coded_error():
    nlp = spacy.load(LEGACY_FIXTURE)
    with pytest.raises(ValueError, match="E066.*U\\+D800.*character 3"):
        nlp("北京a\ud800b")


def spacy_char_tokens(text):
    doc = spacy.blank("zh")(text)
    return [t.text for t in doc], [bool(t.whitespace_) for t in doc]


@pytest.mark.parametrize("text", ["", " ", "  ", "\n", "我爱北京", " 我", "我 ", "我  爱", "我 \n 爱", "a b  c\t\td",
                                  "我\u3000爱", "\u3000 我", "末尾 ", "末尾  ", "x\r\ny", "😀 表情"])
def test_same_tokens_as_spacy(text):
    assert char_words_and_spaces(text) == spacy_char_tokens(text)


def test_same_tokens_as_spacy_on_random_texts():
    rng = random.Random(0)
    alphabet = ["我", "爱", "a", "1", "，", " ", " ", "\n", "\t", "\u3000", "\r"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert char_words_and_spaces(text) == spacy_char_tokens(text), repr(text)


def test_registered_tokenizer_keeps_text_and_round_trips(tmp_path):
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})
    assert isinstance(nlp.tokenizer, ChineseCharTokenizer)
    text = "我爱 北京\n\n天安门。"
    assert nlp(text).text == text
    nlp.to_disk(tmp_path / "nlp")
    assert [t.text for t in spacy.load(tmp_path / "nlp")(text)] == [t.text for t in nlp(text)]


def test_docs_built_from_ids_survive_a_memory_zone():
    """The tokenizer builds docs from the ORTH ids of the characters it met;
    strings a memory zone added are gone after it, and docs are still right."""
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})
    with nlp.memory_zone():
        assert [t.text for t in nlp("𠀀新字 ab")] == ["𠀀", "新", "字", "a", "b"]
    for _ in range(2):
        doc = nlp("𠀀新字 ab")
        assert [t.text for t in doc] == ["𠀀", "新", "字", "a", "b"] and doc.text == "𠀀新字 ab"
