"""`decoding`: the priors (transitions, tags, character pairs), their chain and its Viterbi, and the segmenter's decoding weights."""
import itertools

import numpy
import pytest
import spacy

from spacy_gdcws.data.bmes import PRIOR_TAGS
from spacy_gdcws.decoding.chain import chain_marginals
from spacy_gdcws.decoding.priors import (
    PairCounts,
    PairTally,
    TagTally,
    gap_keys,
    tag_counts,
    tag_pmi,
    tag_potentials,
    transition_counts,
    transition_log_probs,
)
from tests.decoding.reference import viterbi
from tests.util import (
    LEGACY_FIXTURE,
    SMALL_MODEL,
    SXU_TEST,
    make_examples,
    train_pipeline,
)


def _best_by_enumeration(logits, log_trans, weight, forced, pairs=None):
    """The highest-scoring labelling, by trying all of them; with `pairs`, plus
    the tag scores of every token (the doc's edges are boundaries)."""
    best, best_score = None, -numpy.inf
    for labels in itertools.product([0, 1], repeat=len(logits)):
        if any(f and not y for f, y in zip(forced, labels)):
            continue
        score = sum(-numpy.logaddexp(0.0, -l) if y else -numpy.logaddexp(0.0, l) for l, y in zip(logits, labels))
        score += weight * sum(log_trans[a, b] for a, b in zip(labels[:-1], labels[1:]))
        if pairs is not None:
            around = (1,) + labels + (1,)
            score += sum(pairs[j][around[j], around[j + 1]] for j in range(len(logits) + 1))
        if score > best_score:
            best, best_score = labels, score
    return [bool(y) for y in best]


def _words(doc, boundaries):
    out, start = [], 0
    for j, end in enumerate(list(boundaries) + [True]):
        if end:
            out.append(doc[start : j + 1].text)
            start = j + 1
    return out


def _pairs_of(counts, level):
    """{text: [boundaries, occurrences]} of one level of PairCounts, keys decoded."""
    out = {}
    for key, e, n in zip(counts.keys[level].tolist(), counts.ends[level].tolist(), counts.seen[level].tolist()):
        chars = [(key >> shift) & 0x1FFFFF for shift in ((42, 21, 0) if level else (21, 0))]
        out["".join("^" if c == 0x110000 else "$" if c == 0x110001 else chr(c) for c in chars
                    if level or c)] = [e, n]
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("with_tags", [False, True])
def test_viterbi_finds_the_best_labelling(seed, with_tags):
    rng = numpy.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    logits = rng.normal(0.0, 2.0, n)
    log_trans = transition_log_probs(rng.integers(0, 50, (2, 2)))
    forced = rng.random(n) < 0.2
    pairs = rng.normal(0.0, 1.5, (n + 1, 2, 2)) if with_tags else None
    for weight in (0.0, 0.7, 3.0):
        got = viterbi(logits, log_trans, weight, forced, pairs).tolist()
        assert got == _best_by_enumeration(logits, log_trans, weight, forced, pairs)
    # weight 0 is greedy decoding; zero tag scores change nothing
    assert viterbi(logits, log_trans, 0.0).tolist() == (logits > 0).tolist()
    assert viterbi(logits, log_trans, 0.7, forced, numpy.zeros((n + 1, 2, 2))).tolist() == \
        viterbi(logits, log_trans, 0.7, forced).tolist()


@pytest.mark.parametrize("seed", range(5))
def test_chain_marginals_match_enumeration(seed):
    rng = numpy.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    logits = rng.normal(0.0, 2.0, n)
    log_trans = transition_log_probs(rng.integers(0, 50, (2, 2)))
    pairs = rng.normal(0.0, 1.0, (n + 1, 2, 2))
    clamp = rng.choice([-1, -1, 0, 1], n)
    weight = 0.8
    scores, ones = [], []
    for labels in itertools.product([0, 1], repeat=n):
        if any(c >= 0 and c != y for c, y in zip(clamp, labels)):
            continue
        around = (1,) + labels + (1,)
        score = sum(l for l, y in zip(logits, labels) if y)
        score += weight * sum(log_trans[a, b] for a, b in zip(labels[:-1], labels[1:]))
        score += sum(pairs[j][around[j], around[j + 1]] for j in range(n + 1))
        scores.append(score)
        ones.append(labels)
    log_z, marginals = chain_marginals(logits, log_trans, weight, clamp, pairs)
    expected_z = numpy.logaddexp.reduce(scores)
    probs = numpy.exp(numpy.asarray(scores) - expected_z)
    assert log_z == pytest.approx(expected_z)
    assert numpy.allclose(marginals, probs @ numpy.asarray(ones, dtype=float))
    # the most probable labelling is the Viterbi path
    best = ones[int(numpy.argmax(scores))]
    if not (clamp == 0).any():  # viterbi can force boundaries, not their absence
        assert viterbi(logits, log_trans, weight, clamp == 1, pairs).tolist() == [bool(y) for y in best]


