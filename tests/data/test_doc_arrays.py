"""`data.doc_arrays`: docs read into arrays in one pass give what the per-token code gave (features, forced gaps, words)."""
import numpy
import pytest
from spacy.tokens import Doc

from spacy_gdcws.data.doc_arrays import token_arrays
from spacy_gdcws.data.features import (
    LexiconIndex,
    char_classes,
    char_classes_from_codes,
    lexicon_features,
)
from spacy_gdcws.pipeline.words import merge_words, new_words_doc
from spacy_gdcws.readers import read_conll
from tests.util import ODD_TEXTS, ROOT, char_blank


@pytest.fixture(scope="module")
def lexicon():
    sents = read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu")
    return frozenset(w for s in sents for w in s.words) | {"北京", "大学", "a b", "天气"}


def unit_breaks_of(doc) -> list:
    """The tokens that end a unit, written out: whitespace with a line break, and every
    whitespace token of a run that holds one or that starts or ends the doc."""
    out = [False] * len(doc)
    i = 0
    while i < len(doc):
        if not doc[i].is_space:
            i += 1
            continue
        j = i
        while j < len(doc) and doc[j].is_space:
            j += 1
        run = doc[i:j]
        edge = i == 0 or j == len(doc) or any("\n" in t.text or "\r" in t.text for t in run)
        for k in range(i, j):
            out[k] = edge
        i = j
    return out


def test_lexicon_index_equals_lexicon_features(texts, lexicon):
    """Dictionary matches over a batch laid end to end (as the model reads them)
    are each doc's `lexicon_features`: no word spans a separator."""
    from spacy_gdcws.data.doc_arrays import DocBatch

    nlp = char_blank()
    index = LexiconIndex(lexicon, 6)
    docs = list(nlp.tokenizer.pipe(texts))
    laid = DocBatch(docs).arrays
    batched = index.features(laid.arrays.codes)
    for doc, start in zip(docs, laid.starts.tolist()):
        slow = lexicon_features([t.text for t in doc], lexicon, 6)
        assert numpy.array_equal(batched[start : start + len(doc)], slow), doc.text


def test_char_classes_from_codes_equal_char_classes(texts):
    nlp = char_blank()
    for doc in nlp.tokenizer.pipe(texts):
        a = token_arrays(doc)
        assert char_classes_from_codes(a.first, a.is_space).tolist() == char_classes([t.text for t in doc]).tolist()


def test_token_arrays_equal_the_token_attributes(texts):
    nlp = char_blank()
    for doc in nlp.tokenizer.pipe(texts):
        a = token_arrays(doc)
        assert a.text == doc.text
        assert a.orth.tolist() == [t.orth for t in doc]
        assert a.breaks.tolist() == unit_breaks_of(doc)
        if len(doc) > 1:
            space = numpy.array([t.is_space for t in doc])
            trailing = numpy.array([bool(t.whitespace_) for t in doc])
            assert a.forced.tolist() == (space[:-1] | space[1:] | trailing[:-1]).tolist()


def test_batch_words_equal_merging_in_place(texts):
    """The word docs cut from a whole batch (`batch_words`, `new_words_doc`)
    are what merging each character doc in place gives."""
    from spacy_gdcws.data.char_doc import DocMaker
    from spacy_gdcws.data.doc_arrays import DocBatch, batch_words

    nlp = char_blank()
    rng = numpy.random.default_rng(0)
    docs = [nlp.make_doc(text) for text in texts[:200] + ODD_TEXTS]
    laid = DocBatch(docs).arrays
    bounds = (rng.random(len(laid.arrays) - 1) < 0.5) | laid.arrays.forced
    words, spaces, first, end = batch_words(laid, bounds)
    make_doc = DocMaker(nlp.vocab)
    for doc, start, n, a, b in zip(docs, laid.starts.tolist(), laid.lengths.tolist(), first.tolist(), end.tolist()):
        if n < 2:
            continue
        built = new_words_doc(doc, words[a:b], spaces[a:b], make_doc)
        merged = nlp.make_doc(doc.text)
        merge_words(merged, bounds[start : start + n - 1])
        assert [(t.text, t.whitespace_) for t in built] == [(t.text, t.whitespace_) for t in merged]
        assert built.text == doc.text


