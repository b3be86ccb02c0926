"""The gdcws_segmenter component: training, serialization, pipe, edge cases, odd inputs."""
import pickle

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_gdcws.pipeline.segmenter import GDSegmenter
from tests.util import LEGACY_FIXTURE, SMALL_MODEL, small_model, train_pipeline

INPUTS = ["", " ", "   ", "\n", "\n\n\n", "\t", "\u3000", " \u3000\n ", "\x00", "\x00\x01\x02北京\x7f", "\u200b\u200b",
          "北", "北 京", "北  京", "北\u3000京", "北\r\n京", " 北京 ", "\ufeff北京", "a", "ab", "𠀀𠀁", "🇨🇳北京"]


def test_word_tokens_are_refused_not_passed_through():
    """Failed on c5cdd2a: a doc of words came back unchanged."""
    nlp = spacy.load(LEGACY_FIXTURE)
    seg = nlp.get_pipe("gdcws_segmenter")
    doc = Doc(nlp.vocab, words=["北京", "大学", "在", "这里"], spaces=[False] * 4)
    with pytest.raises(ValueError, match="E014"):
        seg(doc)
    with pytest.raises(ValueError, match="E014"):
        list(seg.pipe([doc]))
    word_nlp = spacy.blank("zh")
    word_nlp.tokenizer = lambda text: Doc(word_nlp.vocab, words=[text[:2], text[2:]], spaces=[False, False])
    word_nlp.add_pipe("gdcws_segmenter")
    ref = Doc(word_nlp.vocab, words=["北京", "大学"], spaces=[False, False])
    with pytest.raises(ValueError, match="E014"):
        word_nlp.initialize(lambda: [Example(word_nlp.make_doc("北京大学"), ref)])


@pytest.mark.parametrize("text", INPUTS)
def test_odd_inputs_keep_their_text_and_pipe_equals_call(text):
    nlp = spacy.load(LEGACY_FIXTURE)
    doc = nlp(text)
    assert doc.text == text
    assert [t.text for t in next(nlp.pipe([text]))] == [t.text for t in doc]


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


def test_dictionary_features_use_the_training_words(sxu_sentences, tmp_path):
    model = small_model(**{"lexicon_max_len": 4,
             "lexicon_dropout": 0.1, "lexicon_holdout": True, "gaussian_mode": "bias"})
    nlp = train_pipeline(sxu_sentences, n_iter=60, model=model)
    seg = nlp.get_pipe("gdcws_segmenter")
    assert seg.resources[0].lexicon == frozenset(seg.train_words) and len(seg.train_words) > 100
    assert sum(seg.resources[0].lexicon_counts.values()) == sum(len(s.words) for s in sxu_sentences)
    texts = ["".join(s.words) for s in sxu_sentences[:10]]
    words = [[t.text for t in doc] for doc in nlp.pipe(texts)]
    assert sum(w == s.words for w, s in zip(words, sxu_sentences[:10])) >= 8
    nlp.to_disk(tmp_path / "lex")
    loaded = spacy.load(tmp_path / "lex")
    assert loaded.get_pipe("gdcws_segmenter").resources[0].lexicon == seg.resources[0].lexicon
    assert [[t.text for t in doc] for doc in loaded.pipe(texts)] == words


@pytest.mark.parametrize("switches", [{"highway_out": False}, {"hired": False}, {}])
def test_update_with_and_without_the_hired_scores(sxu_sentences, switches):
    """The wrapper's score columns follow the net's (HiRED scores only with Highway-O)."""
    nlp = train_pipeline(sxu_sentences[:4], n_iter=2, model=small_model(**switches))
    scores = nlp.get_pipe("gdcws_segmenter").scores([nlp.make_doc("我爱北京天安门。")])
    assert scores[0].shape == (7, 2 if not switches else 1)


