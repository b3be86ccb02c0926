"""The gdcws_segmenter component: training, serialization, pipe, edge cases."""
import pickle

import numpy
import pytest
import spacy
from spacy.training import Example

from spacy_gdcws.pipeline.segmenter import GDSegmenter
from spacy_gdcws.pipeline.loss import gold_gaps

from .conftest import SMALL_MODEL, small_model, make_examples, train_pipeline


def words(doc):
    return [t.text for t in doc if not t.is_space]


def test_overfits_20_sxu_sentences(trained_nlp, sxu_sentences):
    for sent in sxu_sentences:
        doc = trained_nlp("".join(sent.words))
        assert words(doc) == sent.words


def test_to_disk_from_disk(trained_nlp, sxu_sentences, tmp_path):
    trained_nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp")
    texts = ["".join(s.words) for s in sxu_sentences]
    assert [words(d) for d in loaded.pipe(texts)] == [words(d) for d in trained_nlp.pipe(texts)]
    assert loaded.get_pipe("gdcws_segmenter").train_words == trained_nlp.get_pipe("gdcws_segmenter").train_words


def test_to_bytes_from_bytes(trained_nlp, sxu_sentences):
    data = trained_nlp.to_bytes()
    nlp2 = spacy.blank("zh")
    nlp2.add_pipe("gdcws_segmenter", config={"model": SMALL_MODEL, "atomic_units": False})
    nlp2.from_bytes(data)
    texts = ["".join(s.words) for s in sxu_sentences]
    assert [words(d) for d in nlp2.pipe(texts)] == [words(d) for d in trained_nlp.pipe(texts)]


def test_pipe_equals_call(trained_nlp, sxu_sentences):
    texts = ["".join(s.words) for s in sxu_sentences] + ["", "好", "  ", "中国人民"]
    piped = [words(d) for d in trained_nlp.pipe(texts, batch_size=3)]
    called = [words(trained_nlp(t)) for t in texts]
    assert piped == called


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "   \n\t ",
        "\u3000",
        "好",
        "我在2024年买了iPhone 15 Pro和3台MacBook。",
        "上海\u3000推动\u3000发展",
        "第一行\n第二行\r\n\n第四行  有两个空格",
        "今天天气很好😀，我们去公园吧🎉！",
        "  前后都有空白  ",
    ],
)
def test_edge_cases_keep_text(trained_nlp, text):
    doc = trained_nlp(text)
    assert doc.text == text
    # every whitespace token stays a token of its own, or trailing whitespace
    for token in doc:
        assert token.is_space or not token.text.isspace()
        assert token.text == token.text.strip() or token.is_space


def test_whitespace_is_always_a_boundary(trained_nlp):
    doc = trained_nlp("中国 人民\u3000银行")
    texts = [t.text for t in doc]
    assert all(" " not in t or t.isspace() for t in texts)
    assert "\u3000" in texts


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


def test_add_label_and_threshold_errors():
    nlp = spacy.blank("zh")
    seg = nlp.add_pipe("gdcws_segmenter", config={"model": SMALL_MODEL})
    assert isinstance(seg, GDSegmenter)
    with pytest.raises(NotImplementedError, match="E012"):
        seg.add_label("B")
    with pytest.raises(ValueError, match="E013"):
        seg.threshold = 1.5
    with pytest.raises(ValueError, match="E013"):
        nlp.add_pipe("gdcws_segmenter", name="other", config={"model": SMALL_MODEL, "threshold": 0.0})


def test_threshold_moves_the_decision(trained_nlp):
    seg = trained_nlp.get_pipe("gdcws_segmenter")
    text = "上海推迎奥运三大任务"
    old = seg.threshold
    try:
        counts = []
        for value in (1e-12, old, 1 - 1e-12):
            seg.threshold = value
            counts.append(len(trained_nlp(text)))
        assert counts[0] >= counts[1] >= counts[2]
        assert counts[0] > counts[2]
    finally:
        seg.threshold = old


