"""`ml.quantize`: an int8-quantised model keeps its words' lookup."""
from tests.util import model_config, train_model

TEXTS = ["我爱北京天安门。\n今天 天气很好", "", " ", "a", "北京\n\n大学", "２０１９年，ＡＢＣ公司。" * 3]


def train(model, sentences, steps=12, nlp=None):
    return train_model(model, sentences, steps, 0.01, nlp=nlp)


def words(nlp, texts=TEXTS):
    return [[t.text for t in doc] for doc in nlp.pipe(texts)]


def test_an_int8_quantised_tagger_keeps_the_trained_lookup(ud_sentences):
    """`ml.quantize` turns the bigram projection into an int8 module without a weight
    tensor: prediction then reads the trained lookup, not the fused table."""
    from spacy_gdcws.app.precision import quantize_segmenter

    nlp, _ = train(model_config("idcnn", "crf"), ud_sentences, steps=4)
    before = words(nlp)
    quantize_segmenter(nlp)
    after = words(nlp)
    assert [doc.text for doc in nlp.pipe(TEXTS)] == TEXTS
    assert len(after) == len(before)
