"""Threads share a pipeline: the words of one thread are those of a single thread, during training too."""
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from spacy_gdcws.readers import read_conll
from tests.util import ROOT, plain_embed, train_model

SXU_TEST = ROOT.parent / "shared" / "corpora" / "sxu" / "test.txt"


def words(nlp, text):
    return [t.text for t in nlp(text)]


@pytest.fixture(scope="module")
def lines():
    """300 lines: the SXU test file where the shared corpora are beside the repo, else UD test."""
    if SXU_TEST.exists():
        out = ["".join(line.split()) for line in SXU_TEST.read_text(encoding="utf8").split("\n")]
    else:
        out = ["".join(s.words) for s in read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu")]
    return [line for line in out if line][:300]


@pytest.fixture(scope="module")
def dropout_nlp():
    """A small segmenter with dropout in every layer (what makes train mode visible), trained for a few steps."""
    model = {
        "@architectures": "spacy_gdcws.CharSegmenter.v1",
        "embed": plain_embed(width=32, char_rows=2000, bigram_rows=4000,
                  bigram_width=16, dropout=0.3, lexicon_max_len=4),
        "encoder": {"@architectures": "spacy_gdcws.IDCNN.v1", "width": 32, "dropout": 0.3},
        "scorer": {"@architectures": "spacy_gdcws.GapScorer.v1", "width": 32, "hidden": 16}}
    sents = [s for _, s in zip(range(60), read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"))]
    return train_model(model, sents, 15, 0.01)[0]


def test_four_threads_give_the_single_thread_words(dropout_nlp, lines):
    """Failed on c5cdd2a: predict set eval(), ran, then set train() again, under other threads."""
    texts = lines[:200]
    single = [words(dropout_nlp, t) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        calls = list(pool.map(lambda t: words(dropout_nlp, t), texts))
        piped = list(pool.map(lambda part: [[t.text for t in d] for d in dropout_nlp.pipe(part, batch_size=16)],
                              [texts[i::4] for i in range(4)]))
    assert calls == single
    assert [piped[i % 4][i // 4] for i in range(len(texts))] == single


def test_threads_during_one_update_never_see_dropout(dropout_nlp, lines):
    seg = dropout_nlp.get_pipe("gdcws_segmenter")
    before = [words(dropout_nlp, t) for t in lines[:20]]
    seg.model.layers[0].shims[0].net.train()  # as an update leaves it
    results = []
    workers = [threading.Thread(target=lambda: results.append([words(dropout_nlp, t) for t in lines[:20]])) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert all(r == before for r in results)
