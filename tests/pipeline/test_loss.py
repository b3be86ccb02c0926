"""`pipeline.loss`: gold gaps, BCE, the gap chain's CRF (with held-out priors) and the BMES CRF's loss."""
import numpy
import pytest
import spacy
from spacy.training import Example

from spacy_gdcws.decoding.priors import (
    tag_counts,
    tag_pmi,
    tag_potentials,
)
from spacy_gdcws.pipeline.loss import gold_gaps
from tests.util import SMALL_MODEL, make_examples, small_model


def seg_input(eg):
    """What `decoding.priors.tag_counts` needs of one example (tokens, gold labels, mask, forced gaps)."""
    from spacy_gdcws.pipeline.loss import gold_gaps
    from spacy_gdcws.pipeline.words import forced_boundaries

    labels, mask = gold_gaps(eg)
    return [t.text for t in eg.predicted], labels, mask, forced_boundaries(eg.predicted)


def test_crf_loss_gradient_matches_finite_differences(trained_copy, sxu_sentences):
    nlp = trained_copy
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.loss, seg.transition_weight, seg.tag_prior_weight = "crf", 0.5, 1.0
    eg = make_examples(nlp, sxu_sentences[4:5])[0]
    rng = numpy.random.default_rng(0)
    n = len(eg.predicted) - 1
    scores = rng.normal(0.0, 1.0, (n, 2)).astype("f")
    loss, d_scores = seg.get_loss([eg], [scores])
    grad = numpy.asarray(d_scores[0])
    for j in rng.choice(n, 5, replace=False):
        for col in (0, 1):
            up, down = scores.copy(), scores.copy()
            up[j, col] += 1e-2
            down[j, col] -= 1e-2
            numeric = (seg.get_loss([eg], [up])[0] - seg.get_loss([eg], [down])[0]) / 2e-2
            assert grad[j, col] == pytest.approx(numeric, abs=1e-3)


def test_crf_training_uses_held_out_tag_prior(sxu_sentences):
    model = small_model(**{"holdout_folds": 2})
    nlp = spacy.blank("zh")
    seg = nlp.add_pipe("gdcws_segmenter", config={"model": model, "loss": "crf", "tag_prior_weight": 1.0,
                                                   "held_out_priors": True})
    examples = make_examples(nlp, sxu_sentences[:6])
    nlp.initialize(lambda: examples)
    first = examples[0].predicted
    # a training doc of block 0 gets the prior counted on block 1 (the last 3 sentences) only
    expected = tag_counts([seg_input(eg) for eg in examples[3:]])
    index, table = tag_pmi(expected)
    tokens = lambda doc: [t.text for t in doc]  # noqa: E731
    _, pairs = seg.decoder.pair_scores(tokens(first), seg._held_out_priors(first))
    assert numpy.allclose(pairs, tag_potentials([t.text for t in first], index, table))
    # decoding, and docs that are not training docs, use all the counts
    index, table = tag_pmi(seg.cfg["tags"])
    full = tag_potentials([t.text for t in first], index, table)
    assert numpy.allclose(seg.decoder.pair_scores(tokens(first))[1], full)
    assert not numpy.allclose(pairs, full)
    other = nlp.make_doc("我爱北京天安门")
    assert numpy.allclose(seg.decoder.pair_scores(tokens(other), seg._held_out_priors(other))[1],
                          seg.decoder.pair_scores(tokens(other))[1])
    loss = nlp.update(examples[:2])["gdcws_segmenter"]
    assert numpy.isfinite(loss) and loss > 0
    # off by default: the prior of all the counts in training too
    plain = spacy.blank("zh").add_pipe("gdcws_segmenter", config={"model": model, "loss": "crf", "tag_prior_weight": 1.0})
    plain.initialize(lambda: examples)
    assert plain._held_out_priors is None


def test_gold_gaps_mask_unaligned():
    nlp = spacy.blank("zh")
    ref = spacy.tokens.Doc(nlp.vocab, words=["中国", "人民"], spaces=[False, False])
    eg = Example(nlp.make_doc("中国人民"), ref)
    labels, mask = gold_gaps(eg)
    assert labels.tolist() == [0.0, 1.0, 0.0]
    assert mask.tolist() == [True, True, True]
    # the reference lacks the space: the whitespace token is unaligned and masked
    eg = Example(nlp.make_doc("中国  人民"), ref)
    labels, mask = gold_gaps(eg)
    assert len(labels) == len(eg.predicted) - 1
    assert not mask[1] and not mask[2]


def test_loss_decreases_and_scores(trained_copy, sxu_sentences):
    nlp = trained_copy
    examples = make_examples(nlp, sxu_sentences[:5])
    seg = nlp.get_pipe("gdcws_segmenter")
    scores = seg.scores([eg.predicted for eg in examples])
    loss, grads = seg.get_loss(examples, scores)
    assert loss > 0
    assert all(g.shape == s.shape for g, s in zip(grads, scores))
    assert all(s.shape == (len(eg.predicted) - 1, 2) for s, eg in zip(scores, examples))
    result = nlp.evaluate(examples)
    for key in ("token_p", "token_r", "token_f", "token_oov_r", "token_iv_r"):
        assert key in result
    assert numpy.isfinite(loss)


def test_loss_is_stable_for_extreme_scores():
    import warnings

    nlp = spacy.blank("zh")
    seg = nlp.add_pipe("gdcws_segmenter", config={"model": SMALL_MODEL})
    ref = spacy.tokens.Doc(nlp.vocab, words=["中国", "人民"], spaces=[False, False])
    eg = Example(nlp.make_doc("中国人民"), ref)
    scores = [numpy.array([[-1000.0, 1000.0], [1000.0, -1000.0], [-1000.0, 0.0]], dtype="f")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss, (grad,) = seg.get_loss([eg], scores)
    # labels [0, 1, 0]: columns right where the score agrees, wrong where it disagrees
    assert numpy.isfinite(loss) and loss == pytest.approx((1000 + 1000 + numpy.log(2)) / 3, rel=1e-4)
    assert grad[0].tolist() == pytest.approx([0.0, 1 / 3])
    assert grad[2].tolist() == pytest.approx([0.0, 0.5 / 3])


def test_gold_gaps_read_off_arrays_agree_with_spacys_alignment(sxu_sentences, monkeypatch):
    """The array path (one-character tokens over the same text, no whitespace) gives
    what spaCy's alignment gives, and steps aside for anything else."""
    from spacy_gdcws.pipeline import loss

    nlp = spacy.blank("zh")
    examples = make_examples(nlp, sxu_sentences[:60])
    ref = spacy.tokens.Doc(nlp.vocab, words=["中国", "人民"], spaces=[True, False])
    examples.append(Example(nlp.make_doc("中国 人民"), ref))  # whitespace: aligned by spaCy
    examples.append(Example(nlp.make_doc("中国人民"), spacy.tokens.Doc(nlp.vocab, words=["中国", "人"])))
    fast = [loss._same_text_gaps(eg.predicted, eg.reference) for eg in examples[:-2]]
    assert all(f is not None for f in fast)
    assert loss._same_text_gaps(examples[-2].predicted, examples[-2].reference) is None
    assert loss._same_text_gaps(examples[-1].predicted, examples[-1].reference) is None
    monkeypatch.setattr(loss, "_same_text_gaps", lambda x, y: None)
    for eg, (labels, mask) in zip(examples, fast):
        want_labels, want_mask = gold_gaps(eg)
        assert labels.tolist() == want_labels.tolist() and mask.tolist() == want_mask.tolist()
