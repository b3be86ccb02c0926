"""`readers.ud_trees` and `relabel.convert_gsd_v1`: pre-v2.5 GSD trees in GSDSimp's UD v2 shapes."""
import pytest

from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.treebanks.relabel import convert_gsd_v1, relabel
from spacy_gdcws.treebanks.ud_trees import (
    attach_classifiers,
    attach_punctuation,
    ba_construction,
    coordinating_conjunctions,
    east_asian_punct,
    first_clause_root,
    head_first_appositions,
    head_first_names,
    is_ancestor,
)
from tests.util import CORPORA, ROOT


def _check_tree(sent: Sentence) -> None:
    """One root, no cycle, punctuation without dependents and attached without crossing."""
    heads, n = sent.heads, len(sent.words)
    roots = [i for i in range(n) if heads[i] == i]
    assert len(roots) == 1, sent.line
    root = roots[0]
    for i in range(n):
        assert is_ancestor(heads, root, i), (sent.line, i)
        if sent.pos[i] == "PUNCT" and heads[i] != i:
            assert sent.pos[heads[i]] != "PUNCT" or heads[heads[i]] == heads[i]
            lo, hi = sorted((i, heads[i]))
            assert all(is_ancestor(heads, heads[i], k) for k in range(lo + 1, hi)), (sent.line, i)
    assert all(sent.pos[h] != "PUNCT" for i, h in enumerate(heads) if h != i and sent.pos[i] != "PUNCT")


def test_east_asian_punctuation_forms():
    assert east_asian_punct(",") == "，" and east_asian_punct("..") == "。。" and east_asian_punct("(") == "（"
    assert east_asian_punct("3.5") == "3.5" and east_asian_punct("-") == "-" and east_asian_punct("") == ""


def test_a_classifier_hangs_from_its_numeral():
    # 提供 一 个 平台: v1 一 → 个 → 平台; v2 个 → 一 → 平台
    heads, deps = [0, 2, 3, 0], ["root", "nummod", "clf", "obj"]
    attach_classifiers(heads, deps, ["VV", "CD", "NNB", "NN"])
    assert heads == [0, 3, 1, 0]
    # a measure noun heading its own phrase (三 年: nmod:tmod) keeps its numeral
    heads = [1, 2, 2]
    attach_classifiers(heads, ["nummod", "nmod:tmod", "root"], ["CD", "NNB", "VV"])
    assert heads == [1, 2, 2]


def test_a_chain_of_clauses_is_headed_by_its_first():
    # 他 走 了 , 她 来 了 : v1 root 来 with 走 as `dep`; v2 root 走, 来 its parataxis
    heads, deps = [1, 5, 1, 5, 5, 5, 5], ["nsubj", "root", "aux", "punct", "nsubj", "root", "aux"]
    old = ["nsubj", "dep", "aux", "punct", "nsubj", "root", "aux"]
    first_clause_root(heads, deps, old)
    assert heads[1] == 1 and deps[1] == "root" and heads[5] == 1 and deps[5] == "parataxis"
    assert heads[4] == 5 and heads[6] == 5  # the later clause keeps its own words


def test_cc_goes_to_the_conjunct_that_follows():
    # 苹果 和 香蕉 : v1 和 → 苹果; v2 和 → 香蕉
    heads = [0, 0, 0]
    coordinating_conjunctions(heads, ["root", "cc", "conj"])
    assert heads == [0, 2, 0]


def test_a_name_is_headed_by_its_first_part():
    # 华特 · 迪士尼 邀请 : v1 华特 (nmod) → 迪士尼 (nsubj); v2 华特 (nsubj), 迪士尼 flat:name → 华特
    heads, deps = [2, 2, 3, 3], ["nmod", "punct", "nsubj", "root"]
    head_first_names(heads, deps, list(deps), ["PROPN", "PUNCT", "PROPN", "VERB"], ["NNP", "PU", "NNP", "VV"])
    assert heads == [3, 0, 0, 3] and deps == ["nsubj", "punct", "flat:name", "root"]  # the mark moves with the head
    attach_punctuation(heads, ["华特", "·", "迪士尼", "邀请"], ["PROPN", "PUNCT", "PROPN", "VERB"])
    assert heads[1] == 2  # v2 hangs the middle dot from the part it introduces


def test_an_apposition_is_headed_by_its_first_nominal():
    # 重要 遗产 札幌 农场 是 ... : v1 遗产 (appos) → 农场 (nsubj); v2 遗产 (nsubj), 农场 appos → 遗产
    heads, deps = [1, 3, 3, 4, 4], ["amod", "appos", "nmod", "nsubj", "root"]
    head_first_appositions(heads, deps)
    assert heads == [1, 4, 3, 1, 4] and deps == ["amod", "nsubj", "nmod", "appos", "root"]
    # the root's apposition: the first nominal becomes the root
    heads, deps = [1, 1], ["appos", "root"]
    head_first_appositions(heads, deps)
    assert heads == [0, 0] and deps == ["root", "appos"]
    # a head-first apposition is already v2's
    heads, deps = [0, 0], ["root", "appos"]
    head_first_appositions(heads, deps)
    assert heads == [0, 0] and deps == ["root", "appos"]


