"""`decoding.dictionary_files`: user dictionary files in the formats users have; a line in none
of them is a coded error naming file and line, never a half-read word.

Cases S7, S8, S9, L7 and L10 of issue #51 (each loaded the wrong words, or failed late, at
db135c0)."""
import codecs

import pytest

from spacy_gdcws.decoding.dictionary_files import read_user_dict
from spacy_gdcws.decoding.user_dict import MAX_FREQ, UserDictionary


def _read(tmp_path, text, **kwargs):
    path = tmp_path / "dict.txt"
    path.write_text(text, encoding="utf8")
    return read_user_dict(path, **kwargs)


@pytest.mark.parametrize("line", ["上海 prefered", "广州 split", "   12 北京", "北京 ns ns", "北京 5 n 6"])
def test_a_line_in_no_format_is_refused_with_its_line_when_strict(tmp_path, line):
    """S7: any identifier after a word was taken as a pkuseg tag and dropped (`北京 上海` loaded 北京,
    `   12 北京` loaded the word 12). Strict: the file is refused at the line."""
    with pytest.raises(ValueError, match=r"E015.*dict.txt:2:"):
        _read(tmp_path, f"天安门\n{line}\n", strict=True)


@pytest.mark.parametrize("line", ["上海 prefered", "   12 北京", "北京 ns ns"])
def test_69_a_bad_line_is_left_out_with_a_warning_and_the_rest_loads(tmp_path, line):
    """#69: as jieba reads a dictionary, a bad line does not refuse the file: a warning names file and
    line (W002), another counts them (W003), and every other line loads."""
    with pytest.warns(UserWarning) as record:
        entries = _read(tmp_path, f"天安门\n{line}\n故宫 5\n")
    assert [e[0] for e in entries] == ["天安门", "故宫"]
    messages = [str(w.message) for w in record]
    assert any("W002" in m and "dict.txt:2" in m for m in messages) and any("W003" in m and "1 of 3" in m
                                                                             for m in messages)


@pytest.mark.parametrize("line,expected", [("北京 Prefer", ("北京", "prefer", None)),
                                           ("深圳 COMBINE", ("深圳", "combine", None)),
                                           ("北京\tPrefer", ("北京", "prefer", None)),
                                           ("北京 PREFER 5", ("北京", "prefer", 5)),
                                           ("北京 上海", ("北京 上海", "force", None)),
                                           ("New York 20", ("New York", "force", 20))])
def test_69_modes_in_any_case_and_words_with_spaces(tmp_path, line, expected):
    """#69 (7): `北京<TAB>Prefer` and `北京 PREFER 5` loaded as force; jieba's grammar reads the fields
    before a frequency and a tag as one word (`New York 20`: a phrase, kept whole in the text)."""
    assert _read(tmp_path, line + "\n", strict=True) == [expected]


def test_each_format_reads_its_fields(tmp_path):
    text = ("北京\n天安门 prefer\n云计算 5 n\n区块链 3.0\n印象笔记 nz 1024 v 10\n小米手机\tnz\n"
            "# a comment\n\n故宫 combine\n")
    assert _read(tmp_path, text) == [
        ("北京", "force", None), ("天安门", "prefer", None), ("云计算", "force", 5), ("区块链", "force", 3),
        ("印象笔记", "force", 1034), ("小米手机", "force", None), ("故宫", "combine", None)]


def test_a_word_listed_twice_takes_its_last_line(tmp_path):
    """S8: `上海 prefer`, `北京 force`, `北京 prefer` left 北京 force (the modes were added in the
    order they first appeared)."""
    from spacy_gdcws.decoding.dictionary_files import load_user_dict

    path = tmp_path / "dict.txt"
    path.write_text("上海 prefer\n北京 force\n北京 prefer\n上海 5\n", encoding="utf8")
    assert read_user_dict(path) == [("北京", "prefer", None), ("上海", "force", 5)]
    d = UserDictionary()
    assert load_user_dict(d, path) == 2
    assert d.words == {"北京": "prefer", "上海": "force"} and d.freqs == {"上海": 5}


def test_a_byte_order_mark_may_start_any_line(tmp_path):
    """S9: two files concatenated put a BOM inside the file, and it became part of a word."""
    path = tmp_path / "dict.txt"
    path.write_bytes(codecs.BOM_UTF8 + "北京\n".encode() + codecs.BOM_UTF8 + "故宫 prefer\n".encode())
    assert read_user_dict(path) == [("北京", "force", None), ("故宫", "prefer", None)]


