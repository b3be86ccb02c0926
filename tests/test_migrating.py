"""docs/migrating.md: every Python block of the page runs, in order, in one namespace, with
`spacy.load("zh_gdcws")` loading a small pipeline of the same shape (a segmenter named `segmenter`
and a `gdcws_parser` named `parser`), so no test depends on whether `zh_gdcws` is installed."""
import re

import pytest
import spacy
from spacy import util
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from spacy_gdcws.readers.corpus import sentence_to_doc
from tests.parse.test_component import SMALL
from tests.util import ROOT

PAGE = ROOT / "docs" / "migrating.md"


@pytest.fixture(scope="module")
def pipeline(trained_nlp, ud_sentences, tmp_path_factory):
    """`trained_nlp`'s segmenter as `segmenter`, then a parser trained a little on UD sentences."""
    fix_random_seed(0)
    nlp = util.load_model_from_config(trained_nlp.config, auto_fill=False).from_bytes(trained_nlp.to_bytes())
    nlp.rename_pipe("gdcws_segmenter", "segmenter")
    parser = nlp.add_pipe("gdcws_parser", name="parser", config={"model": SMALL})
    golds = [sentence_to_doc(nlp.vocab, s) for s in ud_sentences[:12]]
    words = [Doc(nlp.vocab, words=[t.text for t in g], spaces=[bool(t.whitespace_) for t in g]) for g in golds]
    examples = [Example(w, g) for w, g in zip(words, golds)]
    parser.initialize(lambda: examples, nlp=nlp)
    optimizer = Adam(0.01)
    for _ in range(20):
        parser.update(examples, sgd=optimizer)
    folder = tmp_path_factory.mktemp("migrating") / "zh_gdcws"
    nlp.to_disk(folder)
    return folder


def blocks():
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf8"), re.S)


def test_the_page_has_a_block_per_section():
    assert len(blocks()) >= 5


def test_every_block_of_the_page_runs(pipeline):
    namespace = {}
    for block in blocks():
        code = block.replace('spacy.load("zh_gdcws")', f"spacy.load({str(pipeline)!r})")
        exec(compile(code, str(PAGE), "exec"), namespace)
    assert namespace["doc"].has_annotation("DEP") and namespace["words"]
