"""`decoding.units`: atomic units (URLs, numbers, Latin words, grapheme clusters) are never split inside, whatever the model or a force word says."""
import numpy
import pytest
import spacy

from spacy_gdcws.decoding.units import unit_spans
from tests.util import LEGACY_FIXTURE


@pytest.mark.parametrize("text, unit", [("café Zürich", "café"), ("我在Zürich工作", "Zürich"), ("ＡＢＣ公司", "ＡＢＣ"), ("naïve的", "naïve")])
def test_case_10_latin_words_of_any_accent_stay_whole(trained_nlp, text, unit):
    seg = trained_nlp.get_pipe("gdcws_segmenter")
    seg.atomic_units = True  # the shared test pipeline is trained and kept without them
    try:
        assert unit in [t.text for t in trained_nlp(text)]
    finally:
        seg.atomic_units = False


@pytest.mark.parametrize("text, unit, word", [
    ("见https://example.com/a?b=1好", "https://example.com/a?b=1", "example"),
    ("好👨\u200d👩\u200d👧家", "👨\u200d👩\u200d👧", "👩"),
])
def test_case_12_a_force_word_never_cuts_an_atomic_unit(trained_nlp, text, unit, word):
    seg = trained_nlp.get_pipe("gdcws_segmenter")
    saved = dict(seg.user_dict.words)
    seg.add_words([word], "force")
    seg.atomic_units = True
    try:
        tokens = [t.text for t in trained_nlp(text)]
    finally:
        seg.remove_words([word])
        seg.atomic_units = False
    assert seg.user_dict.words == saved
    assert any(unit in t for t in tokens) and "".join(tokens) == text, tokens


# (kind, text, the unit that must lie inside one word)
CASES = [
    ("url", "请访问https://www.example.com/path?q=1&lang=zh了解详情。", "https://www.example.com/path?q=1&lang=zh"),
    ("url", "网址是www.baidu.com。", "www.baidu.com"),
    ("url", "下载ftp://files.example.org/a.zip吧", "ftp://files.example.org/a.zip"),
    ("email", "请发邮件到zhang.san+cws@mail.example.cn联系我们", "zhang.san+cws@mail.example.cn"),
    ("number", "增长了3.1415个百分点", "3.1415"),
    ("number", "总计1,234,567元", "1,234,567"),
    ("number", "增长率达到12.5%，", "12.5%"),
    ("number", "全角数字２０１９年", "２０１９"),
    ("number", "气温为零下15.5度", "15.5"),
    ("latin", "我喜欢Python编程", "Python"),
    ("latin", "他在ＩＢＭ工作", "ＩＢＭ"),
    ("latin", "这是don't的意思", "don't"),
    ("grapheme", "太棒了👍🏽好", "👍🏽"),
    ("grapheme", "一家👨‍👩‍👧人", "👨‍👩‍👧"),
    ("grapheme", "国旗🇨🇳🇺🇸", "🇨🇳"),
    ("grapheme", "café很好", "café"),
    ("grapheme", "e\u0301字", "e\u0301"),
]


@pytest.fixture(scope="module")
def nlp():
    return spacy.load(LEGACY_FIXTURE)


@pytest.mark.parametrize("kind,text,unit", CASES)
def test_unit_is_never_split(nlp, kind, text, unit):
    doc = nlp(text)
    assert doc.text == text
    start = text.index(unit)
    inside = [t for t in doc if t.idx < start + len(unit) and t.idx + len(t) > start]
    assert len(inside) == 1, (kind, [t.text for t in doc])


def test_without_atomic_units_the_model_may_split_them(nlp):
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.atomic_units = False
    try:
        split = sum(len([t for t in nlp(text) if t.idx < text.index(unit) + len(unit)
                         and t.idx + len(t) > text.index(unit)]) > 1 for _, text, unit in CASES)
    finally:
        seg.atomic_units = True
    assert split > 0  # the tiny model splits some of them: the rule is what keeps them whole


def test_unit_spans_of_each_kind():
    text = "见www.a.com或a@b.cn，价12.5%，AI好"
    assert [text[a:b] for a, b in unit_spans(text)] == ["www.a.com", "a@b.cn", "12.5%", "AI"]
    assert unit_spans("北京大学") == []


def test_69_a_zero_width_joiner_joins_emoji_only(trained_nlp):
    """#69 (4): a zero-width joiner between Han characters (中国 U+200D 人民) glued the whole run into
    one word; UAX #29 joins only emoji across it (GB11)."""
    from spacy_gdcws.data.clusters import continues

    def joined(text):
        flags = continues(text, numpy.arange(len(text)), numpy.zeros(len(text), dtype=bool))
        return [False] * len(text) if flags is None else flags.tolist()

    assert joined("中国\u200d人民") == [False, False, True, False, False]
    assert joined("👩\u200d💻") == [False, True, True]
    words = [t.text for t in trained_nlp("中国\u200d人民")]
    assert len(words) >= 2 and "".join(words) == "中国\u200d人民"


@pytest.mark.parametrize("text,clusters", [
    ("\u1100\u1161\u11a8", ["\u1100\u1161\u11a8"]),  # Hangul jamo: one syllable
    ("नमस्ते", ["न", "म", "स्ते"]),  # Devanagari, conjuncts (Unicode 15.1)
    ("กำ", ["กำ"]),  # Thai SARA AM: a spacing mark
    ("\u0600\u0661", ["\u0600\u0661"]),  # Arabic prepend
    ("e\u0301", ["e\u0301"]), ("🇨🇳", ["🇨🇳"]), ("👨\u200d👩\u200d👧", ["👨\u200d👩\u200d👧"]), ("中文", ["中", "文"]),
])
def test_79_grapheme_clusters_are_uax29s(text, clusters):
    """#79 (7): the clusters are `regex`'s `\\X` (UAX #29): four of the probes differed before."""
    from spacy_gdcws.data.clusters import continues

    flags = continues(text, numpy.arange(len(text)), numpy.zeros(len(text), dtype=bool))
    starts = [i for i in range(len(text)) if flags is None or not flags[i]]
    assert [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])] == clusters


def test_79_a_joiner_or_a_cluster_changes_no_word(trained_nlp):
    """#79 (7): `我们\u200d热爱\u200d和平` gave other words than `我们热爱和平`, and an emoji sequence
    joined the next character where one emoji did not: the model reads each cluster as one character,
    its first, and never cuts it."""
    def words(text):
        return [t.text for t in trained_nlp(text)]

    plain = words("我们热爱和平")
    joined = words("我们\u200d热爱\u200d和平")
    assert [w.replace("\u200d", "") for w in joined] == plain
    family, first = words("👨\u200d👩\u200d👧好"), words("👨好")
    assert [w.replace("\u200d👩\u200d👧", "") for w in family] == first
    assert family[0].startswith("👨\u200d👩\u200d👧")
    for text in ("กำกับ", "e\u0301好", "🇨🇳中国", "\u1100\u1161\u11a8\u1100\u1161"):
        assert "".join(words(text)) == text
    assert words("🇨🇳中国")[0].startswith("🇨🇳")


@pytest.mark.parametrize("value", ["false", "no", None, 2, "True"])
def test_69_atomic_units_is_a_checked_switch(trained_copy, value):
    """#69 (6): `seg.atomic_units = "false"` meant True, with no error."""
    seg = trained_copy.get_pipe("gdcws_segmenter")
    with pytest.raises(ValueError, match="E135"):
        seg.atomic_units = value
    seg.atomic_units = False
    assert seg.atomic_units is False
