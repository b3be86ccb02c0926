"""`data.normalize`: character normalization (OpenCC per character, width folding) read by the model and the decoder; words and text keep the input's characters."""
import numpy
import pytest

from spacy_gdcws.data.doc_arrays import text_batch_arrays
from spacy_gdcws.data.normalize import get_normalizer
from spacy_gdcws.readers.base import Sentence
from tests.util import plain_embed, train_model

SIMPLIFIED = [["我们", "喜欢", "台湾", "的", "计算机", "。"], ["记忆体", "很", "贵", "，", "网际网路", "很", "快", "。"],
              ["他", "在", "电视台", "工作", "，", "今年", "３０", "岁", "。"]]


# OpenCC's tw2sp converts these phrases to words of another length (記憶體 -> 内存)
TRADITIONAL = "我們喜歡臺灣的計算機。記憶體很貴，網際網路很快。"


def _model(normalize: str) -> dict:
    return {
        "@architectures": "spacy_gdcws.CharSegmenter.v1", "window": 64, "batch_chars": 4096, "mixed_precision": False,
        "embed": plain_embed(width=32, lexicon_max_len=4, ngram_vocab=True, normalize=normalize),
        "encoder": {"@architectures": "spacy_gdcws.IDCNN.v1", "width": 32},
        "scorer": {"@architectures": "spacy_gdcws.CRFTagger.v1", "width": 32},
    }


@pytest.fixture(scope="module")
def normalized_nlp():
    sentences = [Sentence(words, i + 1) for i, words in enumerate(SIMPLIFIED)]
    nlp, _ = train_model(_model("tw2sp+width"), sentences, steps=40, learn_rate=0.01)
    return nlp


def test_normalizer_keeps_length_where_opencc_phrases_change_it():
    import opencc

    assert len(opencc.OpenCC("tw2sp").convert("記憶體")) != 3  # the phrase conversion would move offsets
    normalizer = get_normalizer("tw2sp+width")
    out = normalizer.text(TRADITIONAL + "，１２３ＡＢＣ「」")
    assert len(out) == len(TRADITIONAL) + 9
    assert out.startswith("我们喜欢台湾的计算机.记忆体很贵,网际网路很快.")
    assert out.endswith(",123ABC“”")
    assert normalizer.text(" \u3000\n") == " \u3000\n"  # whitespace is never changed


def test_unknown_normalization_step_is_coded():
    with pytest.raises(ValueError, match="E086"):
        get_normalizer("t2s+nonsense")


def test_normalized_arrays_align_with_the_input():
    normalizer = get_normalizer("tw2sp+width")
    laid = text_batch_arrays([TRADITIONAL, "", " 記憶體 abc\n"])
    norm = laid.normalized(normalizer)
    assert norm is laid.normalized(normalizer)  # once per batch
    for field in ("idx", "length", "is_space", "breaks", "trailing"):
        assert numpy.array_equal(getattr(norm.arrays, field), getattr(laid.arrays, field))
    assert len(norm.arrays.text) == len(laid.arrays.text)
    expected = text_batch_arrays([normalizer.text(TRADITIONAL), "", " " + normalizer.text("記憶體") + " abc\n"])
    assert numpy.array_equal(norm.arrays.orth, expected.arrays.orth)
    assert numpy.array_equal(norm.arrays.codes, expected.arrays.codes)


def test_traditional_text_is_segmented_as_its_simplified_form(normalized_nlp):
    """What the model reads of a traditional text is its simplified form: the same
    words at the same offsets, each keeping the input's characters."""
    texts = [TRADITIONAL, "他在電視臺工作，今年３０歲。", "記憶體 很貴\n網際網路"]
    normalizer = get_normalizer("tw2sp+width")
    for text, doc, plain in zip(texts, normalized_nlp.pipe(texts), normalized_nlp.pipe([normalizer.text(t) for t in texts])):
        assert doc.text == text
        assert [(t.idx, len(t)) for t in doc] == [(t.idx, len(t)) for t in plain]
    doc = normalized_nlp(TRADITIONAL)
    assert "記憶體" in [t.text for t in doc]


def test_user_dictionary_matches_normalized_characters(normalized_nlp):
    seg = normalized_nlp.get_pipe("gdcws_segmenter")
    seg.add_words(["很貴網際"], mode="force")  # traditional word, simplified text
    try:
        words = [t.text for t in normalized_nlp("记忆体很贵网际网路")]
        assert "很贵网际" in words
        assert "很貴網際" in seg.user_dict  # kept as given
    finally:
        seg.user_dict.reset()


