"""Shared fixtures: corpora from ../shared/corpora and small trained pipelines
(helpers in `tests.util`)."""
import sys
from typing import List

import pytest
from spacy.language import Language

from spacy_gdcws.readers import read_conll, read_sentences
from tests.util import ROOT, corpus_path, train_pipeline


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


@pytest.fixture
def trained_copy(trained_nlp) -> Language:
    """A copy of `trained_nlp` of the test's own, to change as it likes."""
    from spacy import util

    nlp = util.load_model_from_config(trained_nlp.config, auto_fill=False)
    return nlp.from_bytes(trained_nlp.to_bytes())


def pytest_configure(config):
    # the repository root importable (`tests.util`, `research/` scripts), however pytest was started
    sys.path.insert(0, str(ROOT))
