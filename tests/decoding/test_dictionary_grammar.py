"""#79: docs/user-dictionary.md states the grammar the loader implements: every row of its table
(a line, and the word, mode, frequency and tag it reads as, or "left out") is checked here."""
import warnings

import pytest

from spacy_gdcws.decoding.dictionary_files import text_lines
from tests.util import ROOT

PAGE = ROOT / "docs" / "user-dictionary.md"


def rows():
    text = PAGE.read_text(encoding="utf8")
    table = text[text.index("<!-- grammar:start -->"): text.index("<!-- grammar:end -->")]
    out = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("`"):
            out.append((cells[0].strip("`").replace("<TAB>", "\t"), *cells[1:5]))
    return out


def test_the_table_has_its_rows():
    assert len(rows()) >= 20


@pytest.mark.parametrize("line,word,mode,freq,tag", rows())
def test_each_line_reads_as_the_page_says(line, word, mode, freq, tag):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        entries = list(text_lines(line, "d.txt", default_mode="combine", strict=False))
    if word == "left out":
        assert entries == [] and any("W002" in str(w.message) for w in caught)
        return
    (entry,) = entries
    assert entry.word == word
    assert entry.mode == ("combine" if mode == "-" else mode)
    assert entry.freq == (int(freq) if freq else None)
    assert entry.tag == (tag or None)
    assert not any("W002" in str(w.message) for w in caught)
