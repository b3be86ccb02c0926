"""The user dictionary: force and prefer words, files, serialization, the CLI."""
import subprocess
import sys
from pathlib import Path

import pytest
import spacy

from spacy_gdcws.decoding.user_dict import UserDictionary, read_user_dict

from .conftest import plain_embed

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "legacy_gd_v2"
TEXT = "小米手机发布了红米Note13和天猫精灵。"


@pytest.fixture()
def nlp():
    return spacy.load(FIXTURE)


def words(nlp, text=TEXT):
    return [t.text for t in nlp(text)]


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


def test_dictionary_is_saved_with_the_pipeline(nlp, tmp_path):
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.add_words(["小米手机"], mode="force")
    seg.add_words(["天猫精灵"], mode="prefer")
    nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp").get_pipe("gdcws_segmenter")
    assert loaded.user_dict.words == {"小米手机": "force", "天猫精灵": "prefer"}
    again = spacy.load(FIXTURE)
    again.from_bytes(nlp.to_bytes())
    assert again.get_pipe("gdcws_segmenter").user_dict.words == seg.user_dict.words
    assert "小米手机" in words(again)


def test_bad_words_and_modes_are_coded_errors(tmp_path):
    d = UserDictionary()
    with pytest.raises(ValueError, match="E045"):
        d.add(["北京"], mode="always")
    for bad in ("", "北 京", None):
        with pytest.raises(ValueError, match="E046"):
            d.add([bad])
    path = tmp_path / "dict.txt"
    path.write_text("# comment\n北京\n天安门 prefer\n\n大 学 force\n", encoding="utf8")
    with pytest.raises(ValueError, match=r"E015.*dict.txt:5"):
        read_user_dict(path)
    path.write_text("北京\n天安门 prefer\n", encoding="utf8")
    assert read_user_dict(path) == [("北京", "force"), ("天安门", "prefer")]
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
        "encoder": {"@architectures": "spacy_gdcws.BiLSTM.v1", "width": 16},
        "scorer": {"@architectures": "spacy_gdcws.CRFTagger.v1", "width": 16}}})
    nlp.config["initialize"]["components"]["segmenter"] = {"user_dict": str(path)}
    ref = Doc(nlp.vocab, words=["我", "爱", "北京"], spaces=[False] * 3)
    nlp.initialize(lambda: [Example(nlp.make_doc(ref.text), ref)])
    assert nlp.get_pipe("segmenter").user_dict.words == {"小米手机": "force"}
    assert "小米手机" in [t.text for t in nlp("买了小米手机")]


def test_segment_cli_with_a_user_dictionary(tmp_path):
    dictionary = tmp_path / "dict.txt"
    dictionary.write_text("小米手机\n天猫精灵\n", encoding="utf8")
    source = tmp_path / "in.txt"
    source.write_text(TEXT + "\n\n天猫精灵\n", encoding="utf8")
    out = tmp_path / "out.txt"
    cmd = [sys.executable, "-m", "spacy_gdcws", "segment", str(FIXTURE), str(source), str(out), "--user-dict", str(dictionary)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = out.read_text(encoding="utf8").split("\n")
    assert lines[1:] == ["", "天猫精灵", ""] and "小米手机" in lines[0].split("  ")