def test_transitions_count_masked_gap_pairs_only():
    labels = numpy.array([0, 1, 0, 1, 1], dtype="f")
    mask = numpy.array([True, True, True, False, True])
    counts = transition_counts([(labels, mask), (numpy.zeros(1, "f"), numpy.ones(1, bool))])
    # pairs (0,1), (1,0) count; (0,1) and (1,1) touch the masked gap 3
    assert counts.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    probs = numpy.exp(transition_log_probs(counts))
    assert numpy.allclose(probs.sum(axis=1), 1.0) and probs[0, 1] == pytest.approx(2 / 3)
    assert viterbi(numpy.zeros(0), transition_log_probs(counts), 1.0).tolist() == []


def test_segmenter_decodes_with_transitions(sxu_sentences, tmp_path):
    nlp = train_pipeline(sxu_sentences[:6], n_iter=3)
    seg = nlp.get_pipe("gdcws_segmenter")
    counts = numpy.asarray(seg.cfg["transitions"])
    assert counts.shape == (2, 2) and counts.sum() > 50
    text = "".join(sxu_sentences[7].words) + " 我爱北京天安门。"
    greedy = [t.text for t in nlp(text)]
    seg.transition_weight = 50.0
    doc = nlp(text)
    assert doc.text == text
    logits = seg.scores([nlp.make_doc(text)])[0][:, 0]
    chars = nlp.make_doc(text)
    from spacy_gdcws.pipeline.words import forced_boundaries

    expected = viterbi(logits, transition_log_probs(counts), 50.0, forced_boundaries(chars))
    assert [t.text for t in doc] == _words(chars, expected)
    assert [t.text for t in doc] != greedy  # a heavy prior changes this untrained model's words
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p", config={"components": {"gdcws_segmenter": {"transition_weight": 50.0}}})
    assert loaded.get_pipe("gdcws_segmenter").cfg["transitions"] == seg.cfg["transitions"]
    assert [t.text for t in loaded(text)] == [t.text for t in doc]
    # the weight set on the live segmenter is saved with it (#61)
    assert [t.text for t in spacy.load(tmp_path / "p")(text)] == [t.text for t in doc]
    off = spacy.load(tmp_path / "p")
    off.get_pipe("gdcws_segmenter").transition_weight = 0.0
    assert [t.text for t in off(text)] == greedy


def test_transition_weight_errors(trained_copy, sxu_sentences):
    nlp = spacy.blank("zh")
    with pytest.raises(ValueError, match="E030"):
        nlp.add_pipe("gdcws_segmenter", config={"model": SMALL_MODEL, "transition_weight": -1.0})
    nlp = trained_copy
    seg = nlp.get_pipe("gdcws_segmenter")
    del seg.cfg["transitions"]
    seg.transition_weight = 1.0
    with pytest.raises(ValueError, match="E031"):
        nlp("我爱北京天安门")
    seg.record_transitions([])
    assert seg.cfg["transitions"] == [[0.0, 0.0], [0.0, 0.0]]
    assert nlp("我爱北京").text == "我爱北京"  # no counts: uniform transitions, still decodes
    seg.record_transitions(make_examples(nlp, sxu_sentences[:2]))
    assert sum(map(sum, seg.cfg["transitions"])) > 10


