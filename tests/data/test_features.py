"""`data.features`: dictionary features, the n-gram vocabulary and leave-out (one doc, or its block) in training."""
import numpy


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


def test_lexicon_holdout_hides_words_seen_only_here():
    from spacy_gdcws.data.features import lexicon_features

    lexicon = {"北京": 5, "天安门": 1}
    feats = lexicon_features(list("北京天安门"), lexicon, 3, holdout_counts=lexicon)
    assert feats[0, 0] == 1  # 北京 occurs elsewhere in training: kept
    assert feats[2, 1] == 0  # 天安门 occurs once, here: hidden (leave-one-out)
    twice = lexicon_features(list("天安门天安门"), {"天安门": 2}, 3, holdout_counts={"天安门": 2})
    assert twice.sum() == 0


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
    from spacy_gdcws.data.features import (
        EDGE_CLASS,
        N_CLASSES,
        UNK_BIGRAM,
        UNK_CHAR,
        NgramVocab,
        char_classes,
        ngram_keys,
    )

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


def test_holdout_folds_cut_the_training_docs_into_blocks():
    from spacy_gdcws.data.features import HoldoutFolds

    texts = ["甲", "乙", "丙", "丁", "甲"]
    folds = HoldoutFolds.from_texts(texts, 2)
    # 5 docs in 2 blocks: 0, 0, 0, 1, 1; a repeated text keeps its first block
    assert [folds.fold(t) for t in texts] == [0, 0, 0, 1, 0]
    assert [HoldoutFolds.block_of_index(i, 5, 2) for i in range(5)] == [0, 0, 0, 1, 1]
    assert folds.fold("戊") == -1 and len(folds) == 4


def test_block_leave_out_hides_ngrams_and_words_of_the_docs_own_block():
    from spacy_gdcws.data.features import (
        UNK_BIGRAM,
        UNK_CHAR,
        NgramVocab,
        WordCounts,
        lexicon_features,
        ngram_keys,
    )

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


def test_pack_windows_lays_windows_apart_within_the_longest():
    """Every window in one row, inside the row, `gap` columns or more from its neighbours;
    the longest window alone sets the row length."""
    from spacy_gdcws.data.features import Windows, pack_windows

    rng = numpy.random.default_rng(0)
    lengths = rng.integers(2, 40, 60)
    starts = numpy.concatenate([[0], numpy.cumsum(lengths + 1)[:-1]])
    windows = Windows(starts, starts + lengths, starts, starts + lengths - 1)
    placement = pack_windows(windows, 2)
    assert placement.length == lengths.max()
    # within a fifth of the rows that the characters and gaps fill at the least
    assert placement.n_rows <= 1.2 * numpy.ceil((lengths + 2).sum() / lengths.max())
    for r in range(placement.n_rows):
        spans = sorted((int(o), int(o + n)) for o, n, row in zip(placement.offset, lengths, placement.row) if row == r)
        assert spans[-1][1] <= placement.length
        assert all(b + 2 <= c for (_, b), (c, _) in zip(spans, spans[1:]))


def test_packed_training_forward_equals_a_row_per_window(sxu_sentences):
    """An ID-CNN's training forward (no dropout) gives the same scores with its
    windows packed several to a row as with a row each."""
    from tests.util import model_config, train_pipeline

    sample = sxu_sentences[:20]
    model = model_config("idcnn", "crf", width=16, dropout=0.0, lexicon_dropout=0.0)
    nlp = train_pipeline(sample, n_iter=2, model=model)
    seg = nlp.get_pipe("gdcws_segmenter")
    windows = seg.model.layers[1]
    assert windows.attrs["pack_gap"] == 2
    docs = [nlp.make_doc("".join(s.words)) for s in sample]
    packed, _ = seg.model.begin_update(docs)
    windows.attrs["pack_gap"] = 0
    alone, _ = seg.model.begin_update(docs)
    for a, b in zip(packed, alone):
        assert numpy.allclose(a, b, atol=1e-5)
