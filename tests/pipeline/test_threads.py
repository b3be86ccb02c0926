"""Threads share a pipeline: the words of one thread are those of a single thread, during training too."""
import threading
from concurrent.futures import ThreadPoolExecutor

from spacy_gdcws.ml.shims import torch_shims


def words(nlp, text):
    return [t.text for t in nlp(text)]


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
    torch_shims(seg.model)[0].net.train()  # as an update leaves it
    results = []
    workers = [threading.Thread(target=lambda: results.append([words(dropout_nlp, t) for t in lines[:20]])) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert all(r == before for r in results)
