"""Shared fixtures: corpora from ../shared/corpora and a small trained pipeline."""
import sys
from pathlib import Path
from typing import List

import pytest
import spacy
from spacy.language import Language
from spacy.training import Example

from spacy_gdcws.readers import read_sentences, sentence_to_doc


def _signature_defaults(func) -> dict:
    from inspect import signature

    return {k: p.default for k, p in signature(func).parameters.items() if p.default is not p.empty}


ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"

# a small model config: fast to train in tests, every part of the architecture on
SMALL_MODEL = {
    "@architectures": "spacy_gdcws.GDTransformer.v1",
    "width": 64,
    "depth": 2,
    "n_heads": 4,
    "d_ff": 128,
    "dropout": 0.0,
    "char_rows": 5000,
    "char_seeds": 2,
    "bigrams": True,
    "bigram_rows": 20000,
    "bigram_width": 32,
    "biaffine_width": 64,
    "layer_norm": "pre",
    "window": 64,
}


def corpus_path(relative: str) -> Path:
    path = CORPORA / relative
    if not path.exists():
        pytest.skip(f"corpus file {path} not available")
    return path


@pytest.fixture(scope="session")
def sxu_sentences() -> List:
    return list(read_sentences(corpus_path("sxu/train.txt")))[:20]


def make_examples(nlp: Language, sentences) -> List[Example]:
    out = []
    for sent in sentences:
        ref = sentence_to_doc(nlp.vocab, sent)
        out.append(Example(nlp.make_doc(ref.text), ref))
    return out


def train_pipeline(sentences, n_iter: int = 80, model=None) -> Language:
    """A blank zh pipeline with a segmenter trained on `sentences`."""
    from thinc.api import Adam, fix_random_seed

    fix_random_seed(0)
    nlp = spacy.blank("zh")
    # no atomic units: these tests compare with SXU's gold words, whose text lost its spaces
    # ("１１ １５：０６" became "１１１５：０６", one number to the rule); tests/test_units.py covers them
    nlp.add_pipe("gdcws_segmenter", config={"model": model or SMALL_MODEL, "atomic_units": False})
    examples = make_examples(nlp, sentences)
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.003)
    for _ in range(n_iter):
        nlp.update(examples, sgd=optimizer)
    return nlp


@pytest.fixture(scope="session")
def trained_nlp(sxu_sentences) -> Language:
    """The segmenter overfitted on 20 SXU sentences."""
    return train_pipeline(sxu_sentences)


def pytest_configure(config):
    sys.path.insert(0, str(ROOT))


def char_blank() -> Language:
    """A blank zh pipeline with the character tokenizer."""
    return spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})


def train_model(model, sentences, steps: int, learn_rate: float, nlp: Language = None, **component):
    """A segmenter with `model` (a config dict) trained on gold `sentences` for `steps`
    updates from a fixed seed. RETURNS (nlp, the loss of every step)."""
    from spacy.tokens import Doc
    from thinc.api import Adam, fix_random_seed

    fix_random_seed(0)
    nlp = nlp or char_blank()
    nlp.add_pipe("gdcws_segmenter", config={"model": model, **component})
    examples = []
    for sent in sentences:
        ref = Doc(nlp.vocab, words=sent.words, spaces=[False] * len(sent.words))
        examples.append(Example(nlp.make_doc(ref.text), ref))
    nlp.initialize(lambda: examples)
    optimizer = Adam(learn_rate)
    losses = []
    for _ in range(steps):
        step = {}
        nlp.update(examples, sgd=optimizer, losses=step)
        losses.append(step["gdcws_segmenter"])
    return nlp, losses


def plain_embed(**settings) -> dict:
    """A `spacy_gdcws.CharEmbed.v2` block with its signature's defaults (features off)
    for every setting not given: the factory's default model (`pipeline.factory`)
    would otherwise fill them with its own values."""
    from spacy_gdcws.ml.embed import build_char_embed

    return {"@architectures": "spacy_gdcws.CharEmbed.v2", **_signature_defaults(build_char_embed), **settings}
