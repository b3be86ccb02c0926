"""`treebanks.relabel`: pre-v2.5 UD Chinese GSD (UD v1 labels) read in GSDSimp's UD v2 labels."""
import pytest
import spacy
from spacy.tokens import DocBin

from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.readers.corpus import TREEBANK_KEY
from spacy_gdcws.treebanks.relabel import load_table, relabel, relabel_gsd_v1
from tests.util import ROOT, cli

ASSETS = ROOT / "assets"
# UD v1 relations that UD v2 renamed; none may be left after relabelling
V1_ONLY = {"dobj", "nsubjpass", "csubjpass", "auxpass", "neg", "case:dec", "case:suff", "case:aspect", "case:pref", "foreign"}


def test_v1_relations_and_upos_take_their_v2_names():
    # 我们 的 老师 没有 被 打 了 : v1's case:dec, neg, auxpass, case:aspect and CONJ-era UPOS
    sent = Sentence(words=["我们", "的", "老师", "没有", "被", "打", "了"], line=1,
                    pos=["PRON", "PART", "NOUN", "ADV", "VERB", "VERB", "PART"],
                    heads=[2, 0, 5, 5, 5, 5, 5],
                    deps=["nmod", "case:dec", "nsubjpass", "neg", "auxpass", "root", "case:aspect"])
    out = relabel_gsd_v1(sent)
    assert out.words == sent.words and out.heads == sent.heads
    assert out.deps == ["nmod", "case", "nsubj:pass", "advmod", "aux:pass", "root", "aux"]
    assert out.pos[4] == "AUX" and out.pos[6] == "AUX"  # 被 and 了, as GSDSimp tags them


def test_upos_reads_the_old_relation_where_the_form_alone_is_ambiguous():
    # 施力 的 大小 : 的 marking a relative clause (v1 acl:relcl) is v2's SCONJ (mark:rel);
    # 最终 的 结果 : 的 as a genitive (v1 case:dec) stays PART
    rel = Sentence(words=["施力", "的", "大小"], line=1, pos=["VERB", "PART", "NOUN"], heads=[2, 0, 2],
                   deps=["acl:relcl", "acl:relcl", "root"])
    gen = Sentence(words=["最终", "的", "结果"], line=1, pos=["NOUN", "PART", "NOUN"], heads=[2, 0, 2],
                   deps=["det", "case:dec", "root"])
    assert relabel_gsd_v1(rel).pos[1] == "SCONJ" and relabel_gsd_v1(rel).deps[1] == "mark:rel"
    assert relabel_gsd_v1(gen).pos[1] == "PART" and relabel_gsd_v1(gen).deps[1] == "case"


def test_the_root_keeps_its_label_and_no_other_word_becomes_root():
    table = load_table()
    # v1's `dep` that keeps its head is v2's advcl (the ones that became v2's root are moved there by
    # `first_clause_root`, which labels them itself)
    assert table["deprel"]["dep"] == "advcl"
    sent = Sentence(words=["他", "开始", "好"], line=1, pos=["PRON", "VERB", "ADV"], heads=[1, 1, 1],
                    deps=["nsubj", "root", "dep"])
    out = relabel_gsd_v1(sent)
    assert out.deps[1] == "root" and "root" not in (out.deps[0], out.deps[2])


def test_unknown_relabelling_is_a_coded_error():
    with pytest.raises(ValueError, match="E109"):
        relabel("gsd_v0", Sentence(words=["我"], line=1))


def test_the_main_jobs_corpus_has_v2_labels_and_upos_everywhere(tmp_path):
    """Issue #47: the main job's tagger and parser learn GSD train, GSDSimp dev, HK, CFL and PUD
    in one label set, that of GSDSimp test."""
    cli("prepare", "ud_gsd_more", ASSETS, tmp_path / "c")
    nlp = spacy.blank("zh")
    test_deps = {d for s in read_conll(ASSETS / "ud_zh" / "zh_gsdsimp-ud-test.conllu") for d in s.deps}
    train_deps = set()
    for name in ("train", "dev"):
        for doc in DocBin().from_disk(tmp_path / "c" / f"{name}.spacy").get_docs(nlp.vocab):
            assert doc.has_annotation("POS") and doc.has_annotation("DEP")
            train_deps.update(t.dep_ for t in doc)
    assert not train_deps & V1_ONLY
    # GSD's sentences (named by their treebank), their trees and punctuation converted (treebanks/ud_trees.py):
    # the release before v2.5 writes ASCII `,` and `.` where GSDSimp writes `，` and `。`
    gsd = [doc for doc in DocBin().from_disk(tmp_path / "c" / "train.spacy").get_docs(nlp.vocab)
           if doc.user_data.get(TREEBANK_KEY) == "ud_zh/train.conll"]
    assert len(gsd) == 3597
    marks = [t.text for doc in gsd for t in doc if t.pos_ == "PUNCT"]
    assert marks.count("，") > 5000 and "," not in marks and "." not in marks
    # the v2 relations GSDSimp test uses are learned (GSDSimp dev, HK, CFL, PUD and relabelled GSD)
    assert len(test_deps - train_deps) <= 1, test_deps - train_deps
