"""`decoding.user_dict`: force, prefer, combine and split words, the formats users have, bulk loading, serialization."""
import numpy
import pytest
import spacy

from spacy_gdcws.decoding.dictionary_files import read_user_dict
from spacy_gdcws.decoding.user_dict import UserDictionary
from tests.util import LEGACY_FIXTURE, block, plain_embed

TEXT = "小米手机发布了红米Note13和天猫精灵。"


def words(nlp, text=TEXT):
    return [t.text for t in nlp(text)]


FORMATS = {
    "plain.txt": "小米手机\n天猫精灵\n红米Note13\n".encode("utf8"),
    "jieba.txt": "小米手机 5 nz\n天猫精灵 3\n红米Note13 2 n\n".encode("utf8"),
    "pkuseg.txt": "小米手机\tnz\n天猫精灵\tn\n红米Note13\tn\n".encode("utf8"),
    "bom.txt": "\ufeff小米手机\n天猫精灵\n红米Note13\n".encode("utf8"),
    "crlf.txt": "小米手机\r\n天猫精灵\r\n红米Note13\r\n".encode("utf8"),
}


def test_the_model_alone_splits_the_novel_words(nlp):
    got = words(nlp)
    assert "小米手机" not in got and "天猫精灵" not in got


def test_force_keeps_words_whole_and_apart_from_neighbours(nlp):
    seg = nlp.get_pipe("gdcws_segmenter")
    assert seg.add_words(["小米手机", "天猫精灵", "红米Note13"], mode="force") == 3
    got = words(nlp)
    assert {"小米手机", "天猫精灵", "红米Note13"} <= set(got)
    assert "".join(got) == TEXT
    assert [d.text for d in nlp.pipe([TEXT, "", "天猫精灵"])] == [TEXT, "", "天猫精灵"]
    assert words(nlp, "天猫精灵") == ["天猫精灵"]
    seg.remove_words(["天猫精灵"])
    assert "天猫精灵" not in words(nlp)


def test_forward_maximum_matching_takes_the_longest_word(nlp):
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.add_words(["天猫", "天猫精灵", "精灵王"], mode="force")
    got = words(nlp, "天猫精灵王")
    assert got[0] == "天猫精灵"  # longest at the first position; 精灵王 overlaps it and loses


def test_prefer_moves_the_boundaries_only_as_far_as_the_bonus(nlp):
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.add_words(["小米手机"], mode="prefer")
    seg.user_dict_bonus = 1000.0  # overrides any model score: acts as force
    assert "小米手机" in words(nlp)
    seg.user_dict_bonus = 0.0  # no bonus: the model's own words
    assert "小米手机" not in words(nlp)


def test_a_prefer_words_frequency_scales_its_bonus():
    """#49: jieba's frequencies count. user_dict_freq_scale 0 changes nothing; above 0 a word's
    bonus is bonus * (1 + scale * log10(freq)) at its edges and inside it."""
    from spacy_gdcws.decoding.word_tables import freq_weight

    codes = numpy.array([ord(c) for c in "我爱北京天安门"], dtype=numpy.int64)
    user = UserDictionary()
    user.add(["北京", "天安门"], "prefer", {"北京": 1000})
    _, plain = user.gap_rules(codes, 2.0)
    _, scaled = user.gap_rules(codes, 2.0, freq_scale=0.5)
    assert plain.tolist() == [0.0, 2.0, -2.0, 4.0, -2.0, -2.0]  # 京|天: the edges of both words
    assert scaled.tolist() == [0.0, 5.0, -5.0, 7.0, -2.0, -2.0]  # 北京: 2 * (1 + 0.5 * 3); 天安门: no frequency
    user.add(["天安门"], "prefer", {"天安门": 10})  # a frequency edit is seen by the next decode
    assert user.gap_rules(codes, 2.0, freq_scale=0.5)[1].tolist() == [0.0, 5.0, -5.0, 8.0, -3.0, -3.0]
    assert freq_weight(None, 1.0) == freq_weight(1, 1.0) == freq_weight(10**6, 0.0) == 1.0
    assert freq_weight(10**6, -1.0) == 0.0  # never a negative bonus