def test_initialize_needs_gold():
    nlp = spacy.blank("zh")
    nlp.add_pipe("gdcws_segmenter", config={"model": SMALL_MODEL})
    ref = spacy.tokens.Doc(nlp.vocab, words=["中国", "人民"])  # unknown spaces
    with pytest.warns(UserWarning, match="W001"), pytest.raises(ValueError, match="E019"):
        nlp.initialize(lambda: [Example(nlp.make_doc(ref.text), ref)])


def test_pickle(trained_nlp, sxu_sentences):
    nlp2 = pickle.loads(pickle.dumps(trained_nlp))
    texts = ["".join(s.words) for s in sxu_sentences[:5]]
    assert [words(d) for d in nlp2.pipe(texts)] == [words(d) for d in trained_nlp.pipe(texts)]


def test_multiprocessing_pipe(trained_nlp, sxu_sentences):
    texts = ["".join(s.words) for s in sxu_sentences] * 3
    one = [words(d) for d in trained_nlp.pipe(texts, batch_size=8)]
    two = [words(d) for d in trained_nlp.pipe(texts, batch_size=8, n_process=2)]
    assert one == two


def test_loss_decreases_and_scores(sxu_sentences):
    nlp = train_pipeline(sxu_sentences[:5], n_iter=1)
    examples = make_examples(nlp, sxu_sentences[:5])
    seg = nlp.get_pipe("gdcws_segmenter")
    scores = seg.predict([eg.predicted for eg in examples])
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


def test_segment_texts_gives_the_pipeline_words(trained_nlp, sxu_sentences):
    from spacy_gdcws.app.segment import segment_texts
    from spacy_gdcws.pipeline.words import doc_words

    texts = ["".join(s.words) for s in sxu_sentences[:5]] + ["", "  ", "今天 天气\n很好！abc  def", "一"]
    expected = [doc_words(doc) for doc in trained_nlp.pipe(texts)]
    assert list(segment_texts(trained_nlp, texts, batch_size=3)) == expected


def test_int8_quantized_segmenter_predicts_but_cannot_train_or_save(sxu_sentences, tmp_path):
    from spacy_gdcws.app.precision import quantize_segmenter
    from spacy_gdcws.pipeline.words import doc_words

    nlp = train_pipeline(sxu_sentences, n_iter=40)
    texts = ["".join(s.words) for s in sxu_sentences[:10]]
    before = [doc_words(d) for d in nlp.pipe(texts)]
    quantize_segmenter(nlp)
    after = [doc_words(d) for d in nlp.pipe(texts)]
    assert ["".join(w) for w in after] == texts
    # int8 weights move a few logits, not the segmentation as a whole
    same = sum(a == b for a, b in zip(before, after))
    assert same >= 7
    with pytest.raises(ValueError, match="E025"):
        nlp.update(make_examples(nlp, sxu_sentences[:2]))
    with pytest.raises(ValueError, match="E025"):
        nlp.to_disk(tmp_path / "q")


def test_lexicon_features_mark_word_starts_and_ends():
    from spacy_gdcws.data.features import lexicon_features

    feats = lexicon_features(list("我爱北京天安门"), {"北京", "天安门", "爱北"}, 4)
    # columns: starts of 2-, 3-, 4-char words, then ends of 2-, 3-, 4-char words
    assert feats.shape == (7, 6)
    assert feats[2, 0] == 1 and feats[3, 3] == 1  # 北京
    assert feats[4, 1] == 1 and feats[6, 4] == 1  # 天安门
    assert feats[1, 0] == 1 and feats[2, 3] == 1  # 爱北 (overlapping match)
    assert feats.sum() == 6
    # multi-character tokens (whitespace) never join a word
    assert lexicon_features(["北", " ", "京"], {"北京", "北 "}, 3)[:, 0].tolist() == [1.0, 0.0, 0.0]