def test_normalization_survives_serialization(normalized_nlp, tmp_path):
    import spacy

    normalized_nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp")
    assert loaded.get_pipe("gdcws_segmenter").decoder.normalizer.spec == "tw2sp+width"
    assert [t.text for t in loaded(TRADITIONAL)] == [t.text for t in normalized_nlp(TRADITIONAL)]


def test_lexicon_holds_normalized_training_words(normalized_nlp):
    seg = normalized_nlp.get_pipe("gdcws_segmenter")
    assert "３０" in seg.train_words  # the scorer's dictionary: as written
    lexicon = seg.resources[0].lexicon
    assert "30" in lexicon and "３０" not in lexicon


def test_a_saved_pipeline_reads_its_own_table_without_opencc(normalized_nlp, tmp_path):
    """Issue #48: the map a model was trained with is saved with it and read at load: the same
    words in a process that cannot import OpenCC (before, loading built the table from OpenCC)."""
    import subprocess
    import sys

    normalized_nlp.to_disk(tmp_path / "nlp")
    texts = [TRADITIONAL, "他在電視臺工作，今年３０歲。"]
    code = f"""
import sys
sys.modules["opencc"] = None  # from here on, as if not installed
import spacy
from spacy_gdcws.data.normalize import CharNormalizer

def build(self):
    raise AssertionError("a table was built")

CharNormalizer._build = build  # loading and segmenting build none: the saved one is read
nlp = spacy.load({str(tmp_path / "nlp")!r})
print([[t.text for t in doc] for doc in nlp.pipe({texts!r})])
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert eval(run.stdout) == [[t.text for t in doc] for doc in normalized_nlp.pipe(texts)]


def test_a_saved_table_wins_over_the_installed_opencc(normalized_nlp, tmp_path):
    """What OpenCC would give now does not change what a saved model reads."""
    import spacy

    from spacy_gdcws.data.normalize import CharNormalizer
    from spacy_gdcws.ml.resources import model_normalizer

    seg = normalized_nlp.get_pipe("gdcws_segmenter")
    resources = seg.resources[0]
    saved = resources.normalizer
    source, target = saved.pairs()
    keep = source != ord("臺")  # a map without 臺 -> 台, as another OpenCC release might have
    resources.normalizer = CharNormalizer(saved.spec, (source[keep], target[keep]))
    try:
        normalized_nlp.to_disk(tmp_path / "nlp")
    finally:
        resources.normalizer = saved
    loaded = spacy.load(tmp_path / "nlp").get_pipe("gdcws_segmenter")
    assert loaded.decoder.normalizer is model_normalizer(loaded.model)
    assert loaded.decoder.user_dict.normalizer is loaded.decoder.normalizer
    assert loaded.decoder.normalizer.text("臺灣") == "臺湾" and saved.text("臺灣") == "台湾"


def test_normalizer_round_trips_and_refuses_a_damaged_table():
    import pickle

    from spacy_gdcws.data.normalize import CharNormalizer

    normalizer = get_normalizer("t2s+width")
    for copy in (CharNormalizer.from_bytes(normalizer.to_bytes()), pickle.loads(pickle.dumps(normalizer))):
        assert copy == normalizer and copy.text(TRADITIONAL) == normalizer.text(TRADITIONAL)
        assert len(copy) == len(normalizer) > 1000
    assert CharNormalizer.from_bytes(get_normalizer("").to_bytes()).text(TRADITIONAL) == TRADITIONAL
    with pytest.raises(ValueError, match="E106"):
        CharNormalizer("t2s", ([0x81FA, 0x7063], [0x53F0]))
    with pytest.raises(ValueError, match="E106"):
        CharNormalizer("t2s", ([0x81FA], [0x110001]))


def test_no_table_is_built_until_one_is_needed():
    from spacy_gdcws.data.normalize import CharNormalizer

    lazy = CharNormalizer("t2s")
    assert lazy._translation is None  # building a model or loading one does not build it
    assert lazy.text("臺") == "台" and lazy._translation is not None


def test_69_a_saved_model_loads_without_importing_opencc(tmp_path):
    """#69: OpenCC was imported when a model that carries its own table loaded (checking the spec)."""
    import subprocess
    import sys

    code = ("import sys, spacy; from spacy_gdcws.data.normalize import check_spec; check_spec('t2s+width'); "
            "print('opencc' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