def test_tag_counts_and_pmi():
    # 我 | 爱 | 北京 ␠ 天安门 : gap 3 (京|␠) and 4 (␠|天) are forced, gap 5 (天|安) is masked
    tokens = ["我", "爱", "北", "京", " ", "天", "安", "门"]
    labels = numpy.array([1, 1, 0, 1, 1, 0, 0], dtype="f")
    mask = numpy.array([True, True, True, False, False, False, True])
    forced = numpy.array([False, False, False, True, True, False, False])
    counts = tag_counts([(tokens, labels, mask, forced), (["我"], numpy.zeros(0, "f"), numpy.zeros(0, bool), numpy.zeros(0, bool))])
    # PRIOR_TAGS order: M, E, B, S; 天 and 安 touch the masked gap, the space is never counted
    assert counts == {"我": [0, 0, 0, 2], "爱": [0, 0, 0, 1], "北": [0, 0, 1, 0], "京": [0, 1, 0, 0], "门": [0, 1, 0, 0]}
    assert PRIOR_TAGS == ("M", "E", "B", "S")
    index, table = tag_pmi({"中": [0, 40, 40, 0], "的": [0, 0, 0, 90], "了": [5, 5, 5, 5]})
    zhong, de, unknown = table[index["中"]], table[index["的"]], table[-1]
    # a character that begins or ends words keeps exactly one of its gaps; a single-character
    # word keeps both; independent gaps add nothing
    assert zhong[1, 0] > 0 and zhong[0, 1] > 0 and zhong[1, 1] < 0 and zhong[0, 0] < 0
    assert de[1, 1] > 0 and de[1, 0] < 0
    assert numpy.allclose(tag_pmi({"了": [5, 5, 5, 5]}, smoothing=0.0)[1][0], 0.0)
    assert table.shape == (4, 2, 2) and numpy.allclose(tag_pmi({})[1], 0.0)
    pots = tag_potentials(["中", "x"], index, table)
    assert pots.shape == (2, 2, 2) and numpy.array_equal(pots[0], zhong) and numpy.array_equal(pots[1], unknown)
    assert tag_potentials([], index, table).shape == (0, 2, 2)


def test_tag_tally_holds_out_each_block():
    docs = [(list("我爱北京"), numpy.array([1, 1, 0], "f"), numpy.ones(3, bool), numpy.zeros(3, bool)),
            (list("北京大学"), numpy.array([0, 1, 0], "f"), numpy.ones(3, bool), numpy.zeros(3, bool)),
            (list("我"), numpy.zeros(0, "f"), numpy.zeros(0, bool), numpy.zeros(0, bool))]
    tally = TagTally()
    for doc in docs:
        tally.add(*doc)
    assert len(tally) == 3 and tally.counts() == tag_counts(docs)
    held_out = tally.held_out([0, 1, 0], 2)
    assert held_out[0] == tag_counts(docs[1:2])  # without block 0: 大学 and the second 北京 only
    assert held_out[1] == tag_counts(docs[0:1] + docs[2:])
    assert "爱" not in held_out[0] and held_out[1]["我"] == [0, 0, 0, 2]
    assert TagTally().held_out([], 3) == [{}, {}, {}]


def test_segmenter_decodes_with_tag_prior(sxu_sentences, tmp_path):
    from spacy_gdcws.pipeline.words import forced_boundaries

    nlp = train_pipeline(sxu_sentences[:6], n_iter=3)
    seg = nlp.get_pipe("gdcws_segmenter")
    tags = seg.cfg["tags"]
    assert len(tags) > 50 and all(len(row) == 4 for row in tags.values())
    text = "".join(sxu_sentences[7].words) + " 我爱北京天安门。"
    chars = nlp.make_doc(text)
    logits = seg.scores([chars])[0][:, 0]
    seg.tag_prior_weight = 5.0
    doc = nlp(text)
    assert doc.text == text
    index, table = tag_pmi(tags)
    expected = viterbi(logits, numpy.zeros((2, 2)), 0.0, forced_boundaries(chars),
                       5.0 * tag_potentials([t.text for t in chars], index, table))
    assert [t.text for t in doc] == _words(chars, expected)
    # the priors are computed once and again only when the counts change
    assert seg.decoder._priors["tags"][0] is seg.cfg["tags"]
    seg.record_transitions(make_examples(nlp, sxu_sentences[:1]))
    assert len(seg.cfg["tags"]) < len(tags)
    nlp(text)
    assert seg.decoder._priors["tags"][0] is seg.cfg["tags"]
    seg.record_transitions(make_examples(nlp, sxu_sentences[:6]))
    assert seg.cfg["tags"] == tags
    assert [t.text for t in nlp(text)] == [t.text for t in doc]
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p", config={"components": {"gdcws_segmenter": {"tag_prior_weight": 5.0}}})
    assert loaded.get_pipe("gdcws_segmenter").cfg["tags"] == tags
    assert [t.text for t in loaded(text)] == [t.text for t in doc]
    with pytest.raises(ValueError, match="E030"):
        seg.tag_prior_weight = -0.5
    del seg.cfg["tags"]
    with pytest.raises(ValueError, match="E031"):
        nlp(text)
    seg.tag_prior_weight = 0.0
    assert nlp(text).text == text