def test_dictionary_features_use_the_training_words(sxu_sentences, tmp_path):
    model = small_model(**{"lexicon_max_len": 4,
             "lexicon_dropout": 0.1, "lexicon_holdout": True, "gaussian_mode": "bias"})
    nlp = train_pipeline(sxu_sentences, n_iter=60, model=model)
    seg = nlp.get_pipe("gdcws_segmenter")
    assert seg.model.attrs["lexicon"] == frozenset(seg.train_words) and len(seg.train_words) > 100
    assert sum(seg.model.attrs["lexicon_counts"].values()) == sum(len(s.words) for s in sxu_sentences)
    texts = ["".join(s.words) for s in sxu_sentences[:10]]
    words = [[t.text for t in doc] for doc in nlp.pipe(texts)]
    assert sum(w == s.words for w, s in zip(words, sxu_sentences[:10])) >= 8
    nlp.to_disk(tmp_path / "lex")
    loaded = spacy.load(tmp_path / "lex")
    assert loaded.get_pipe("gdcws_segmenter").model.attrs["lexicon"] == seg.model.attrs["lexicon"]
    assert [[t.text for t in doc] for doc in loaded.pipe(texts)] == words


def test_lexicon_holdout_hides_words_seen_only_here():
    from spacy_gdcws.data.features import lexicon_features

    lexicon = {"北京": 5, "天安门": 1}
    feats = lexicon_features(list("北京天安门"), lexicon, 3, holdout_counts=lexicon)
    assert feats[0, 0] == 1  # 北京 occurs elsewhere in training: kept
    assert feats[2, 1] == 0  # 天安门 occurs once, here: hidden (leave-one-out)
    twice = lexicon_features(list("天安门天安门"), {"天安门": 2}, 3, holdout_counts={"天安门": 2})
    assert twice.sum() == 0


@pytest.mark.parametrize("switches", [{"highway_out": False}, {"hired": False}, {}])
def test_update_with_and_without_the_hired_scores(sxu_sentences, switches):
    """The wrapper's score columns follow the net's (HiRED scores only with Highway-O)."""
    nlp = train_pipeline(sxu_sentences[:4], n_iter=2, model=small_model(**switches))
    scores = nlp.get_pipe("gdcws_segmenter").predict([nlp.make_doc("我爱北京天安门。")])
    assert scores[0].shape == (7, 2 if not switches else 1)


def test_pickle_with_dictionary_features(sxu_sentences):
    model = small_model(**{"lexicon_max_len": 3,
             "lexicon_holdout": True})
    nlp = train_pipeline(sxu_sentences[:3], n_iter=1, model=model)
    copy = pickle.loads(pickle.dumps(nlp))
    seg = copy.get_pipe("gdcws_segmenter")
    assert seg.model.attrs["lexicon"] == nlp.get_pipe("gdcws_segmenter").model.attrs["lexicon"]
    assert seg.model.attrs["lexicon_counts"].get(sxu_sentences[0].words[0]) >= 1


