"""docs/migrating.md: every Python block of the page runs, in order, in one namespace, with
`spacy.load("zh_gdcws")` loading a small pipeline of the same shape (`tagged_model`: a segmenter named
`segmenter` and a `gdcws_parser` named `parser`), so no test depends on whether `zh_gdcws` is installed."""
import re

from tests.util import ROOT

PAGE = ROOT / "docs" / "migrating.md"


def blocks():
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf8"), re.S)


def test_the_page_has_a_block_per_section():
    assert len(blocks()) >= 5


def test_every_block_of_the_page_runs(tagged_model):
    namespace = {}
    for block in blocks():
        code = block.replace('spacy.load("zh_gdcws")', f"spacy.load({str(tagged_model)!r})")
        exec(compile(code, str(PAGE), "exec"), namespace)
    assert namespace["doc"].has_annotation("DEP") and namespace["words"]