def test_pair_counts_and_log_odds():
    # 我 | 爱 | 北京 ␠ 天安门 : gaps 3 and 4 are next to the space (masked), gap 5 (天|安) is masked
    tokens = ["我", "爱", "北", "京", " ", "天", "安", "门"]
    labels = numpy.asarray([1, 1, 0, 1, 1, 0, 0], dtype="f")
    mask = numpy.asarray([1, 1, 1, 0, 0, 0, 1], dtype=bool)
    tally = PairTally()
    tally.add(tokens, labels, mask)
    tally.add(["我", "爱", "你", "们"], numpy.asarray([0, 1, 0], dtype="f"), numpy.ones(3, dtype=bool))
    counts = tally.counts()
    assert _pairs_of(counts, 0) == {"北京": [0, 1], "我爱": [1, 2], "爱你": [1, 1], "爱北": [1, 1], "安门": [0, 1],
                                    "你们": [0, 1]}
    # windows only around the pair seen both ways
    assert _pairs_of(counts, 1) == {"^我爱": [1, 2]}
    assert _pairs_of(counts, 2) == {"我爱北": [1, 1], "我爱你": [0, 1]}
    rate = 3 / 7
    assert counts.rate == pytest.approx(rate) and len(counts) == 6
    centre = numpy.log(rate / (1 - rate))

    def logit(p):
        return numpy.log(p / (1 - p)) - centre

    p_pair = (1 + rate) / (2 + 1)  # 我爱: one boundary in two, one pseudo-count at the overall rate
    got = counts.log_odds(["他", "我", "爱", "北", "京", " ", "门"])
    assert got.tolist() == pytest.approx([
        0.0,  # 他我: not a training pair
        logit(0.5 * (p_pair + (1 + p_pair) / 2)),  # window before (他我爱) unseen, after (我爱北) one boundary
        logit((1 + rate) / 2),  # 爱北: a pure pair, no windows
        logit(rate / 2),  # 北京
        0.0, 0.0])  # whitespace
    # more pseudo-counts pull every gap towards the overall rate, i.e. towards 0
    assert numpy.abs(counts.log_odds(["我", "爱", "北"], smoothing=100.0)).max() < 0.05
    assert counts.log_odds(["我"]).shape == (0,) and gap_keys(["我"])[0].shape == (0,)
    # saved and loaded: the same
    again = PairCounts.from_bytes(counts.to_bytes())
    assert again.log_odds(tokens).tolist() == counts.log_odds(tokens).tolist()
    # no data, or no boundary ever: no prior
    assert PairTally().counts().log_odds(tokens).tolist() == [0.0] * 7
    pure = PairTally()
    pure.add(["我", "爱"], numpy.ones(1, dtype="f"), numpy.ones(1, dtype=bool))
    assert pure.counts().log_odds(["我", "爱"]).tolist() == [0.0]


def test_gap_keys_mark_the_edges_and_long_tokens():
    pair, before, after = gap_keys(["我", "爱", "  ", "北"])
    assert pair[0] == (ord("我") << 21) | ord("爱")
    assert before[0] >> 42 == 0x110000 and after[-1] & 0x1FFFFF == 0x110001
    assert (pair[1] & 0x1FFFFF) == 0x110002 and (pair[2] >> 21) == 0x110002