def test_ngram_vocab_maps_unseen_and_held_out_ngrams_to_unk():
    from spacy_gdcws.data.features import UNK_BIGRAM, UNK_CHAR, NgramVocab, ngram_keys

    def keys(*texts):
        return ngram_keys([numpy.array([ord(c) for c in t], dtype=numpy.uint64) for t in texts],
                          [numpy.zeros(len(t), dtype=bool) for t in texts], True)

    train = keys("北京大学", "北京天安门", "门门")
    plain = NgramVocab.from_keys([train], holdout=False)
    test = plain.apply(keys("北京人"), holdout=False)
    assert test.chars.tolist()[:2] == [ord("北"), ord("京")] and test.chars[2] == UNK_CHAR
    assert test.left[1] != UNK_BIGRAM and test.left[2] == UNK_BIGRAM  # 北京 seen, 京人 not
    held = NgramVocab.from_keys([train], holdout=True)
    # 大 and 学 occur once in training: never visible under leave-one-out, so unknown at test time
    assert held.apply(keys("大学"), holdout=False).chars.tolist() == [UNK_CHAR, UNK_CHAR]
    assert held.apply(keys("北京"), holdout=False).chars.tolist() == [ord("北"), ord("京")]
    # in training, 门 (3 occurrences, 2 of them in "门门") stays; 安 (1) is hidden
    train_view = held.apply(keys("天安门"), holdout=True)
    assert train_view.chars.tolist() == [UNK_CHAR, UNK_CHAR, ord("门")]
    assert held.apply(keys("门门"), holdout=True).chars.tolist() == [ord("门"), ord("门")]
    assert NgramVocab.from_bytes(held.to_bytes()).known.tolist() == held.known.tolist()
    # ngram_dropout: a random share of the known n-grams is hidden too (training only)
    numpy.random.seed(0)
    long_text = "北京" * 200
    dropped = plain.apply(keys(long_text), holdout=False, dropout=0.5)
    assert 0.35 < float((dropped.chars == UNK_CHAR).mean()) < 0.65
    assert not (plain.apply(keys(long_text), holdout=False).chars == UNK_CHAR).any()


def test_unknown_ngrams_keep_their_character_class():
    from spacy_gdcws.data.features import EDGE_CLASS, N_CLASSES, UNK_BIGRAM, UNK_CHAR, NgramVocab, char_classes, ngram_keys

    assert char_classes(list("北三３3aＡ，+\n")).tolist() == [2, 1, 3, 3, 4, 4, 5, 6, 0]
    text = "年１９"

    def keys(t):
        return ngram_keys([numpy.array([ord(c) for c in t], dtype=numpy.uint64)], [numpy.zeros(len(t), dtype=bool)],
                          True, [char_classes(list(t))])

    vocab = NgramVocab.from_keys([keys("年份")], holdout=False)
    out = vocab.apply(keys(text), holdout=False)
    assert out.chars.tolist() == [ord("年"), UNK_CHAR + 3, UNK_CHAR + 3]
    n = numpy.uint64(N_CLASSES)
    # (BOS, 年) was seen in training; (年, １) and (１, ９) were not
    assert out.left.tolist() == [keys(text).left[0], UNK_BIGRAM + 2 * n + 3, UNK_BIGRAM + 3 * n + 3]
    assert out.right[-1] == UNK_BIGRAM + 3 * n + EDGE_CLASS


def test_ngram_vocab_is_trained_saved_and_pickled(sxu_sentences, tmp_path):
    model = small_model(**{"ngram_vocab": True,
             "ngram_holdout": True})
    nlp = train_pipeline(sxu_sentences, n_iter=60, model=model)
    vocab = nlp.get_pipe("gdcws_segmenter").model.attrs["ngram_vocab"]
    assert 100 < len(vocab) and vocab.can_hold_out
    texts = ["".join(s.words) for s in sxu_sentences[:10]] + ["我爱北京天安门。"]
    words = [[t.text for t in doc] for doc in nlp.pipe(texts)]
    assert sum(w == s.words for w, s in zip(words, sxu_sentences[:10])) >= 8
    nlp.to_disk(tmp_path / "ngrams")
    loaded = spacy.load(tmp_path / "ngrams")
    assert loaded.get_pipe("gdcws_segmenter").model.attrs["ngram_vocab"].known.tolist() == vocab.known.tolist()
    assert [[t.text for t in doc] for doc in loaded.pipe(texts)] == words
    copy = pickle.loads(pickle.dumps(nlp))
    assert [[t.text for t in doc] for doc in copy.pipe(texts)] == words


def test_ngram_vocab_needs_initialize_and_holdout_needs_vocab():
    nlp = spacy.blank("zh")
    nlp.add_pipe("gdcws_segmenter", config={"model": small_model(**{"ngram_vocab": True})})
    with pytest.raises(ValueError, match="E028"):
        nlp("我爱北京")
    with pytest.raises(ValueError, match="E027"):
        spacy.blank("zh").add_pipe(
            "gdcws_segmenter",
            config={"model": small_model(**{"ngram_holdout": True})})