def test_ba_goes_under_the_object_it_introduces():
    # 他 将 球 踢 进 : v1 将 (aux:caus) → 踢, 球 (dobj) → 踢; v2 将 (case) → 球 (obl:patient) → 踢
    words = ["他", "将", "球", "踢", "进"]
    old = ["nsubj", "aux:caus", "dobj", "root", "compound:vv"]
    heads, deps = [3, 3, 3, 3, 3], ["nsubj", "case", "obj", "root", "compound:vv"]
    ba_construction(heads, deps, words, old)
    assert heads == [3, 2, 3, 3, 3] and deps[1:3] == ["case", "obl:patient"]
    # 将 as "will" (advmod) and a causative (让 …) keep their heads
    heads, deps = [3, 3, 3, 3, 3], ["nsubj", "advmod", "obj", "root", "compound:vv"]
    ba_construction(heads, deps, words, ["nsubj", "advmod", "dobj", "root", "compound:vv"])
    assert heads == [3, 3, 3, 3, 3]
    heads = [3, 3, 3, 3, 3]
    ba_construction(heads, list(deps), ["他", "让", "球", "踢", "进"], old)
    assert heads == [3, 3, 3, 3, 3]


def test_punctuation_goes_to_the_phrase_beside_it_and_the_final_mark_to_the_root():
    # 我 来 了 ， 他 走 了 。 with every mark on the last word (v1's habit in places)
    forms = ["我", "来", "了", "，", "他", "走", "了", "。"]
    upos = ["PRON", "VERB", "AUX", "PUNCT", "PRON", "VERB", "AUX", "PUNCT"]
    heads = [1, 1, 1, 6, 5, 1, 5, 6]
    attach_punctuation(heads, forms, upos)
    # the comma: the highest node of the clause on its left is the root (来), of the clause on its
    # right 走; UD attaches to the lower of the two (GSDSimp: a comma after the first clause hangs
    # from the clause that follows it)
    assert heads[3] == 5
    assert heads[7] == 1  # the full stop: to the root


def test_brackets_go_to_the_heads_of_what_they_enclose():
    # 游戏 （ A-AVG ） 是 : （ and ） on A-AVG
    forms, upos = ["游戏", "（", "A-AVG", "）", "是"], ["NOUN", "PUNCT", "X", "PUNCT", "AUX"]
    heads = [4, 4, 0, 4, 4]
    attach_punctuation(heads, forms, upos)
    assert heads[1] == 2 and heads[3] == 2


def test_convert_keeps_words_and_text_but_east_asian_marks():
    sent = Sentence(words=["他", "来", "了", ",", "她", "走", "了", "."], line=1,
                    tags=["PN", "VV", "AS", "PU", "PN", "VV", "AS", "PU"],
                    pos=["PRON", "VERB", "PART", "PUNCT", "PRON", "VERB", "PART", "PUNCT"],
                    heads=[1, 5, 1, 5, 5, 5, 5, 5],
                    deps=["nsubj", "dep", "case:aspect", "punct", "nsubj", "root", "case:aspect", "punct"])
    out = relabel("gsd_v1_to_v2_trees", sent)
    assert out.words == ["他", "来", "了", "，", "她", "走", "了", "。"]
    assert out.heads == [1, 1, 1, 5, 5, 1, 5, 1]
    assert out.deps[1] == "root" and out.deps[5] == "parataxis" and out.deps[2] == "aux"
    _check_tree(out)


def test_every_shipped_gsd_tree_converts_to_a_projective_tree():
    """All 3,997 sentences of the shipped GSD train convert to trees: one root, no cycle,
    punctuation leaves attached without crossing an arc."""
    sents = list(read_conll(ROOT / "assets" / "ud_zh" / "train.conll"))
    for sent in sents:
        out = convert_gsd_v1(sent)
        assert len(out.words) == len(sent.words) and len("".join(out.words)) == len("".join(sent.words))
        _check_tree(out)


@pytest.mark.skipif(not (CORPORA / "ud_zh" / "dev.conll").exists(), reason="needs ../shared/corpora")
def test_gsd_dev_heads_agree_with_its_v2_annotation():
    """On the 500 GSD dev sentences both releases annotate, 80.5% of the v1 heads agree with v2's;
    converted, 97.2% (the label table learned on all of dev), 96.5% labelled, punctuation's 97.5%."""
    old = list(read_conll(CORPORA / "ud_zh" / "dev.conll"))
    new = list(read_conll(CORPORA / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"))
    n = heads = labelled = punct = n_punct = 0
    for o, w in zip(old, new):
        c = convert_gsd_v1(o)
        for i in range(len(w.words)):
            n += 1
            heads += c.heads[i] == w.heads[i]
            labelled += c.heads[i] == w.heads[i] and c.deps[i] == w.deps[i]
            if w.deps[i] == "punct":
                n_punct += 1
                punct += c.heads[i] == w.heads[i]
    assert heads / n > 0.97 and punct / n_punct > 0.97 and labelled / n > 0.963
