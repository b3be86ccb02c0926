"""`app.prepare`: a corpus read, its treebank each sentence's, the treebank the parser parses in
marked (a named setting: `CorpusSpec.parse_in`) and put first, written as the project's files."""
import pytest
import spacy
from spacy.tokens import DocBin

from spacy_gdcws.app.prepare import PARSE_IN, TREEBANK, mark_parse_in, read_corpus, write_corpus
from spacy_gdcws.readers.corpora import CorpusSpec
from spacy_gdcws.readers.corpus import PARSE_IN_KEY, TREEBANK_KEY
from tests.util import ROOT

DEV = ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"


def _conllu_part(start: int, n: int) -> str:
    blocks = DEV.read_text(encoding="utf8").strip("\n").split("\n\n")
    return "\n\n".join(blocks[start: start + n]) + "\n\n"


@pytest.fixture
def corpora(tmp_path):
    """A corpora folder of three small treebanks (20, 10 and 10 sentences of GSDSimp dev) and a test file."""
    for name, (start, n) in {"a.conllu": (0, 20), "b.conllu": (20, 10), "c.conllu": (30, 10),
                             "test.conllu": (40, 5)}.items():
        (tmp_path / name).write_text(_conllu_part(start, n), encoding="utf8")
    return tmp_path


def test_each_sentence_names_its_treebank_and_each_file_has_its_dev_part(corpora):
    spec = CorpusSpec("a.conllu", "test.conllu", "conll", more_train=("b.conllu", "c.conllu"))
    prepared = mark_parse_in(read_corpus(spec, corpora))
    assert [s.meta[TREEBANK] for s in prepared.train] == ["a.conllu"] * 18 + ["b.conllu"] * 9 + ["c.conllu"] * 9
    assert [s.meta[TREEBANK] for s in prepared.dev] == ["a.conllu"] * 2 + ["b.conllu", "c.conllu"]
    assert not any(PARSE_IN in s.meta for s in prepared.train)  # no parse_in: nothing marked, nothing moved
    assert prepared.segmenter_train == prepared.train and len(prepared.test) == 5


def test_the_treebank_parsed_in_is_marked_put_first_and_written(corpora, tmp_path):
    spec = CorpusSpec("a.conllu", "test.conllu", "conll", more_train=("b.conllu", "c.conllu"), parse_in="c.conllu")
    prepared = mark_parse_in(read_corpus(spec, corpora))
    assert [s.meta[TREEBANK] for s in prepared.train][:9] == ["c.conllu"] * 9
    assert [bool(s.meta.get(PARSE_IN)) for s in prepared.train] == [True] * 9 + [False] * 27
    assert prepared.segmenter_train == prepared.train
    lines = write_corpus(prepared, corpora, tmp_path / "out")
    assert lines[0] == "train: 36 sentences" and lines[1] == "dev: 4 sentences"
    nlp = spacy.blank("zh")
    docs = list(DocBin().from_disk(tmp_path / "out" / "train.spacy").get_docs(nlp.vocab))
    assert [d.user_data.get(TREEBANK_KEY) for d in docs[:10]] == ["c.conllu"] * 9 + ["a.conllu"]
    assert sum(bool(d.user_data.get(PARSE_IN_KEY)) for d in docs) == 9
    for name in ("dev.spacy", "segmenter_train.spacy", "segmenter_dev.spacy", "test.spacy", "test.conllu",
                 "words.txt", "test_gold.txt", "test_raw.txt"):
        assert (tmp_path / "out" / name).exists(), name


def test_a_missing_file_is_a_coded_error(corpora):
    spec = CorpusSpec("a.conllu", "test.conllu", "conll", more_train=("missing.conllu",))
    with pytest.raises(ValueError, match="E140"):
        read_corpus(spec, corpora)