def test_a_frequency_beyond_64_bits_is_refused_at_its_line(tmp_path):
    """L7: a 23-digit jieba frequency loaded, then to_disk / to_bytes raised OverflowError."""
    with pytest.raises(ValueError, match=r"E015.*dict.txt:1:.*E096"):
        _read(tmp_path, "北京 12345678901234567890123\n", strict=True)
    assert _read(tmp_path, f"北京 {MAX_FREQ}\n") == [("北京", "force", MAX_FREQ)]
    with pytest.raises(ValueError, match="E096"):
        UserDictionary().add(["北京"], "force", {"北京": MAX_FREQ + 1})


@pytest.mark.parametrize("encoding", ["gbk", "gb18030", "utf-16"])
def test_other_encodings_load_when_named_or_marked(tmp_path, encoding):
    path = tmp_path / "dict.txt"
    path.write_bytes("北京 5 ns\n天安门 prefer\n".encode(encoding))
    want = [("北京", "force", 5), ("天安门", "prefer", None)]
    if encoding == "utf-16":  # its byte-order mark says so
        assert read_user_dict(path) == want
    else:
        with pytest.raises(ValueError, match=r"E015.*dict.txt:1:.*encoding"):
            read_user_dict(path)
        assert read_user_dict(path, encoding=encoding) == want


def test_an_unknown_encoding_is_a_coded_error(tmp_path):
    with pytest.raises(ValueError, match="E016.*unknown encoding"):
        _read(tmp_path, "北京\n", encoding="no-such-codec")


@pytest.mark.parametrize("row,code", [
    (["北京", "Force"], "E045"), (["", "force"], "E046"), (["北  京", "force"], "E046"), (["北\t京", "force"], "E046"),
    (["和服务", "split", ["和", "服"]], "E084"), (["和服务", "split"], "E098"), (["北京"], "E098"),
    (["北京", "force", 10**20], "E096"), ("北京", "E098")])
def test_saved_rows_are_checked_on_load(row, code):
    """L10: a saved row with the mode `Force` raised KeyError, an empty word IndexError; a word
    with a space, or a split whose parts do not spell it, were accepted."""
    with pytest.raises(ValueError, match=f"E095.*user_dict.json: row 1.*{code}"):
        UserDictionary.from_list([["天安门", "force"], row], source="user_dict.json")


# jieba's sample user dictionary (tests/fixtures/jieba_userdict.txt) line by line: the entry read, or
# the coded error (jieba's grammar reads `Edu Trust认证` as one word, which holds a space: a word here
# never does, whitespace is always a boundary)
JIEBA_SAMPLE = [
    ("云计算", "force", 5), ("李小福", "force", 2), ("创新办", "force", 3), ("easy_install", "force", 3),
    ("好用", "force", 300), ("韩玉赏鉴", "force", 3), ("八一双鹿", "force", 3), ("台中", "force", None),
    ("凱特琳", "force", None), ("Edu Trust认证", "force", 2000),
]


def test_jiebas_own_sample_file_line_by_line():
    """#61 (6): `凱特琳 nz` (a word and a tag) was refused with E015, and `Edu Trust认证 2000` read as
    the word `Edu` with frequency 2000; #69: it is the phrase `Edu Trust认证`, as jieba reads it."""
    from pathlib import Path

    from spacy_gdcws.decoding.dictionary_files import parse_line

    lines = (Path(__file__).parents[1] / "fixtures" / "jieba_userdict.txt").read_text(encoding="utf8").splitlines()
    assert len(lines) == len(JIEBA_SAMPLE)
    for line, expected in zip(lines, JIEBA_SAMPLE):
        if isinstance(expected, tuple):
            assert tuple(parse_line(line, "force"))[:3] == expected, line
        else:
            with pytest.raises(ValueError, match=expected):
                parse_line(line, "force")


@pytest.mark.parametrize("line", ["北京\tprefer", "北京 prefer 5", "北京 5 prefer", "北京 prefer"])
def test_a_mode_beside_a_frequency_or_after_a_tab_is_the_mode(tmp_path, line):
    """#61 (6): these three loaded as force."""
    entry = _read(tmp_path, line + "\n")[0]
    assert entry[:2] == ("北京", "prefer") and entry[2] in (None, 5)


def test_a_file_with_a_word_holding_a_space_loads_it_as_a_phrase(tmp_path):
    """#69: jieba's own sample file (`Edu Trust认证 2000`): a phrase and its frequency."""
    assert _read(tmp_path, "云计算 5\nEdu Trust认证 2000\n", strict=True) == [("云计算", "force", 5),
                                                                             ("Edu Trust认证", "force", 2000)]