def test_add_words_takes_frequencies_and_the_scale_is_a_checked_setting(nlp):
    seg = nlp.get_pipe("gdcws_segmenter")
    assert seg.add_words({"小米手机": 500, "天猫精灵": 3}, mode="prefer") == 2
    assert seg.user_dict.freqs == {"小米手机": 500, "天猫精灵": 3}
    assert seg.user_dict_freq_scale == 2.0  # the factory's default, chosen on ZX dev
    seg.user_dict_freq_scale = 0.25
    assert seg.user_dict_freq_scale == 0.25
    for bad in (-1.0, float("nan"), "x"):
        with pytest.raises(ValueError, match="E030"):
            seg.user_dict_freq_scale = bad
    with pytest.raises(ValueError, match="E096"):
        seg.add_words({"红米": -3}, mode="prefer")


def test_dictionary_is_saved_with_the_pipeline(nlp, tmp_path):
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.add_words(["小米手机"], mode="force")
    seg.add_words(["天猫精灵"], mode="prefer")
    nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp").get_pipe("gdcws_segmenter")
    assert loaded.user_dict.words == {"小米手机": "force", "天猫精灵": "prefer"}
    again = spacy.load(LEGACY_FIXTURE)
    again.from_bytes(nlp.to_bytes())
    assert again.get_pipe("gdcws_segmenter").user_dict.words == seg.user_dict.words
    assert "小米手机" in words(again)


def test_bad_words_and_modes_are_coded_errors(tmp_path):
    d = UserDictionary()
    with pytest.raises(ValueError, match="E045"):
        d.add(["北京"], mode="always")
    for bad in ("", "北  京", " 北京", "北京\t", None):  # a phrase's parts are joined by single spaces
        with pytest.raises(ValueError, match="E046"):
            d.add([bad])
    d.add(["New York"])
    assert d.words == {"New York": "force"}
    path = tmp_path / "dict.txt"
    path.write_text("# comment\n北京\n天安门 prefer\n\n大学 prefered\n", encoding="utf8")
    with pytest.raises(ValueError, match=r"E015.*dict.txt:5"):
        read_user_dict(path, strict=True)
    with pytest.warns(UserWarning, match=r"W002.*dict.txt:5"):
        assert read_user_dict(path) == [("北京", "force", None), ("天安门", "prefer", None)]
    path.write_text("北京\n天安门 prefer\n", encoding="utf8")
    assert read_user_dict(path) == [("北京", "force", None), ("天安门", "prefer", None)]
    with pytest.raises(ValueError, match="E016"):
        read_user_dict(tmp_path / "missing.txt")


def test_initialize_reads_a_dictionary_file(tmp_path):
    from spacy.tokens import Doc
    from spacy.training import Example

    path = tmp_path / "dict.txt"
    path.write_text("小米手机\n", encoding="utf8")
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})
    nlp.add_pipe("gdcws_segmenter", name="segmenter", config={"model": {
        "@architectures": "spacy_gdcws.CharSegmenter.v1",
        "embed": plain_embed(width=16, char_rows=100, bigram_rows=100),
        "encoder": block("BiLSTM.v1", width=16),
        "scorer": {"@architectures": "spacy_gdcws.CRFTagger.v1", "width": 16}}})
    nlp.config["initialize"]["components"]["segmenter"] = {"user_dict": str(path)}
    ref = Doc(nlp.vocab, words=["我", "爱", "北京"], spaces=[False] * 3)
    nlp.initialize(lambda: [Example(nlp.make_doc(ref.text), ref)])
    assert nlp.get_pipe("segmenter").user_dict.words == {"小米手机": "force"}
    assert "小米手机" in [t.text for t in nlp("买了小米手机")]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_loads_the_same_words(nlp, tmp_path, name):
    """fda9378 refused jieba and pkuseg files (E015) and lost a BOM file's first word (#38, case 7)."""
    path = tmp_path / name
    path.write_bytes(FORMATS[name])
    seg = nlp.get_pipe("gdcws_segmenter")
    assert seg.load_user_dict(path) == 3
    assert seg.user_dict.words == {"小米手机": "force", "天猫精灵": "force", "红米Note13": "force"}
    if name == "jieba.txt":
        assert seg.user_dict.freqs == {"小米手机": 5, "天猫精灵": 3, "红米Note13": 2}
    assert {"小米手机", "天猫精灵"} <= set(words(nlp))


