"""`readers.iob2`: Universal NER's IOB2 files: words, `# text`, entities as conlleval reads them (word
and character spans), bad lines named by file and line."""
import pytest

from spacy_gdcws.readers import read_sentences
from spacy_gdcws.readers.base import CorpusFormatError
from spacy_gdcws.readers.iob2 import entity_chars, iob2_spans, iob2_tags, read_iob2, word_offsets
from tests.util import ROOT, corpus_path

FIXTURE = ROOT / "tests" / "fixtures" / "uner_invented.iob2"


def test_sentences_words_text_and_entities():
    sents = list(read_iob2(FIXTURE))
    assert [len(s.words) for s in sents] == [9, 10, 5]
    first, second, third = sents
    assert first.meta["text"] == "习近平在北京会见了联合国秘书长古特雷斯。" and first.meta["sent_id"] == "invented-0000-0001"
    assert first.meta["entities"] == [(0, 1, "PER"), (2, 3, "LOC"), (5, 6, "ORG"), (7, 8, "PER")]
    assert entity_chars(first) == [(0, 3, "PER"), (4, 6, "LOC"), (9, 12, "ORG"), (15, 19, "PER")]
    # the text's spaces between words are kept: character spans are the text's own
    assert second.meta["entities"] == [(3, 5, "LOC"), (6, 8, "LOC")]
    assert [second.meta["text"][a:b] for a, b, _ in entity_chars(second)] == ["New York", "中央 公园"]
    # an I- tag that begins a chunk: conlleval's (and seqeval's) reading, counted
    assert third.meta["entities"] == [(0, 3, "ORG")] and third.meta["repaired"] == 1
    assert list(read_sentences(FIXTURE))[2].meta["entities"] == [(0, 3, "ORG")]  # the suffix picks the reader


@pytest.mark.parametrize("tags,spans", [
    (["B-PER", "I-PER", "O", "B-LOC"], [(0, 2, "PER"), (3, 4, "LOC")]),
    (["B-PER", "B-PER"], [(0, 1, "PER"), (1, 2, "PER")]),
    (["B-PER", "I-LOC"], [(0, 1, "PER"), (1, 2, "LOC")]),
    (["O", "I-ORG", "I-ORG"], [(1, 3, "ORG")]),
    ([], []),
])
def test_chunks_are_read_as_conlleval_reads_them(tags, spans):
    assert iob2_spans(tags)[0] == spans
    assert iob2_spans(iob2_tags(len(tags), spans))[0] == spans


def test_words_are_found_in_their_text():
    assert word_offsets(["New", "York", "城"], "New York城") == [0, 4, 8]
    assert word_offsets(["ab", "c"], "abd") is None
    assert word_offsets(["a"], "a b") is None


@pytest.mark.parametrize("line,message", [("1\t北京", "field"), ("1\t北京\tB_LOC", "IOB2 tag"), ("1\t北京\tX", "IOB2 tag")])
def test_a_bad_line_names_its_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.iob2"
    path.write_text("# text = 我爱北京\n1\t我\tO\n" + line + "\n\n", encoding="utf8")
    with pytest.raises(CorpusFormatError, match=rf"\[E015\] .*bad.iob2:3: .*{message}"):
        list(read_iob2(path))


def test_a_text_that_does_not_spell_the_words_is_a_coded_error(tmp_path):
    path = tmp_path / "bad.iob2"
    path.write_text("# text = 我爱上海\n1\t我\tO\n2\t爱\tO\n3\t北京\tB-LOC\n\n", encoding="utf8")
    sent = next(read_iob2(path))
    with pytest.raises(ValueError, match=r"E142.*bad.iob2:1"):
        entity_chars(sent)


@pytest.mark.parametrize("name,n_sents,n_ents", [("zh_gsdsimp-ud-train", 3997, 6118), ("zh_gsdsimp-ud-dev", 500, 753),
                                                  ("zh_gsdsimp-ud-test", 500, 763), ("zh_gsd-ud-dev", 500, 810),
                                                  ("zh_gsd-ud-test", 500, 767)])
def test_the_shipped_files_read_whole_with_the_published_counts(name, n_sents, n_ents):
    """The counts of ../shared/corpora/README.md, on the copies shipped in assets/."""
    sents = list(read_iob2(ROOT / "assets" / "uner_zh" / f"{name}.iob2"))
    assert len(sents) == n_sents and sum(len(s.meta["entities"]) for s in sents) == n_ents
    assert all(entity_chars(s) is not None for s in sents) and not any(s.meta["repaired"] for s in sents)


def test_the_shipped_copies_are_the_corpora_byte_for_byte():
    shared = corpus_path("uner_zh/zh_gsdsimp-ud-test.iob2")
    for path in (ROOT / "assets" / "uner_zh").glob("*.iob2"):
        assert path.read_bytes() == (shared.parent / path.name).read_bytes(), path.name
