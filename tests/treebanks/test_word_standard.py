"""The segmenter's words of HK, CFL and PUD in GSD's segmentation standard (#68)."""
from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.treebanks.word_standard import WordStandard


def _standard():
    # GSD writes 候选 人 and 立法 会 as two words, 这个 and 因为 whole
    lines = [["他", "是", "候选", "人"], ["候选", "人", "说"], ["立法", "会", "开会"], ["这个", "好"], ["这个", "人"],
             ["因为", "下雨"], ["因为", "冷"]]
    return WordStandard().learn(Sentence(words=w, line=i + 1) for i, w in enumerate(lines))


def test_a_word_the_standard_writes_as_a_run_is_split_as_it_splits_it():
    # HK and PUD's 候选人 (a test word GSD splits); the traditional 立法會 meets GSD's simplified 立法 会
    assert _standard().words(["三", "名", "候选人"]) == ["三", "名", "候选", "人"]
    assert _standard().words(["立法會", "主席"]) == ["立法", "會", "主席"]


def test_a_run_the_standard_writes_whole_is_joined():
    assert _standard().words(["這", "個", "人"]) == ["這個", "人"]
    assert _standard().words(["因", "为", "冷"]) == ["因为", "冷"]


def test_words_the_standard_writes_whole_or_never_saw_stay():
    standard = _standard()
    assert standard.words(["这个", "候选", "人", "很", "好"]) == ["这个", "候选", "人", "很", "好"]
    assert standard.words(["伊斯兰教"]) == ["伊斯兰教"]


def test_an_unchanged_sentence_keeps_its_annotation_and_a_changed_one_only_its_words():
    standard = _standard()
    same = Sentence(words=["这个", "好"], line=3, tags=["DT", "JJ"], pos=["DET", "ADJ"], heads=[1, 1], deps=["det", "root"])
    assert standard.convert(same) is same
    changed = Sentence(words=["候选人", "好"], line=5, tags=["NN", "JJ"], pos=["NOUN", "ADJ"], heads=[1, 1],
                       deps=["nsubj", "root"], meta={"text": "候选人好"})
    converted = standard.convert(changed)
    assert converted.words == ["候选", "人", "好"] and converted.line == 5 and converted.meta == {"text": "候选人好"}
    assert converted.tags is None and converted.heads is None and converted.deps is None
