"""`readers`: SIGHAN, CoNLL-U/X and word_POS files, their quirks, bad lines named by file and line, the dev split."""
import pytest
import spacy
from spacy.tokens import DocBin

from spacy_gdcws.readers import read_sentences, sentence_to_doc, split_dev
from spacy_gdcws.readers.base import CorpusFormatError
from tests.util import corpus_path

# sentences / words / characters, from ../shared/corpora/README.md
COUNTS = [
    ("sxu/train.txt", 17115, 528238, 854001),
    ("sxu/test.txt", 3654, 113527, 184269),
    ("ud_zh/train.conll", 3997, 98608, 156360),
    ("ud_zh/dev.conll", 500, 12663, None),
    ("ud_zh/test.conll", 500, 12012, None),
    ("ud_zh/zh_gsdsimp-ud-dev.conllu", 500, 12663, None),
    ("ud_zh/zh_gsdsimp-ud-test.conllu", 500, 12012, None),
    ("zhuxian/train.zhuxian.wordpos", 2373, 67648, 96934),
    ("zhuxian/dev.zhuxian.wordpos", 788, 20393, None),
    ("zhuxian/test.zhuxian.wordpos", 1394, 34355, 48075),
    ("sighan2005/gold/pku_test_gold.utf8", 1944, 104372, 172733),
    ("sighan2005/gold/msr_test_gold.utf8", 3985, 106873, 184355),
    ("sighan2005/gold/as_testing_gold.utf8", 14429, 122610, 197681),
    ("sighan2005/gold/cityu_test_gold.utf8", 1492, 40936, 67689),
]


@pytest.mark.parametrize("relative,n_sents,n_words,n_chars", COUNTS)
def test_counts_match_the_published_ones(relative, n_sents, n_words, n_chars):
    sentences = list(read_sentences(corpus_path(relative)))
    assert len(sentences) == n_sents
    assert sum(len(s.words) for s in sentences) == n_words
    if n_chars is not None:
        assert sum(s.n_chars for s in sentences) == n_chars
    assert all(w and not any(c.isspace() for c in w) for s in sentences for w in s.words)


def test_conll_keeps_pos_heads_and_labels():
    sent = next(iter(read_sentences(corpus_path("ud_zh/zh_gsdsimp-ud-dev.conllu"))))
    assert sent.words[:2] == ["同样", "，"]
    assert sent.pos[:2] == ["ADV", "PUNCT"] and sent.tags[:2] == ["RB", ","]
    assert sent.heads[0] == 11 and sent.deps[0] == "advmod"
    root = sent.deps.index("root")
    assert sent.heads[root] == root
    doc = sentence_to_doc(spacy.blank("zh").vocab, sent)
    assert doc[0].pos_ == "ADV" and doc[0].head.i == 11 and doc[0].dep_ == "advmod"
    assert not doc.has_unknown_spaces and doc.text == "".join(sent.words)


def test_sighan_quirks(tmp_path):
    path = tmp_path / "quirks.utf8"
    data = "\ufeff上海  推\r\n\r\n中国\u3000人民 银行\r\n".encode("utf8")
    path.write_bytes(data)
    sentences = list(read_sentences(path, "sighan"))
    assert [s.words for s in sentences] == [["上海", "推"], ["中国", "人民", "银行"]]
    assert [s.line for s in sentences] == [1, 3]


@pytest.mark.parametrize(
    "fmt,content,line",
    [
        ("sighan", "好  的\n".encode("utf8") + b"\xff\xfe bad\n", 2),
        ("conll", "1\t中\t_\tX\tX\t_\t0\troot\t_\t_\n2\tbad\n".encode("utf8"), 2),
        ("conll", "# c\n1\t中\t_\tX\tX\t_\t5\troot\t_\t_\n".encode("utf8"), 2),
        ("conll", "1\t中\t_\tX\tX\t_\t0\troot\t_\t_\n3\t国\t_\tX\tX\t_\t1\tdep\t_\t_\n".encode("utf8"), 2),
        ("wordpos", "好_VA 的_DEC\n中国 人_NN\n".encode("utf8"), 2),
    ],
)
def test_bad_input_names_file_and_line(tmp_path, fmt, content, line):
    path = tmp_path / f"bad.{fmt}"
    path.write_bytes(content)
    with pytest.raises(CorpusFormatError, match=f"bad.{fmt}:{line}:"):
        list(read_sentences(path, fmt))


def test_conll_skips_multiword_ranges_and_empty_nodes(tmp_path):
    path = tmp_path / "mwt.conllu"
    path.write_text(
        "# text = 中国人\n1-2\t中国人\t_\t_\t_\t_\t_\t_\t_\t_\n1\t中国\t_\tPROPN\tNR\t_\t2\tnmod\t_\t_\n"
        "1.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n2\t人\t_\tNOUN\tNN\t_\t0\troot\t_\t_\n\n",
        encoding="utf8",
    )
    (sent,) = read_sentences(path)
    assert sent.words == ["中国", "人"] and sent.heads == [1, 1]


def test_dev_split():
    sentences = list(read_sentences(corpus_path("sxu/train.txt")))
    train, dev = split_dev(sentences, 0.1)
    assert len(dev) == round(len(sentences) * 0.1)
    assert dev == sentences[-len(dev) :] and train + dev == sentences
    r_train, r_dev = split_dev(sentences, 0.1, mode="random", seed=1)
    assert len(r_dev) == len(dev) and r_dev != dev
    assert split_dev(sentences, 0.1, mode="random", seed=1)[1] == r_dev
    with pytest.raises(ValueError, match="E018"):
        split_dev(sentences, 1.0)


def test_sighan_docbin_sighan_round_trip(tmp_path):
    path = corpus_path("sighan2005/gold/pku_test_gold.utf8")
    sentences = list(read_sentences(path))
    nlp = spacy.blank("zh")
    db = DocBin(docs=[sentence_to_doc(nlp.vocab, s) for s in sentences])
    db.to_disk(tmp_path / "pku.spacy")
    docs = list(DocBin().from_disk(tmp_path / "pku.spacy").get_docs(nlp.vocab))
    back = ["  ".join(t.text for t in doc) for doc in docs]
    lines = [line.split() for line in path.read_text(encoding="utf8").splitlines()]
    assert [b.split("  ") for b in back] == [words for words in lines if words]


def test_parse_in_names_one_of_the_corpus_training_files():
    """#68: the treebank the parser parses in is one of the corpus's training files (a misspelt
    name would leave the parser parsing in the first file's convention in silence)."""
    from spacy_gdcws.readers.corpora import CORPORA, CorpusSpec

    assert CORPORA["ud_gsd_more"].parse_in == "ud_zh/zh_gsdsimp-ud-dev.conllu"
    with pytest.raises(ValueError, match="E139"):
        CorpusSpec("a.conll", "b.conllu", "conll", more_train=("c.conllu",), parse_in="d.conllu")
    assert CorpusSpec("a.conll", "b.conllu", "conll", more_train=("c.conllu",), parse_in="c.conllu").parse_in == "c.conllu"
