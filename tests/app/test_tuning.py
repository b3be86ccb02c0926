"""`app.tuning`: decoding weights chosen on dev, written into the pipeline's config."""
import json

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_gdcws.app.tuning import (
    gap_logits,
    score_decoding,
    set_decoding,
    tune_decoding,
)
from spacy_gdcws.readers import sentence_to_doc
from tests.util import cli, make_examples, train_pipeline


@pytest.fixture(scope="module")
def half_trained(sxu_sentences):
    """A segmenter trained a little on 12 sentences: decoding choices matter."""
    return train_pipeline(sxu_sentences[:12], n_iter=6)


def _golds(nlp, sentences):
    return [sentence_to_doc(nlp.vocab, s) for s in sentences]


def test_tune_decoding_picks_the_best_dev_pair(half_trained, sxu_sentences):
    nlp = half_trained
    seg = nlp.get_pipe("gdcws_segmenter")
    golds = _golds(nlp, sxu_sentences[12:20])
    result = tune_decoding(nlp, golds, [0.0, 2.0], [0.0, 1.0, 4.0], bigram_prior_weights=[0.0])
    grid = result["grid"]
    assert [(r["transition_weight"], r["tag_prior_weight"]) for r in grid] == [
        (0.0, 0.0), (0.0, 1.0), (0.0, 4.0), (2.0, 0.0), (2.0, 1.0), (2.0, 4.0)]
    best = result["best"]
    assert best["token_f"] == max(r["token_f"] for r in grid)
    # ties go to the pair listed first
    assert grid.index(best) == min(i for i, r in enumerate(grid) if r["token_f"] == best["token_f"])
    assert (seg.transition_weight, seg.tag_prior_weight) == (best["transition_weight"], best["tag_prior_weight"])
    # the grid's scores are what the segmenter gives with those weights
    logits = gap_logits(nlp, [g.text for g in golds])
    for row in grid:
        seg.transition_weight, seg.tag_prior_weight = row["transition_weight"], row["tag_prior_weight"]
        assert score_decoding(nlp, seg, golds, logits)["token_f"] == row["token_f"]
    assert len({r["token_f"] for r in grid}) > 1  # the weights change this model's words


def test_tune_decoding_with_a_bigram_prior_grid(half_trained, sxu_sentences):
    nlp = half_trained
    seg = nlp.get_pipe("gdcws_segmenter")
    golds = _golds(nlp, sxu_sentences[12:20])
    result = tune_decoding(nlp, golds, [0.0, 1.0], [0.0], bigram_prior_weights=[0.0, 1.0, 4.0])
    grid = result["grid"]
    assert [(r["transition_weight"], r["bigram_prior_weight"]) for r in grid] == [
        (0.0, 0.0), (0.0, 1.0), (0.0, 4.0), (1.0, 0.0), (1.0, 1.0), (1.0, 4.0)]
    best = result["best"]
    assert seg.bigram_prior_weight == best["bigram_prior_weight"]
    assert nlp.get_pipe_config("gdcws_segmenter")["bigram_prior_weight"] == best["bigram_prior_weight"]
    logits = gap_logits(nlp, [g.text for g in golds])
    for row in grid:
        seg.transition_weight, seg.bigram_prior_weight = row["transition_weight"], row["bigram_prior_weight"]
        assert score_decoding(nlp, seg, golds, logits)["token_f"] == row["token_f"]
    assert len({r["token_f"] for r in grid if r["transition_weight"] == 0.0}) > 1
    with pytest.raises(ValueError, match="E030"):
        tune_decoding(nlp, golds, [0.0], [0.0], bigram_prior_weights=[-1.0])
    # the default grid tries it too
    default = tune_decoding(nlp, golds, [0.0], [0.0])["grid"]
    assert [r["bigram_prior_weight"] for r in default] == [0.0, 0.5, 1.0, 2.0]
    set_decoding(nlp, 0.0, 0.0)
    assert seg.bigram_prior_weight == 0.0


