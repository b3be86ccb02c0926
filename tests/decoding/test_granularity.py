"""Granularity (#47): "fine" is the model's words, "coarse" merges them into a general
lexicon's words where the model's boundaries fall at both edges of one; set on the
component, saved with the pipeline, on `segment` and `tune-decoding`."""
import pytest
import spacy

from spacy_gdcws.app.segment import set_granularity
from spacy_gdcws.decoding.decoder import Decoder
from spacy_gdcws.pipeline.lexicons import shipped_general_words
from tests.util import LEGACY_FIXTURE, run_cli

TEXT = "小米手机发布了红米Note13和天猫精灵。"


def words(nlp, text=TEXT):
    return [t.text for t in nlp(text)]


def test_coarse_merges_lexicon_words_only_between_model_boundaries(nlp):
    seg = nlp.get_pipe("gdcws_segmenter")
    fine = words(nlp)
    assert seg.granularity == "fine" and fine[:4] == ["小", "米", "手", "机"] and "米Note13" in fine
    # 小米手机 is tiled by the model's words; 红米's right edge falls inside 米Note13 (no boundary there)
    seg.general_words = {"小米手机", "手机发布", "红米", "天猫精灵"}
    assert words(nlp) == fine  # still fine: the lexicon changes nothing until asked
    seg.granularity = "coarse"
    coarse = words(nlp)
    assert "".join(coarse) == TEXT
    assert coarse[:2] == ["小米手机", "发"]  # the longest at 小, and 手机发布 overlaps it
    assert "红米" not in coarse and "米Note13" in coarse and "天猫精灵" in coarse
    # every coarse word is a run of fine words: coarse only removes boundaries
    ends = lambda ws: {sum(len(w) for w in ws[: i + 1]) for i in range(len(ws))}  # noqa: E731
    assert ends(coarse) <= ends(fine)
    seg.general_words = {"天猫"}  # a new lexicon is read at the next decode
    assert "天猫" in words(nlp) and "小米手机" not in words(nlp)


def test_coarse_never_crosses_a_forced_boundary(nlp):
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.general_words, seg.granularity = {"天猫精灵"}, "coarse"
    assert "天猫精灵" in words(nlp)
    seg.add_words(["精灵"], "force")  # its edges are forced boundaries: 天猫|精灵 stays apart
    got = words(nlp)
    assert "天猫精灵" not in got and "精灵" in got


def test_a_model_without_a_general_lexicon_reads_the_shipped_one(nlp):
    seg = nlp.get_pipe("gdcws_segmenter")
    assert not seg.general_words and "天安门" in shipped_general_words()
    assert words(nlp, "我爱北京天安门。") == ["我", "爱", "北京", "天", "安", "门", "。"]
    seg.granularity = "coarse"
    assert words(nlp, "我爱北京天安门。") == ["我", "爱", "北京", "天安门", "。"]


def test_an_unknown_granularity_is_E107(nlp):
    seg = nlp.get_pipe("gdcws_segmenter")
    with pytest.raises(ValueError, match="E107"):
        seg.granularity = "medium"
    with pytest.raises(ValueError, match="E107"):
        spacy.blank("zh").add_pipe("gdcws_segmenter", config={"granularity": "medium"})


def test_a_decoder_with_no_words_for_coarse_is_E108():
    decoder = Decoder({"threshold": 0.5}, "seg", transition_weight=0.0, tag_prior_weight=0.0,
                      bigram_prior_weight=0.0, user_dict_bonus=3.0, atomic_units=True, granularity="coarse")
    with pytest.raises(ValueError, match="E108"):
        decoder.coarse_dict()


def test_the_granularity_is_saved_with_the_pipeline(nlp, tmp_path):
    set_granularity(nlp, "coarse")
    expected = words(nlp, "我爱北京天安门。")
    nlp.to_disk(tmp_path / "coarse")
    loaded = spacy.load(tmp_path / "coarse")
    assert loaded.get_pipe("gdcws_segmenter").granularity == "coarse"
    assert words(loaded, "我爱北京天安门。") == expected and "天安门" in expected


def test_segment_granularity_option(tmp_path):
    """`segment --granularity coarse` merges; an unknown one is E107 in one line, before loading."""
    source = tmp_path / "in.txt"
    source.write_text("我爱北京天安门。\n", encoding="utf8")
    fine = run_cli("segment", LEGACY_FIXTURE, source, "-q")
    coarse = run_cli("segment", LEGACY_FIXTURE, source, "--granularity", "coarse", "-q")
    assert fine.returncode == coarse.returncode == 0
    assert "天安门" not in fine.stdout.split() and "天安门" in coarse.stdout.split()
    bad = run_cli("segment", "no-such-model", source, "--granularity", "medium")
    assert bad.returncode == 1 and "E107" in bad.stdout + bad.stderr
    assert len((bad.stdout + bad.stderr).strip().splitlines()) == 1


def test_a_coarse_pipeline_pickles(nlp):
    """A segmenter pickles (`nlp.pipe(n_process=2)`, Ray) with its granularity; the coarse table
    is built again after it."""
    import pickle

    set_granularity(nlp, "coarse")
    expected = words(nlp, "我爱北京天安门。")
    again = pickle.loads(pickle.dumps(nlp))
    assert again.get_pipe("gdcws_segmenter").granularity == "coarse" and words(again, "我爱北京天安门。") == expected