def test_pickle_with_dictionary_features(sxu_sentences):
    model = small_model(**{"lexicon_max_len": 3,
             "lexicon_holdout": True})
    nlp = train_pipeline(sxu_sentences[:3], n_iter=1, model=model)
    copy = pickle.loads(pickle.dumps(nlp))
    seg = copy.get_pipe("gdcws_segmenter")
    assert seg.resources[0].lexicon == nlp.get_pipe("gdcws_segmenter").resources[0].lexicon
    assert seg.resources[0].lexicon_counts.get(sxu_sentences[0].words[0]) >= 1


def test_ngram_vocab_is_trained_saved_and_pickled(sxu_sentences, tmp_path):
    model = small_model(**{"ngram_vocab": True,
             "ngram_holdout": True})
    nlp = train_pipeline(sxu_sentences, n_iter=60, model=model)
    vocab = nlp.get_pipe("gdcws_segmenter").resources[0].ngram_vocab
    assert 100 < len(vocab) and vocab.can_hold_out
    texts = ["".join(s.words) for s in sxu_sentences[:10]] + ["我爱北京天安门。"]
    words = [[t.text for t in doc] for doc in nlp.pipe(texts)]
    assert sum(w == s.words for w, s in zip(words, sxu_sentences[:10])) >= 8
    nlp.to_disk(tmp_path / "ngrams")
    loaded = spacy.load(tmp_path / "ngrams")
    assert loaded.get_pipe("gdcws_segmenter").resources[0].ngram_vocab.known.tolist() == vocab.known.tolist()
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


def test_segmenter_records_blocks_for_holdout_folds(sxu_sentences):
    model = small_model(**{"ngram_vocab": True,
             "ngram_holdout": True, "lexicon_max_len": 3, "lexicon_holdout": True, "holdout_folds": 4})
    nlp = train_pipeline(sxu_sentences, n_iter=2, model=model)
    resources = nlp.get_pipe("gdcws_segmenter").resources[0]
    texts = ["".join(s.words) for s in sxu_sentences]
    folds = resources.holdout_folds
    assert [folds.fold(t) for t in texts] == [i * 4 // len(texts) for i in range(len(texts))]
    # a word of the first sentence only is local to block 0
    only_first = [w for w in sxu_sentences[0].words if all(w not in s.words for s in sxu_sentences[1:])]
    assert only_first and resources.lexicon_counts.fold_of(only_first[0]) == 0
    assert len(resources.ngram_vocab) > 0
    copy = pickle.loads(pickle.dumps(nlp))
    assert [t.text for t in copy(texts[0])] == [t.text for t in nlp(texts[0])]
    with pytest.raises(ValueError, match="E029"):
        spacy.blank("zh").add_pipe("gdcws_segmenter", config={"model": small_model(holdout_folds=1)})


def test_case_02_pipe_as_tuples_keeps_the_context(trained_nlp):
    texts = [("我爱北京天安门。", {"id": 1}), ("今天天气很好", {"id": 2}), ("好", {"id": 3}), ("", {"id": 4})]
    out = list(trained_nlp.pipe(texts, as_tuples=True))
    assert [ctx for _, ctx in out] == [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}]
    assert [doc.text for doc, _ in out] == [t for t, _ in texts]


def test_a_segmenter_initialized_on_one_sentence_segments():
    """Issue #51: `add_pipe("gdcws_segmenter")` initialized on one sentence failed at the first call
    with E028 ("initialize the segmenter"): with leave-one-out its n-gram vocabulary was empty."""
    from spacy.tokens import Doc
    from spacy.training import Example

    from tests.util import char_blank

    nlp = char_blank()
    nlp.add_pipe("gdcws_segmenter")
    ref = Doc(nlp.vocab, words=["我", "爱", "北京"], spaces=[False] * 3)
    nlp.initialize(lambda: [Example(nlp.make_doc(ref.text), ref)])
    assert len(nlp.get_pipe("gdcws_segmenter").resources[0].ngram_vocab) == 0
    assert "".join(t.text for t in nlp("我爱北京天安门")) == "我爱北京天安门"