def test_a_bad_line_names_file_and_line_and_loads_nothing(nlp, tmp_path):
    """strict: the file is refused at its first bad line and nothing is half-loaded; by default
    (jieba's habit) the bad line is left out with a warning naming file and line."""
    path = tmp_path / "bad.txt"
    path.write_text("小米手机 5 nz\n天猫精灵 prefer force\n", encoding="utf8")
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.add_words(["北京"])
    with pytest.raises(ValueError, match=r"E015.*bad.txt:2"):
        seg.load_user_dict(path, strict=True)
    assert seg.user_dict.words == {"北京": "force"}  # nothing half-loaded
    with pytest.warns(UserWarning, match=r"W002.*bad.txt:2"):
        assert seg.load_user_dict(path) == 1
    assert seg.user_dict.words == {"北京": "force", "小米手机": "force"}


def test_a_bare_string_is_refused():
    """fda9378: add_words("北京") added 北 and 京 as two force words."""
    d = UserDictionary()
    with pytest.raises(TypeError, match="E083"):
        d.add("北京")
    with pytest.raises(TypeError, match="E083"):
        d.remove("北京")
    assert len(d) == 0


def test_loading_builds_the_tables_once(monkeypatch, tmp_path):
    """fda9378 rebuilt every table per word: 8,000 words took 93 s. A file builds each
    table (mode group and word length) once."""
    from spacy_gdcws.decoding import word_tables
    from spacy_gdcws.decoding.dictionary_files import load_user_dict

    calls = []
    original = word_tables.LengthTable.build.__func__
    monkeypatch.setattr(word_tables.LengthTable, "build",
                        classmethod(lambda cls, size, entries: (calls.append(size), original(cls, size, entries))[1]))
    path = tmp_path / "many.txt"
    path.write_text("".join(f"词{i}\n" for i in range(5000)) + "北京 prefer\n", encoding="utf8")
    d = UserDictionary()
    assert load_user_dict(d, path) == 5001
    d.snapshot()  # what the next decode reads
    assert sorted(calls) == [2, 2, 3, 4, 5]  # force: 词0-9 .. 词1000-4999; prefer: 北京
    assert len(d) == 5001 and "词4999" in d and "北京" in d and "南京" not in d


def test_remove_reset_len_and_in():
    d = UserDictionary()
    d.add(["北京", "天安门"], "prefer")
    d.add_splits({"和服务": ["和", "服务"]})
    assert len(d) == 3 and "北京" in d and "和服务" in d
    d.remove(["北京"])
    assert "北京" not in d and len(d) == 2
    d.reset()
    assert len(d) == 0 and not d.splits
    with pytest.raises(ValueError, match="E084"):
        d.add_splits({"和服务": ["和服", "物"]})


def test_combine_merges_only_between_model_boundaries():
    import numpy

    d = UserDictionary()
    d.add(["和服"], "combine")
    codes = numpy.asarray([ord(c) for c in "商品和服务"])
    free = numpy.full(4, -1)
    none = numpy.zeros(4, dtype=bool)
    # the model's 商品/和/服务: 服务 starts inside 和服, so 和服 is not formed
    model = numpy.asarray([False, True, True, False])
    assert d.combine(codes, model, none, free).tolist() == model.tolist()
    # the model's 商品/和/服/务: both edges of 和服 are boundaries, its inner gap is merged
    split = numpy.asarray([False, True, True, True])
    assert d.combine(codes, split, none, free).tolist() == [False, True, False, True]
    # a forced boundary inside the word (a force word's edge) is never merged
    forced = numpy.asarray([-1, -1, 1, -1])
    assert d.combine(codes, split, none, forced).tolist() == split.tolist()


def test_combine_force_and_split_in_a_pipeline(nlp):
    seg = nlp.get_pipe("gdcws_segmenter")
    plain = words(nlp)
    seg.add_words(["小米手机", "天猫精灵"], "combine")
    combined = words(nlp)
    # each combine word is formed exactly where the model's own words tile it
    for word in ("小米手机", "天猫精灵"):
        ends = {sum(len(w) for w in plain[:i]) for i in range(len(plain) + 1)}
        start = TEXT.index(word)
        assert (word in combined) == (start in ends and start + len(word) in ends)
    assert "".join(combined) == TEXT
    seg.user_dict.reset()
    seg.add_words(["和服"], "force")
    assert words(nlp, "商品和服务")[-2:] == ["和服", "务"]  # forward maximum matching's pitfall, documented
    seg.user_dict.reset()
    seg.add_splits({"和服务": ["和", "服务"]})
    assert words(nlp, "商品和服务")[-2:] == ["和", "服务"]