def test_holdout_folds_cut_the_training_docs_into_blocks():
    from spacy_gdcws.data.features import HoldoutFolds

    texts = ["甲", "乙", "丙", "丁", "甲"]
    folds = HoldoutFolds.from_texts(texts, 2)
    # 5 docs in 2 blocks: 0, 0, 0, 1, 1; a repeated text keeps its first block
    assert [folds.fold(t) for t in texts] == [0, 0, 0, 1, 0]
    assert [HoldoutFolds.block_of_index(i, 5, 2) for i in range(5)] == [0, 0, 0, 1, 1]
    assert folds.fold("戊") == -1 and len(folds) == 4


def test_block_leave_out_hides_ngrams_and_words_of_the_docs_own_block():
    from spacy_gdcws.data.features import UNK_BIGRAM, UNK_CHAR, NgramVocab, WordCounts, lexicon_features, ngram_keys

    def keys(*texts):
        return ngram_keys([numpy.array([ord(c) for c in t], dtype=numpy.uint64) for t in texts],
                          [numpy.zeros(len(t), dtype=bool) for t in texts], True)

    # block 0: 北京大学, 北京人; block 1: 上海人, 上海大学
    train = keys("北京大学", "北京人", "上海人", "上海大学")
    vocab = NgramVocab.from_keys([train], holdout=True, doc_folds=[numpy.array([0, 0, 1, 1])])
    # 北京 occurs twice, but only in block 0: hidden there (leave-one-doc-out would show it)
    view = vocab.apply(keys("北京大学"), holdout=True, doc_folds=numpy.array([0]))
    assert view.chars.tolist() == [UNK_CHAR, UNK_CHAR, ord("大"), ord("学")]
    assert view.right[0] == UNK_BIGRAM and view.right[2] == keys("大学").right[0]
    # a doc outside the blocks (-1) gets plain leave-one-out: 北京 occurs in another doc
    assert vocab.apply(keys("北京"), holdout=True, doc_folds=numpy.array([-1])).chars.tolist() == [ord("北"), ord("京")]
    # known at test time = visible in some training doc: 大学 (two blocks), not 北京 (one)
    test = vocab.apply(keys("北京大学"), holdout=False)
    assert test.chars.tolist() == [UNK_CHAR, UNK_CHAR, ord("大"), ord("学")]
    assert set(vocab.known.tolist()) >= set(keys("大学").chars.tolist())
    # without blocks the same counts keep 北京 (it occurs in two docs)
    plain = NgramVocab.from_keys([train], holdout=True)
    assert plain.apply(keys("北京"), holdout=True).chars.tolist() == [ord("北"), ord("京")]
    # dictionary words: hidden in their own block only
    counts = WordCounts({"北京": 2, "大学": 2}, {"北京": 0})
    assert counts.fold_of("北京") == 0 and counts.fold_of("大学") == -1
    assert lexicon_features(list("北京大学"), {"北京", "大学"}, 2, counts, fold=0).tolist() == [
        [0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    assert lexicon_features(list("北京大学"), {"北京", "大学"}, 2, counts, fold=1)[:, 0].tolist() == [1, 0, 1, 0]


def test_segmenter_records_blocks_for_holdout_folds(sxu_sentences):
    model = small_model(**{"ngram_vocab": True,
             "ngram_holdout": True, "lexicon_max_len": 3, "lexicon_holdout": True, "holdout_folds": 4})
    nlp = train_pipeline(sxu_sentences, n_iter=2, model=model)
    attrs = nlp.get_pipe("gdcws_segmenter").model.attrs
    texts = ["".join(s.words) for s in sxu_sentences]
    folds = attrs["holdout_blocks"]
    assert [folds.fold(t) for t in texts] == [i * 4 // len(texts) for i in range(len(texts))]
    # a word of the first sentence only is local to block 0
    only_first = [w for w in sxu_sentences[0].words if all(w not in s.words for s in sxu_sentences[1:])]
    assert only_first and attrs["lexicon_counts"].fold_of(only_first[0]) == 0
    assert len(attrs["ngram_vocab"]) > 0
    copy = pickle.loads(pickle.dumps(nlp))
    assert [t.text for t in copy(texts[0])] == [t.text for t in nlp(texts[0])]
    with pytest.raises(ValueError, match="E029"):
        spacy.blank("zh").add_pipe("gdcws_segmenter", config={"model": small_model(holdout_folds=1)})


def test_optimizer_averages_are_used_for_prediction(sxu_sentences):
    """thinc's PyTorchShim ignores Optimizer.averages (its keys are tuples); ours applies them."""
    from thinc.api import Adam

    nlp = train_pipeline(sxu_sentences[:3], n_iter=1)
    optimizer = Adam(0.01, use_averages=True)
    examples = make_examples(nlp, sxu_sentences[:3])
    for _ in range(3):
        nlp.update(examples, sgd=optimizer)
    doc = [nlp.make_doc("我爱北京天安门。")]
    seg = nlp.get_pipe("gdcws_segmenter")
    raw = seg.predict(doc)[0].copy()
    with nlp.use_params(optimizer.averages):
        averaged = seg.predict(doc)[0].copy()
    assert not numpy.allclose(raw, averaged)
    assert numpy.allclose(seg.predict(doc)[0], raw)  # restored afterwards


def test_mixed_precision_on_cpu_predicts_in_bf16_and_trains_in_fp32(trained_nlp, sxu_sentences, tmp_path):
    """`mixed_precision` set at load time: bf16 autocast for prediction on CPU,
    the same words as float32 on the training sentences; CPU training works."""
    trained_nlp.to_disk(tmp_path / "fp32")
    bf16 = spacy.load(tmp_path / "fp32", config={"components": {"gdcws_segmenter": {"model": {"mixed_precision": True}}}})
    texts = ["".join(s.words) for s in sxu_sentences]
    ref = [[t.text for t in doc] for doc in trained_nlp.pipe(texts)]
    got = [[t.text for t in doc] for doc in bf16.pipe(texts)]
    assert sum(a == b for a, b in zip(ref, got)) >= len(texts) - 1
    scores32 = trained_nlp.get_pipe("gdcws_segmenter").predict([trained_nlp.make_doc(texts[0])])[0]
    scores16 = bf16.get_pipe("gdcws_segmenter").predict([bf16.make_doc(texts[0])])[0]
    assert scores16.dtype == numpy.float32 and not numpy.array_equal(scores16, scores32)
    assert numpy.allclose(scores16, scores32, atol=0.5)
    bf16.update(make_examples(bf16, sxu_sentences[:2]))  # no gradient scaler on CPU


def test_factory_default_model_is_the_project_default():
    """`nlp.add_pipe("gdcws_segmenter")` builds the model of the main job's config
    (project.yml's `config` var: configs/general.cfg) less its general lexicon, which needs
    a word list at initialize; on fda9378 it built a GD-Transformer."""
    from pathlib import Path

    import srsly
    from thinc.api import Config

    root = Path(__file__).resolve().parent.parent
    default = srsly.read_yaml(root / "project.yml")["vars"]["config"]
    assert default == "general"
    config = Config().from_disk(root / "configs" / f"{default}.cfg", interpolate=False)
    expected = config["components"]["segmenter"]["model"]
    assert expected["embed"]["general_lexicon"] is True
    expected["embed"]["general_lexicon"] = False
    nlp = spacy.blank("zh")
    nlp.add_pipe("gdcws_segmenter")
    assert nlp.config["components"]["gdcws_segmenter"]["model"] == expected
