"""`readers.char_bmes`: character-per-line NER files with BMES entity tags (Resume NER's format)."""
import pytest
import spacy
from spacy.tokens import DocBin

from spacy_gdcws.readers.base import CorpusFormatError
from spacy_gdcws.readers.char_bmes import (
    EntitySentence,
    doc_to_sentence,
    read_char_bmes,
    sentence_tags,
    sentence_to_ner_doc,
    write_char_bmes,
)
from tests.util import NER_SAMPLE, corpus_path, ner_sample_docs

BAD_FILES = [
    # (content, code, line)
    ("高 B-NAME\n勇\n", "E071", 2),  # missing tag
    ("高 B-NAME\n勇 E-NAME extra\n", "E071", 2),
    ("高 I-NAME\n", "E072", 1),  # BIO's I- is not BMES
    ("高 X-NAME\n", "E072", 1),
    ("高 B-\n", "E072", 1),
    ("高 o\n", "E072", 1),
    ("男 O\n高 M-NAME\n", "E073", 2),  # M without B
    ("男 O\n高 E-NAME\n", "E073", 2),  # E without B
    ("高 B-NAME\n勇 E-ORG\n", "E073", 2),  # type changes inside an entity
    ("高 B-NAME\n勇 O\n", "E074", 2),  # B then O
    ("高 B-NAME\n勇 B-NAME\n", "E074", 2),
    ("高 B-NAME\n勇 S-NAME\n", "E074", 2),
    ("高 B-NAME\n\n勇 O\n", "E074", 3),  # the next sentence does not continue it
    ("高 B-NAME\n勇 M-NAME\n", "E074", 3),  # open at the end of the file
    ("高 B-NAME\n\n", "E074", 3),
]


def test_read_sample():
    sents = list(read_char_bmes(NER_SAMPLE))
    assert len(sents) == 12
    first = sents[0]
    assert first.text == "张伟，男，中国国籍，无境外居留权。"
    assert first.entities == [(0, 2, "NAME"), (5, 9, "CONT")]
    assert first.line == 1
    # a single-character entity (S-) and an entity cut by a sentence break
    assert sents[8].entities[0] == (0, 1, "NAME")
    assert (sents[9].cut_end, sents[10].cut_start) == (True, True)
    assert sents[9].text[slice(*sents[9].entities[-1][:2])] == "中国人民银行"
    assert sents[10].text[slice(*sents[10].entities[0][:2])] == "广州分行"


def test_round_trip_through_docbin():
    """file -> sentences -> DocBin -> docs -> sentences -> file gives the same bytes."""
    nlp = spacy.blank("zh")
    db = DocBin(store_user_data=True)
    for doc in ner_sample_docs(nlp.vocab):
        db.add(doc)
    docs = list(DocBin().from_bytes(db.to_bytes()).get_docs(nlp.vocab))
    assert write_char_bmes(doc_to_sentence(d) for d in docs) == NER_SAMPLE.read_text(encoding="utf8")


def test_round_trip_resume_ner():
    """The real corpus, all three files, byte-identical after conversion and back."""
    nlp = spacy.blank("zh")
    for split in ("train", "dev", "test"):
        path = corpus_path(f"resume_ner/{split}.char.bmes")
        sents = list(read_char_bmes(path))
        docs = [sentence_to_ner_doc(nlp.vocab, s) for s in sents]
        assert write_char_bmes(doc_to_sentence(d) for d in docs) == path.read_text(encoding="utf8")


def test_sentence_tags():
    sent = EntitySentence(chars=list("高勇男中国国籍"), entities=[(0, 2, "NAME"), (2, 3, "X"), (3, 7, "CONT")])
    assert sentence_tags(sent) == ["B-NAME", "E-NAME", "S-X", "B-CONT", "M-CONT", "M-CONT", "E-CONT"]
    cut = EntitySentence(chars=list("甲乙"), entities=[(0, 1, "ORG"), (1, 2, "ORG")], cut_start=True, cut_end=True)
    assert sentence_tags(cut) == ["E-ORG", "B-ORG"]


@pytest.mark.parametrize("content,code,line", BAD_FILES)
def test_malformed_lines(tmp_path, content, code, line):
    path = tmp_path / "bad.char.bmes"
    path.write_text(content, encoding="utf8")
    with pytest.raises(CorpusFormatError) as err:
        list(read_char_bmes(path))
    assert str(err.value).startswith(f"[{code}] {path}:{line}:")
