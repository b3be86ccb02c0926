"""Shared fixtures: corpora from ../shared/corpora and small trained pipelines
(helpers in `tests.util`)."""
import sys
from typing import List

import pytest
from spacy.language import Language

from spacy_gdcws.readers import read_conll, read_sentences
from tests.util import (
    NER_SAMPLE_WORDS,
    ODD_TEXTS,
    ROOT,
    SXU_TEST,
    block,
    corpus_path,
    ner_sample_docs,
    plain_embed,
    train_model,
    train_pipeline,
)

UD_TEST = ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu"


@pytest.fixture(scope="session")
def sxu_sentences() -> List:
    return list(read_sentences(corpus_path("sxu/train.txt")))[:20]


@pytest.fixture(scope="session")
def ud_sentences() -> List:
    """30 sentences of UD GSDSimp dev (shipped in assets/)."""
    path = ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"
    return [s for _, s in zip(range(30), read_conll(path))]


@pytest.fixture(scope="session")
def trained_nlp(sxu_sentences) -> Language:
    """The segmenter overfitted on 20 SXU sentences (shared: tests that change it use `trained_copy`)."""
    return train_pipeline(sxu_sentences)


@pytest.fixture(scope="session")
def lines() -> List[str]:
    """300 lines: the SXU test file where the shared corpora are beside the repo, else UD test."""
    if SXU_TEST.exists():
        out = ["".join(line.split()) for line in SXU_TEST.read_text(encoding="utf8").split("\n")]
    else:
        out = ["".join(s.words) for s in read_conll(UD_TEST)]
    return [line for line in out if line][:300]


@pytest.fixture(scope="session")
def texts() -> List[str]:
    """UD test's first 300 sentences, `ODD_TEXTS`, and the SXU test lines where the shared corpora are."""
    lines = ["".join(s.words) for _, s in zip(range(300), read_conll(UD_TEST))] + ODD_TEXTS
    if SXU_TEST.exists():
        lines += [line.replace(" ", "") for line in SXU_TEST.read_text(encoding="utf8").split("\n")]
    return lines


@pytest.fixture(scope="session")
def dropout_nlp() -> Language:
    """A small segmenter with dropout in every layer (what makes train mode visible), trained for a few steps."""
    model = {
        "@architectures": "spacy_gdcws.CharSegmenter.v1",
        "embed": plain_embed(width=32, char_rows=2000, bigram_rows=4000,
                             bigram_width=16, dropout=0.3, lexicon_max_len=4),
        "encoder": {"@architectures": "spacy_gdcws.IDCNN.v1", "width": 32, "dropout": 0.3},
        "scorer": {"@architectures": "spacy_gdcws.GapScorer.v1", "width": 32, "hidden": 16}}
    sents = [s for _, s in zip(range(60), read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"))]
    return train_model(model, sents, 15, 0.01)[0]


@pytest.fixture(scope="session")
def saved(trained_nlp, tmp_path_factory):
    """`trained_nlp` on disk, with a gold file, its raw text and a dictionary."""
    folder = tmp_path_factory.mktemp("saved")
    trained_nlp.to_disk(folder / "model")
    (folder / "gold.txt").write_text("我  爱  北京\n天安门  。\n", encoding="utf8")
    (folder / "dict.txt").write_text("北京\n天安门\n", encoding="utf8")
    (folder / "in.txt").write_text("我爱北京\n天安门。\n", encoding="utf8")
    return folder


@pytest.fixture(scope="session")
def ner_pipeline(tmp_path_factory):
    """A small segmenter trained on `NER_SAMPLE_WORDS`, then NER trained with
    configs/ner_segmenter.cfg on its (frozen, annotating) words. RETURNS (nlp, folder)."""
    import spacy
    from spacy.cli.train import train
    from spacy.tokens import DocBin

    tmp = tmp_path_factory.mktemp("ner")
    sentences = list(read_sentences(NER_SAMPLE_WORDS, "sighan"))
    model = {"@architectures": "spacy_gdcws.CharSegmenter.v1",
             "embed": plain_embed(width=32, char_rows=2000, bigram_rows=2000, bigram_width=16, lexicon_max_len=0),
             "encoder": block("BiLSTM.v1", width=32, depth=1),
             "scorer": {"@architectures": "spacy_gdcws.GapScorer.v1", "width": 32, "hidden": 32}}
    seg, _ = train_model(model, sentences, steps=60, learn_rate=0.01)
    seg.rename_pipe("gdcws_segmenter", "segmenter")  # the name the project's configs give it
    seg.to_disk(tmp / "segmenter")
    db = DocBin(store_user_data=True)
    for doc in ner_sample_docs(seg.vocab):
        db.add(doc)
    db.to_disk(tmp / "ner.spacy")
    train(ROOT / "configs" / "ner_segmenter.cfg", tmp / "out",
          overrides={"paths.train": str(tmp / "ner.spacy"), "paths.dev": str(tmp / "ner.spacy"),
                     "paths.segmenter": str(tmp / "segmenter"), "training.max_steps": 100,
                     "training.eval_frequency": 50, "training.batcher.size.start": 12,
                     "training.optimizer.learn_rate": 0.005})
    return spacy.load(tmp / "out" / "model-best"), tmp


@pytest.fixture
def trained_copy(trained_nlp) -> Language:
    """A copy of `trained_nlp` of the test's own, to change as it likes."""
    from spacy import util

    nlp = util.load_model_from_config(trained_nlp.config, auto_fill=False)
    return nlp.from_bytes(trained_nlp.to_bytes())


def pytest_configure(config):
    # the repository root importable (`tests.util`, `research/` scripts), however pytest was started
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def tagged_model(ud_sentences, tmp_path_factory):
    """A pipeline of the main job's shape, saved: a segmenter named `segmenter` trained on 30 UD
    sentences, then a `gdcws_parser` named `parser` trained on their gold words, with their entities
    (Universal NER's, the same sentences and words)."""
    from dataclasses import replace

    from spacy.tokens import Doc
    from spacy.training import Example
    from thinc.api import Adam, fix_random_seed

    from spacy_gdcws.readers.corpus import sentence_to_doc
    from spacy_gdcws.readers.iob2 import read_iob2
    from tests.parse.test_component import SMALL

    fix_random_seed(0)
    nlp = train_pipeline(ud_sentences, n_iter=40)
    nlp.rename_pipe("gdcws_segmenter", "segmenter")
    parser = nlp.add_pipe("gdcws_parser", name="parser", config={"model": SMALL})
    uner = list(read_iob2(ROOT / "assets" / "uner_zh" / "zh_gsdsimp-ud-dev.iob2"))[: len(ud_sentences)]
    assert [u.words for u in uner] == [s.words for s in ud_sentences]
    golds = [sentence_to_doc(nlp.vocab, replace(s, meta={**s.meta, "entities": u.meta["entities"]}))
             for s, u in zip(ud_sentences, uner)]
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in g], spaces=[False] * len(g)), g) for g in golds]
    parser.initialize(lambda: examples, nlp=nlp)
    optimizer = Adam(0.01)
    for _ in range(60):
        parser.update(examples, sgd=optimizer)
    path = tmp_path_factory.mktemp("tagged") / "model"
    nlp.to_disk(path)
    return path

