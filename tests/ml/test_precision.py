"""`ml.precision`: the precision of a model, owned whole (int8 keeps the trained lookup; every setting replaces the last)."""
from tests.util import model_config, train_model

TEXTS = ["我爱北京天安门。\n今天 天气很好", "", " ", "a", "北京\n\n大学", "２０１９年，ＡＢＣ公司。" * 3]


def train(model, sentences, steps=12, nlp=None):
    return train_model(model, sentences, steps, 0.01, nlp=nlp)


def words(nlp, texts=TEXTS):
    return [[t.text for t in doc] for doc in nlp.pipe(texts)]


def test_an_int8_quantised_tagger_keeps_the_trained_lookup(ud_sentences):
    """`ml.precision` turns the bigram projection into an int8 module without a weight
    tensor: prediction then reads the trained lookup, not the fused table."""
    from spacy_gdcws.app.precision import quantize_segmenter

    nlp, _ = train(model_config("idcnn", "crf"), ud_sentences, steps=4)
    before = words(nlp)
    quantize_segmenter(nlp)
    after = words(nlp)
    assert [doc.text for doc in nlp.pipe(TEXTS)] == TEXTS
    assert len(after) == len(before)


def _state(nlp):
    from spacy_gdcws.ml.shims import torch_shims
    from spacy_gdcws.ml.state import QUANTIZED_ATTR

    model = nlp.get_pipe("gdcws_segmenter").model
    shim = torch_shims(model)[0]
    quantized = any("quantized" in type(m).__module__ for m in shim.net.modules())
    return shim.mixed_precision, quantized, bool(model.attrs.get(QUANTIZED_ATTR))


def test_each_precision_replaces_the_last_whole(trained_nlp, tmp_path):
    """Issue #51, S12: int8 on a pipeline loaded with bf16 autocast kept autocast on; int8
    then fp32 stayed int8; bf16 then "saved" stayed bf16. Every setting now starts from
    the float module and sets the autocast too."""
    import spacy

    from spacy_gdcws.app.precision import set_precision

    trained_nlp.to_disk(tmp_path / "model")
    nlp = spacy.load(tmp_path / "model", config={"components": {"gdcws_segmenter": {"model": {"mixed_precision": True}}}})
    texts = ["我爱北京天安门。", "今天天气很好"]
    fp32 = [[t.text for t in doc] for doc in trained_nlp.pipe(texts)]
    assert _state(nlp) == (True, False, False)
    set_precision(nlp, "int8")
    assert _state(nlp) == (False, True, True)
    set_precision(nlp, "fp32")
    assert _state(nlp) == (False, False, False)
    assert [[t.text for t in doc] for doc in nlp.pipe(texts)] == fp32
    nlp.to_disk(tmp_path / "again")  # float again: it saves
    set_precision(nlp, "bf16")
    assert _state(nlp) == (True, False, False)
    set_precision(nlp, "fp32")
    set_precision(nlp, "saved")
    assert _state(nlp) == (True, False, False)  # the config's mixed_precision
    set_precision(nlp, "int8")
    set_precision(nlp, "int8")  # twice: quantised once, from the float module
    assert _state(nlp) == (False, True, True)
    set_precision(nlp, "saved")
    assert _state(nlp) == (True, False, False)
