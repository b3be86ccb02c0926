"""Long documents segment in windows, in bounded memory, with the words of their lines."""
import json
import subprocess
import sys

import pytest
import spacy

from spacy_gdcws.readers import read_sentences
from tests.util import LEGACY_FIXTURE, corpus_path

MEASURE = r"""
import json, resource, sys
import spacy
nlp = spacy.load(sys.argv[1])
text = open(sys.argv[2], encoding="utf8").read()
nlp(text[:300])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
doc = nlp(text)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert doc.text == text
print(json.dumps({"kb": after - before, "tokens": len(doc)}))
"""


def sxu_test_text(n_chars: int, sep: str) -> str:
    lines = []
    total = 0
    for sent in read_sentences(corpus_path("sxu/test.txt")):
        line = "".join(sent.words)
        lines.append(line)
        total += len(line) + len(sep)
        if total >= n_chars:
            break
    return sep.join(lines)[:n_chars]


def peak_kb(model_dir, text, tmp_path) -> int:
    path = tmp_path / f"text{len(text)}.txt"
    path.write_text(text, encoding="utf8")
    out = subprocess.run([sys.executable, "-c", MEASURE, str(model_dir), str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])["kb"]


@pytest.mark.slow
@pytest.mark.parametrize("sep", ["", "\n"])
def test_100k_characters_in_bounded_memory(trained_nlp, tmp_path, sep):
    model_dir = tmp_path / "model"
    trained_nlp.to_disk(model_dir)
    small = peak_kb(model_dir, sxu_test_text(2_000, sep), tmp_path)
    large = peak_kb(model_dir, sxu_test_text(100_000, sep), tmp_path)
    # 50x the characters: linear growth is ~50x; quadratic attention would be 2,500x
    # (over 40 GB for one 100k-character attention matrix). Allow the constant
    # overhead of one full batch on top of linear growth.
    assert large < 50 * max(small, 1) + 256 * 1024, (small, large)


def test_long_doc_equals_its_lines(trained_nlp):
    text = sxu_test_text(100_000, "\n")
    lines = text.split("\n")
    doc = trained_nlp(text)
    assert doc.text == text
    long_words = [t.text for t in doc if not t.is_space]
    line_words = [t.text for d in trained_nlp.pipe(lines) for t in d if not t.is_space]
    assert long_words == line_words


def test_cutting_a_line_changes_nothing_away_from_the_cuts(trained_nlp):
    """A 12,000-character line without breaks, whole vs cut into 4,096-character
    pieces (cuts on the window grid): every gap more than one window away from
    a cut gets the same decision."""
    text = sxu_test_text(12_000, "")
    seg = trained_nlp.get_pipe("gdcws_segmenter")
    window = seg.model.layers[1].attrs["window"]
    piece = 4096
    assert piece % (window // 2) == 0
    whole = seg.scores([trained_nlp.make_doc(text)])[0][:, 0] > 0
    pieces = [trained_nlp.make_doc(text[i : i + piece]) for i in range(0, len(text), piece)]
    scores = seg.scores(pieces)
    compared = 0
    for k, doc_scores in enumerate(scores):
        start = k * piece
        decisions = doc_scores[:, 0] > 0
        for j in range(window, len(decisions) - window):
            assert decisions[j] == whole[start + j], start + j
            compared += 1
    assert compared > 8000


def words(nlp, text):
    return [t.text for t in nlp(text)]


@pytest.mark.slow
def test_a_long_line_segments_in_windows(lines):
    """A 2M-character line (no line break) segments whole; each window is bounded
    (research/benchmarks/speed.py measures the memory of 1M lines and 10M characters)."""
    nlp = spacy.load(LEGACY_FIXTURE)
    nlp.max_length = 3_000_000
    text = ("".join(lines) * (2_000_000 // len("".join(lines)) + 1))[:2_000_000]
    doc = nlp(text)
    assert doc.text == text and len(doc) > 500_000