def test_chosen_weights_are_saved_with_the_pipeline(half_trained, tmp_path):
    nlp = half_trained
    set_decoding(nlp, 0.5, 0.75, bigram_prior_weight=1.5)
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    seg = loaded.get_pipe("gdcws_segmenter")
    assert (seg.transition_weight, seg.tag_prior_weight, seg.bigram_prior_weight) == (0.5, 0.75, 1.5)
    assert loaded.config["components"]["gdcws_segmenter"]["tag_prior_weight"] == 0.75
    text = "我爱北京天安门。"
    assert [t.text for t in loaded(text)] == [t.text for t in nlp(text)]
    set_decoding(nlp, 0.0, 0.0)


def test_tune_decoding_errors(half_trained, sxu_sentences):
    nlp = half_trained
    golds = _golds(nlp, sxu_sentences[12:14])
    with pytest.raises(ValueError, match="E032"):
        tune_decoding(nlp, [])
    with pytest.raises(ValueError, match="E033"):
        tune_decoding(nlp, golds, [], [0.0])
    with pytest.raises(ValueError, match="E030"):
        tune_decoding(nlp, golds, [0.0], [0.0, -1.0])
    with pytest.raises(ValueError, match="E024"):
        tune_decoding(nlp, golds, segmenter="parser")
    set_decoding(nlp, 0.0, 0.0)


def test_tune_decoding_records_counts_for_old_pipelines(half_trained, sxu_sentences):
    nlp = half_trained
    seg = nlp.get_pipe("gdcws_segmenter")
    saved = dict(seg.cfg)
    saved_pairs = seg.pair_counts.to_bytes()
    del seg.cfg["tags"], seg.cfg["transitions"]
    seg.pair_counts = None
    golds = _golds(nlp, sxu_sentences[12:16])
    # without the counts: E031 before the model runs, for the first prior that lacks them
    with pytest.raises(ValueError, match="E031.*'tags'"):
        tune_decoding(nlp, golds, [0.0], [0.0, 1.0], bigram_prior_weights=[0.0])
    with pytest.raises(ValueError, match="E031.*'pairs'"):
        tune_decoding(nlp, golds, [0.0], [0.0])
    assert len(tune_decoding(nlp, golds, [0.0], [0.0], bigram_prior_weights=[0.0])["grid"]) == 1
    result = tune_decoding(nlp, golds, [0.0, 1.0], [0.0, 1.0], train=make_examples(nlp, sxu_sentences[:12]))
    assert len(result["grid"]) == 16
    assert seg.cfg["tags"] == saved["tags"] and seg.cfg["transitions"] == saved["transitions"]
    assert seg.pair_counts.to_bytes() == saved_pairs
    set_decoding(nlp, 0.0, 0.0)


def test_tune_decoding_cli(half_trained, sxu_sentences, tmp_path):
    nlp = half_trained
    nlp.to_disk(tmp_path / "model")
    dev = DocBin(docs=_golds(nlp, sxu_sentences[12:20]))
    dev.to_disk(tmp_path / "dev.spacy")
    out = cli("tune-decoding", tmp_path / "model", tmp_path / "dev.spacy", tmp_path / "new" / "tuned",
              "--transition-weights", "0,1", "--tag-prior-weights", "0,0.5,2", "--bigram-prior-weights", "0,2",
              "--report", tmp_path / "r.json", "--granularity", "coarse")
    report = json.loads((tmp_path / "r.json").read_text())
    assert len(report["grid"]) == 12 and "transition_weight" in out
    best = report["best"]
    seg = spacy.load(tmp_path / "new" / "tuned").get_pipe("gdcws_segmenter")
    assert (seg.transition_weight, seg.tag_prior_weight, seg.bigram_prior_weight) == (
        best["transition_weight"], best["tag_prior_weight"], best["bigram_prior_weight"])
    assert best["token_f"] == max(r["token_f"] for r in report["grid"])
    assert seg.granularity == "coarse"  # saved with the pipeline (#47); the weights chosen on fine words
