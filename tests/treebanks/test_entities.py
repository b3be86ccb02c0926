"""`treebanks.entities`: Universal NER's entities brought to another release's words of the same
sentences (ASCII punctuation, other spellings), and what does not come over marked missing."""
import spacy

from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.readers.corpus import sentence_to_doc
from spacy_gdcws.treebanks.entities import transfer_all, transfer_entities


def _uner(words, entities):
    return Sentence(words=words, line=1, meta={"entities": entities})


def test_entities_come_over_across_punctuation_width_and_spellings():
    source = _uner(["他", "在", "台北", "，", "读", "着", "卡达", "大学", "的", "书", "。"],
                   [(2, 3, "LOC"), (6, 8, "ORG")])
    target = Sentence(words=["他", "在", "台北", ",", "读", "著", "卡塔尔", "大学", "的", "书", "."], line=1)
    transfer_entities(target, source)
    # 台北 comes over; 卡达大学 has no one-to-one counterpart (卡塔尔: another length): missing there
    assert target.meta["entity_chars"] == [(2, 4, "LOC")]
    text = "".join(target.words)
    (a, b), = target.meta["entity_missing"]
    assert "卡塔尔" in text[a:b] and "台北" not in text[a:b]
    doc = sentence_to_doc(spacy.blank("zh").vocab, target)
    assert [(e.text, e.label_) for e in doc.ents] == [("台北", "LOC")]
    # the missing words are neither an entity nor outside one; every other word is outside
    assert [t.ent_iob_ for t in doc if t.text in ("卡塔尔", "大学")] == ["", ""]
    assert doc[0].ent_iob_ == "O" and doc.has_annotation("ENT_IOB")


def test_an_entity_whose_edge_falls_inside_a_word_is_missing():
    source = _uner(["上海", "交通", "大学"], [(0, 1, "LOC")])
    target = Sentence(words=["上海交通", "大学"], line=1)
    transfer_entities(target, source)
    assert target.meta["entity_chars"] == [] and target.meta["entity_missing"] == [(0, 2)]
    doc = sentence_to_doc(spacy.blank("zh").vocab, target)
    assert [t.ent_iob_ for t in doc] == ["", "O"]  # the word it falls in is missing, not outside


def test_files_of_different_lengths_are_a_coded_error():
    import pytest

    with pytest.raises(ValueError, match="E143"):
        transfer_all([Sentence(words=["a"], line=1)], [], "uner.iob2")
    came, lost = transfer_all([Sentence(words=["北京"], line=1)], [_uner(["北京"], [(0, 1, "LOC")])], "uner.iob2")
    assert (came, lost) == (1, 0)