def test_segmenter_decodes_with_bigram_prior(sxu_sentences, tmp_path):
    from spacy_gdcws.pipeline.words import forced_boundaries

    nlp = train_pipeline(sxu_sentences[:6], n_iter=3)
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.atomic_units = False  # the expected words below come from the scores alone
    counts = seg.pair_counts
    assert len(counts) > 100 and all((e <= n).all() for e, n in zip(counts.ends, counts.seen))
    assert counts.seen[0].sum() == sum(len("".join(s.words)) - 1 for s in sxu_sentences[:6])
    # training sentences (their pairs are counted), then new text
    text = " ".join("".join(sent.words) for sent in sxu_sentences[:4]) + " 我爱北京天安门。"
    chars = nlp.make_doc(text)
    tokens = [t.text for t in chars]
    logits = seg.scores([chars])[0][:, 0] - seg.decoder.threshold_logit
    greedy = [t.text for t in nlp(text)]
    seg.bigram_prior_weight = 5.0
    doc = nlp(text)
    assert doc.text == text
    shifted = logits + 5.0 * counts.log_odds(tokens)
    assert [t.text for t in doc] == _words(chars, (shifted > 0) | forced_boundaries(chars))
    assert [t.text for t in doc] != greedy  # a heavy prior changes this untrained model's words
    # with Viterbi: the shifted logits go to the Viterbi path
    seg.transition_weight = 1.0
    expected = viterbi(shifted, transition_log_probs(numpy.asarray(seg.cfg["transitions"])), 1.0,
                       forced_boundaries(chars))
    assert [t.text for t in nlp(text)] == _words(chars, expected)
    seg.transition_weight = 0.0
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p", config={"components": {"gdcws_segmenter": {"bigram_prior_weight": 5.0,
                                                                                     "atomic_units": False}}})
    assert loaded.get_pipe("gdcws_segmenter").pair_counts.to_bytes() == counts.to_bytes()
    assert (tmp_path / "p" / "gdcws_segmenter" / "pairs").exists()
    from_bytes = spacy.blank("zh")
    from_bytes.add_pipe("gdcws_segmenter", config={"model": SMALL_MODEL})
    from_bytes.from_bytes(nlp.to_bytes())
    assert from_bytes.get_pipe("gdcws_segmenter").pair_counts.to_bytes() == counts.to_bytes()
    assert [t.text for t in loaded(text)] == [t.text for t in doc]
    # the weight and atomic_units set on the live segmenter are saved with it (#61)
    assert [t.text for t in spacy.load(tmp_path / "p")(text)] == [t.text for t in doc]
    off = spacy.load(tmp_path / "p")
    off.get_pipe("gdcws_segmenter").bigram_prior_weight = 0.0
    assert [t.text for t in off(text)] == greedy
    with pytest.raises(ValueError, match="E030"):
        seg.bigram_prior_weight = -1.0
    seg.pair_counts = None
    with pytest.raises(ValueError, match="E031.*'pairs'"):
        nlp(text)
    seg.record_transitions(make_examples(nlp, sxu_sentences[:6]))
    assert seg.pair_counts.to_bytes() == counts.to_bytes()
    seg.bigram_prior_weight = 0.0
    assert [t.text for t in nlp(text)] == greedy


def test_batched_tag_chain_viterbi_equals_the_gap_viterbi():
    """`batch_viterbi` over BMES tag potentials decodes a whole batch in torch; each doc's
    labelling is `viterbi`'s (transitions, tag scores and forced gaps included)."""
    from spacy_gdcws.decoding.chain import tag_chain_emissions
    from tests.decoding.reference import batch_viterbi

    rng = numpy.random.default_rng(7)
    log_trans = numpy.log(numpy.array([[0.3, 0.7], [0.6, 0.4]]))
    emissions, forced, expected = [], [], []
    for i in range(120):
        n = int(rng.integers(1, 30))
        logits = rng.normal(size=n) * 3
        f = rng.random(n) < 0.1
        weight = float(rng.choice([0.0, 0.5, 2.0]))
        pairs = rng.normal(size=(n + 1, 2, 2)) if i % 3 else None
        expected.append(viterbi(logits, log_trans, weight, f, pairs))
        emissions.append(tag_chain_emissions(logits, log_trans, weight, pairs))
        forced.append(f)
    for got, want in zip(batch_viterbi(emissions, forced), expected):
        assert got.tolist() == want.tolist()


def words(nlp, text):
    return [t.text for t in nlp(text)]


def test_strong_priors_do_not_run_across_a_line_break():
    """Failed on c5cdd2a: with transition and tag priors of weight 3, SXU test line 290 began
    with other words after a newline (a transition from the newline's gap), alone and after
    line 289 (2 words became 1 there)."""
    if not SXU_TEST.exists():
        pytest.skip(f"{SXU_TEST} not available")
    sxu = ["".join(line.split()) for line in SXU_TEST.read_text(encoding="utf8").split("\n") if line.strip()]
    before, line = sxu[288], sxu[289]
    nlp = spacy.load(LEGACY_FIXTURE)
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.transition_weight, seg.tag_prior_weight, seg.bigram_prior_weight = 3.0, 3.0, 0.0
    alone = words(nlp, line)
    assert words(nlp, "\n" + line) == ["\n"] + alone
    assert words(nlp, before + "\n" + line) == words(nlp, before) + ["\n"] + alone
    # the line's first two words as c5cdd2a gave them alone (after a newline it gave them as one)
    assert len(alone[0]) == 1 and len(alone[1]) == 2