def test_batch_arrays_lay_docs_end_to_end():
    from spacy_gdcws.data.doc_arrays import batch_arrays

    nlp = char_blank()
    docs = [nlp.make_doc(t) for t in ["我爱北京 天安门", "ab\n中国", "你好"]]
    batch = batch_arrays([token_arrays(d) for d in docs])
    flat = batch.arrays
    assert flat.text == "我爱北京 天安门\nab\n中国\n你好"
    assert [flat.text[i : i + n] for i, n in zip(flat.idx.tolist(), flat.length.tolist())] == \
        ["我", "爱", "北", "京", "天", "安", "门", "\n", "a", "b", "\n", "中", "国", "\n", "你", "好"]
    assert batch.starts.tolist() == [0, 8, 14] and batch.lengths.tolist() == [7, 5, 2]
    assert flat.breaks.tolist() == [t == "\n" for t in ["我", "爱", "北", "京", "天", "安", "门", "\n", "a", "b",
                                                      "\n", "中", "国", "\n", "你", "好"]]
    assert numpy.flatnonzero(batch.real_gaps).tolist() == [0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 14]


def test_text_batch_arrays_equal_reading_each_doc(texts):
    """The arrays read from the texts in one pass are those of reading each
    tokenized doc (`token_arrays`) and laying them end to end, whitespace of
    every kind, empty texts and texts of one character included."""
    from spacy_gdcws.data.doc_arrays import (
        batch_arrays,
        read_token_arrays,
        text_batch_arrays,
    )

    nlp = char_blank()
    rng = numpy.random.default_rng(3)
    alphabet = ["a", "中", " ", "  ", "\n", "\t", "\u3000", "\r\n", "e\u0301", "\x85", "\xa0", "😀"]
    mixed = ["".join(rng.choice(alphabet, size=int(rng.integers(0, 8)))) for _ in range(300)]
    for batch_texts in (texts[:400], ODD_TEXTS, mixed, [""], ["", ""], [" ", "", "字"]):
        got = text_batch_arrays(batch_texts)
        want = batch_arrays([read_token_arrays(nlp.make_doc(t)) for t in batch_texts])
        for field in ("orth", "idx", "length", "is_space", "trailing", "codes", "first", "breaks"):
            a, b = getattr(got.arrays, field), getattr(want.arrays, field)
            assert a.dtype == b.dtype and a.tolist() == b.tolist(), field
        assert got.arrays.text == want.arrays.text
        assert got.lengths.tolist() == want.lengths.tolist() and got.starts.tolist() == want.starts.tolist()


def test_a_doc_batch_reads_the_tokens_of_other_docs():
    """Docs that are not our tokenizer's as made (retokenized since, or built
    from words) are read token by token: the arrays are their tokens', and a
    merged token is reported (E014)."""
    from spacy_gdcws.data.doc_arrays import DocBatch
    from spacy_gdcws.pipeline.words import check_char_tokens

    nlp = char_blank()
    merged = nlp.make_doc("北京大学")
    with merged.retokenize() as retokenizer:
        retokenizer.merge(merged[0:2])
    built = Doc(nlp.vocab, words=["天", "安", "门"])
    laid = DocBatch([nlp.make_doc("你好"), merged, built]).arrays
    assert laid.lengths.tolist() == [2, 3, 3]
    assert laid.arrays.length.tolist() == [1, 1, 1, 2, 1, 1, 1, 1, 1, 1]
    with pytest.raises(ValueError, match="E014"):
        check_char_tokens([nlp.make_doc("你好"), merged])


def test_batch_texts_and_token_texts_are_the_docs():
    """`BatchArrays.texts` and `token_texts` slice the batch's text as `doc.text`
    and the tokens' texts read (plain docs, spaces, an empty doc)."""
    import spacy
    from spacy.tokens import Doc

    from spacy_gdcws.data.doc_arrays import DocBatch

    nlp = spacy.blank("zh")
    docs = [Doc(nlp.vocab, words=["中", "国", " ", "人"], spaces=[False, True, False, False]),
            Doc(nlp.vocab, words=[], spaces=[]), Doc(nlp.vocab, words=["好", "的"], spaces=[False, True])]
    laid = DocBatch(docs).arrays
    assert laid.texts == [doc.text for doc in docs]
    assert [laid.token_texts(k) for k in range(3)] == [[t.text for t in doc] for doc in docs]
