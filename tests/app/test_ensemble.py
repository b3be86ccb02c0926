"""`app.ensemble`: pipelines trained on the same data combined into one whose segmenter averages their scores."""
import json

import numpy
import pytest
import spacy

from spacy_gdcws.app.ensemble import build_ensemble
from spacy_gdcws.app.precision import quantize_segmenter
from spacy_gdcws.app.tuning import set_decoding
from tests.util import cli, make_examples, small_model, train_pipeline

LEXICON_MODEL = small_model(**{"lexicon_max_len": 3})


@pytest.fixture(scope="module")
def members(sxu_sentences):
    """Two segmenters trained on the same sentences for different numbers of steps."""
    return [train_pipeline(sxu_sentences[:8], n_iter=n, model=LEXICON_MODEL) for n in (3, 5)]


def _save(nlp, path):
    nlp.to_disk(path)
    return path


def test_ensemble_averages_the_members_logits(members, sxu_sentences, tmp_path):
    nlp = build_ensemble(members)
    seg = nlp.get_pipe("gdcws_segmenter")
    assert seg.model.name == "gd_ensemble" and len(seg.model.layers) == 2
    # the dictionary reaches every member
    assert len(seg.resources) == 2 and all(r.lexicon == frozenset(seg.train_words) for r in seg.resources)
    assert seg.cfg["tags"] == members[0].get_pipe("gdcws_segmenter").cfg["tags"]
    texts = ["".join(s.words) for s in sxu_sentences[8:12]] + ["我爱北京 天安门。", "", " "]
    docs = [nlp.make_doc(t) for t in texts]
    averaged = seg.scores(docs)
    each = [m.get_pipe("gdcws_segmenter").scores([m.make_doc(t) for t in texts]) for m in members]
    for i in range(len(texts)):
        assert numpy.allclose(averaged[i], (each[0][i] + each[1][i]) / 2, atol=1e-5)
    assert not numpy.allclose(each[0][0], each[1][0])
    assert seg.pair_counts is members[0].get_pipe("gdcws_segmenter").pair_counts
    set_decoding(nlp, 0.0, 0.5, bigram_prior_weight=1.0)
    expected = [[t.text for t in d] for d in nlp.pipe(texts)]
    assert [d.text for d in nlp.pipe(texts)] == texts
    # saved and loaded in a fresh pipeline: the same words
    cli("ensemble", tmp_path / "cli", *[_save(m, tmp_path / f"m{i}") for i, m in enumerate(members)])
    nlp.to_disk(tmp_path / "ens")
    loaded = spacy.load(tmp_path / "ens")
    assert loaded.get_pipe("gdcws_segmenter").tag_prior_weight == 0.5
    assert loaded.get_pipe("gdcws_segmenter").bigram_prior_weight == 1.0
    assert [[t.text for t in d] for d in loaded.pipe(texts)] == expected
    from_cli = spacy.load(tmp_path / "cli")
    assert numpy.allclose(from_cli.get_pipe("gdcws_segmenter").scores(docs[:1])[0], averaged[0], atol=1e-5)
    # int8 quantisation reaches every member
    quantize_segmenter(from_cli)
    shims = [shim for node in from_cli.get_pipe("gdcws_segmenter").model.walk() for shim in node.shims]
    assert len(shims) == 2 and all("Quantized" in repr(shim.net) or "quantized" in repr(shim.net) for shim in shims)
    assert [d.text for d in from_cli.pipe(texts)] == texts


def test_ensemble_errors(members, sxu_sentences):
    with pytest.raises(ValueError, match="E035"):
        build_ensemble(members[:1])
    other = train_pipeline(sxu_sentences[8:12], n_iter=1, model=LEXICON_MODEL)
    with pytest.raises(ValueError, match="E037"):
        build_ensemble([members[0], other])
    nlp = build_ensemble(members)
    with pytest.raises(ValueError, match="E038"):
        build_ensemble([nlp, members[0]])
    examples = make_examples(nlp, sxu_sentences[:2])
    with pytest.raises(ValueError, match="E036"):
        nlp.update(examples)
    with pytest.raises(ValueError, match="E036"):
        nlp.initialize(lambda: examples)


def test_an_ensemble_of_crf_taggers_averages_their_potentials(sxu_sentences, tmp_path):
    """Members with a CRF tagger (the closed-test recipe, docs/closed-test.md): the ensemble
    averages the 16 potentials of every character and decodes them with BMES Viterbi."""
    from tests.util import model_config

    members = [train_pipeline(sxu_sentences[:8], n_iter=n, model=model_config("idcnn", "crf")) for n in (3, 6)]
    nlp = build_ensemble(members)
    seg = nlp.get_pipe("gdcws_segmenter")
    assert seg.scores_tags
    texts = ["".join(s.words) for s in sxu_sentences[8:12]] + ["我爱北京 天安门。", "", " "]
    averaged = seg.scores([nlp.make_doc(t) for t in texts])
    each = [m.get_pipe("gdcws_segmenter").scores([m.make_doc(t) for t in texts]) for m in members]
    for i, text in enumerate(texts):
        assert averaged[i].shape == (len(nlp.make_doc(text)), 16)
        assert numpy.allclose(averaged[i], (each[0][i] + each[1][i]) / 2, atol=1e-5)
    expected = [[t.text for t in d] for d in nlp.pipe(texts)]
    assert [d.text for d in nlp.pipe(texts)] == texts
    nlp.to_disk(tmp_path / "ens")
    assert [[t.text for t in d] for d in spacy.load(tmp_path / "ens").pipe(texts)] == expected


def test_an_ensemble_keeps_the_first_members_dictionary_and_lexicon(tmp_path):
    """Issue #51, S10 and S11: the ensemble dropped the first member's user dictionary and its
    general lexicon: the main job's model with itself gave other words than alone on 45 of
    200 lines, and saved by the CLI it failed to load (E092)."""
    from tests.util import FIXTURES

    expected = json.loads((FIXTURES / "release_idcnn.json").read_text(encoding="utf8"))
    texts = expected["texts"] + ["我在小米手机公司工作"]
    model = spacy.load(FIXTURES / "release_idcnn")
    model.get_pipe("gdcws_segmenter").add_words(["小米手机"], "force")
    alone = [[t.text for t in doc] for doc in model.pipe(texts)]
    assert ["小米手机"] == [w for w in alone[-1] if w == "小米手机"]
    ensemble = build_ensemble([model, spacy.load(FIXTURES / "release_idcnn")])
    assert [[t.text for t in doc] for doc in ensemble.pipe(texts)] == alone
    ensemble.to_disk(tmp_path / "ensemble")
    assert [[t.text for t in doc] for doc in spacy.load(tmp_path / "ensemble").pipe(texts)] == alone


def test_members_that_score_differently_are_refused():
    """Issue #51, L8: a CRF tagger and a gap scorer made an ensemble that failed at the first call."""
    from tests.util import FIXTURES

    with pytest.raises(ValueError, match="E100"):
        build_ensemble([spacy.load(FIXTURES / "release_idcnn"), spacy.load(FIXTURES / "release_gd_v2")])