def test_edits_one_at_a_time_equal_one_build():
    """Words added and removed one call at a time (past the size where a table's delta is
    merged into its base) match exactly as the same words added in one call."""
    import random

    rng = random.Random(0)
    chars = "北京天安门人民大学中国上海广州深圳和服务经济发展"
    words = sorted({"".join(rng.choice(chars) for _ in range(rng.randint(2, 4))) for _ in range(4000)})
    one_by_one = UserDictionary()
    for i, word in enumerate(words):
        one_by_one.add([word], ["force", "prefer", "combine"][i % 3])
        if i % 7 == 0:
            one_by_one.remove([words[i // 2]])
    at_once = UserDictionary.from_list(one_by_one.to_list())
    texts = ["".join(rng.choice(chars) for _ in range(200)) for _ in range(20)]
    for text in texts:
        codes = numpy.array([ord(c) for c in text])
        for group in ("hard", "prefer", "combine"):
            assert one_by_one.matches(codes, group) == at_once.matches(codes, group)


def test_threads_see_the_dictionary_before_or_after_an_edit():
    """Issue #51, S6 (and #49): the dictionary was rebuilt in place: with one thread adding and
    removing an unrelated word while two threads segmented, 2,255 of 2,609 calls split forced
    words and 20 failed with E109. Four threads segment while a fifth adds and removes a word:
    every doc's words are those of the dictionary with the word or without it."""
    import threading

    nlp = spacy.load(LEGACY_FIXTURE)
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.add_words(["小米手机", "天猫精灵", "红米"], "force")
    texts = [f"{i}号小米手机和天猫精灵，还有红米和米家。" for i in range(40)]
    seg.add_words(["米家"], "force")
    with_word = [[t.text for t in doc] for doc in nlp.pipe(texts)]
    seg.remove_words(["米家"])
    without = [[t.text for t in doc] for doc in nlp.pipe(texts)]
    assert with_word != without
    stop, errors, bad, calls = threading.Event(), [], [], [0]

    def read():
        while not stop.is_set():
            try:
                for doc, a, b in zip(nlp.pipe(texts, batch_size=8), with_word, without):
                    words = [t.text for t in doc]
                    if words not in (a, b):
                        bad.append(words)
                calls[0] += 1
            except Exception as err:  # noqa: BLE001 (every failure is one)
                errors.append(err)

    def write():
        for _ in range(200):
            seg.add_words(["米家"], "force")
            seg.remove_words(["米家"])

    readers = [threading.Thread(target=read) for _ in range(4)]
    for thread in readers:
        thread.start()
    write()
    stop.set()
    for thread in readers:
        thread.join()
    assert not errors and not bad and calls[0] >= 4


@pytest.mark.parametrize("mode", ["force", "prefer", "combine"])
@pytest.mark.parametrize("decode_between", [True, False])
def test_two_words_that_read_alike_keep_their_own_entries(mode, decode_between):
    """#61 (3): on a normalizing model 台湾 and 臺灣 have one key; removing one removed the other's
    match while `"台湾" in user_dict` stayed True (also after to_list/from_list, with no decode between)."""
    from spacy_gdcws.data.normalize import get_normalizer

    normalizer = get_normalizer("t2s")
    codes = numpy.array([ord(c) for c in normalizer.text("我爱台湾的山，以後再说")])
    group = "hard" if mode == "force" else mode
    user_dict = UserDictionary(normalizer=normalizer)
    for pair in (["台湾", "臺灣"], ["以后", "以後"]):
        user_dict.add(pair[:1], mode)
        if decode_between:
            user_dict.matches(codes, group)
        user_dict.add(pair[1:], mode)
        if decode_between:
            user_dict.matches(codes, group)
    for kept in (user_dict, UserDictionary.from_list(user_dict.to_list(), normalizer)):
        kept.remove(["臺灣", "以后"])
        assert "台湾" in kept and "以後" in kept
        assert [(s, e) for s, e, _ in kept.matches(codes, group)] == [(2, 4), (7, 9)]
        kept.remove(["台湾", "以後"])
        assert kept.matches(codes, group) == []


def _combined(user_dict, words, forced=()):
    """The words after the user dictionary's combine pass over the model's `words`."""
    text = "".join(words)
    codes = numpy.array([ord(c) for c in text])
    bounds = numpy.zeros(len(text) - 1, dtype=bool)
    ends = numpy.cumsum([len(w) for w in words])[:-1] - 1
    bounds[ends] = True
    constraints = numpy.full(len(bounds), -1)
    constraints[list(forced)] = 1
    out = user_dict.combine(codes, bounds, numpy.zeros_like(bounds), constraints)
    cuts = [0] + (numpy.flatnonzero(out) + 1).tolist() + [len(text)]
    return [text[a:b] for a, b in zip(cuts, cuts[1:])]


def test_combine_takes_the_longest_word_that_fits_at_each_position():
    """#61 (4): a longer combine word that cannot form at a position (一个十 ends inside 十字) hid the
    shorter one that could (一个); adding 出让金 (which cannot form) undid 出让."""
    user_dict = UserDictionary()
    user_dict.add(["一个", "一个十", "十字路口"], "combine")
    assert _combined(user_dict, ["走到", "了", "一", "个", "十字", "路口"]) == ["走到", "了", "一个", "十字路口"]
    user_dict.add(["出让"], "combine")
    model = ["土地", "出", "让", "金额"]
    assert _combined(user_dict, model) == ["土地", "出让", "金额"]
    user_dict.add(["出让金"], "combine")  # ends inside 金额: cannot form, hides nothing
    assert _combined(user_dict, model) == ["土地", "出让", "金额"]
    # a forced boundary inside a word still keeps it apart; merges never overlap
    assert _combined(user_dict, ["一", "个", "十字", "路口"], forced=[0]) == ["一", "个", "十字路口"]


def test_a_dictionary_given_a_normalizer_keeps_its_splits():
    """#61 (5): `seg.user_dict = ud` on a normalizing model (the dictionary gets the model's map) made
    each split word one forced word: 和服务 stayed whole."""
    from spacy_gdcws.data.normalize import get_normalizer

    user_dict = UserDictionary()
    user_dict.add_splits({"和服务": ["和", "服务"]})
    user_dict.add(["北京"], "force")
    user_dict.matches(numpy.array([ord(c) for c in "和服务"]))  # a snapshot before the change
    user_dict.normalizer = get_normalizer("t2s")
    codes = numpy.array([ord(c) for c in "商品和服务在北京"])
    constraints, _ = user_dict.gap_rules(codes, 0.0)
    # 商品|和|服务|在|北京: the split cuts 和|服务 (gap 2 and 3 are boundaries, 4 inside 服务 is not)
    assert constraints.tolist() == [-1, 1, 1, 0, 1, 1, 0]


def test_69_jiebas_sample_loads_whole_and_a_phrase_stays_one_token(trained_copy, tmp_path):
    """#69: jieba's own sample dictionary loaded 0 of its 10 lines (line 10, `Edu Trust认证 2000`,
    refused the file); now 10 of 10, the phrase kept as one token where the text has exactly that
    run, through a save, in `pipe` as in a call, never where the spaces differ."""
    from pathlib import Path

    nlp = trained_copy
    seg = nlp.get_pipe("gdcws_segmenter")
    assert seg.load_user_dict(Path(__file__).parents[1] / "fixtures" / "jieba_userdict.txt") == 10
    text = "Edu Trust认证是新加坡的认证"
    words = [t.text for t in nlp(text)]
    assert words[0] == "Edu Trust认证"
    assert nlp(text).text == text
    assert [t.text for t in nlp("Edu  Trust认证")][:2] != ["Edu  Trust认证"]
    assert [[t.text for t in d] for d in nlp.pipe([text, "我看Edu Trust认证"])] == [words, [t.text for t in nlp("我看Edu Trust认证")]]
    assert "Edu Trust认证" in [t.text for t in nlp("我看Edu Trust认证")]
    nlp.to_disk(tmp_path / "p")
    import spacy

    assert [t.text for t in spacy.load(tmp_path / "p")(text)] == words
