"""`legacy`: pipelines saved by earlier versions load and give the words they gave then; the legacy architectures build the composed model."""
import json

import numpy
import pytest
import spacy

from tests.util import FIXTURES

TEXTS = ["我爱北京天安门。\n今天 天气很好", "", " ", "a", "北京\n\n大学", "２０１９年，ＡＢＣ公司。" * 3]


def words(nlp, texts=TEXTS):
    return [[t.text for t in doc] for doc in nlp.pipe(texts)]


def test_pipelines_of_the_previous_format_load_and_segment_identically():
    """tests/fixtures/legacy_gd_v2 was saved by the uncomposed GDTransformer.v2
    (research/scripts/make_legacy_fixture.py at c5cdd2a), with the words it gave then.
    The decoding of that time had no atomic units (numbers, Latin words kept
    whole): with them off, every word is the same."""
    expected = json.loads((FIXTURES / "legacy_gd_v2.json").read_text(encoding="utf8"))
    nlp = spacy.load(FIXTURES / "legacy_gd_v2", config={"components": {"gdcws_segmenter": {"atomic_units": False}}})
    assert words(nlp, expected["texts"]) == expected["words"]


@pytest.mark.parametrize("name", ["release_gd_v2", "release_idcnn"])
def test_pipelines_of_the_release_before_the_floors_give_the_same_words(name):
    """Folders saved by db135c0 (format 2: checksums, model fingerprint;
    research/scripts/make_legacy_fixture.py --release): a GDTransformer.v2, and the
    main job's kind of model (normalized characters, a general lexicon, ID-CNN, CRF)."""
    expected = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf8"))
    nlp = spacy.load(FIXTURES / name)
    assert words(nlp, expected["texts"]) == expected["words"]


def test_gd_transformer_v2_is_the_composed_model():
    """The legacy architecture builds the net the composed config builds (the same
    parameters), and with the same weights gives the same scores."""
    from spacy_gdcws.ml.shims import torch_shims
    from tests.util import small_model

    composed = small_model(layer_norm="post", dropout=0.1, embedding_dropout=0.2, attention_dropout=0.0,
                           lexicon_max_len=4)
    legacy = {"@architectures": "spacy_gdcws.GDTransformer.v2",
              **{k: v for block in ("encoder", "embed") for k, v in composed[block].items() if k != "@architectures"},
              **{k: composed[k] for k in ("window", "batch_chars", "mixed_precision")},
              "embedding_dropout": 0.2, "dropout": 0.1}
    del legacy["vectors_width"], legacy["normalize"], legacy["general_lexicon"]
    pipes = []
    for model in (composed, legacy):
        nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})
        pipes.append(nlp.add_pipe("gdcws_segmenter", config={"model": model}))
    nets = [torch_shims(pipe.model)[0].net for pipe in pipes]
    shapes = [{k: tuple(v.shape) for k, v in net.state_dict().items()} for net in nets]
    assert shapes[0] == shapes[1]
    nets[1].load_state_dict(nets[0].state_dict())
    for pipe in pipes:
        pipe.train_words = {"北京", "天安门"}
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})
    text = "我爱北京天安门。今天天气很好"
    scores = [pipe.model.predict([nlp.make_doc(text)])[0] for pipe in pipes]
    assert numpy.allclose(scores[0], scores[1])
