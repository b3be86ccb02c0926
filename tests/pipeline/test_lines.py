"""A newline is a hard boundary: a line's words never depend on the lines around it or on its indent."""
import pytest
import spacy

from spacy_gdcws.readers import read_conll
from tests.util import LEGACY_FIXTURE, ROOT


def words(nlp, text):
    return [t.text for t in nlp(text)]


@pytest.fixture(scope="module", params=["greedy", "priors"])
def context_nlp(request):
    nlp = spacy.load(LEGACY_FIXTURE)
    if request.param == "priors":
        seg = nlp.get_pipe("gdcws_segmenter")
        seg.transition_weight, seg.tag_prior_weight, seg.bigram_prior_weight = 1.0, 1.0, 2.0
    return nlp


def test_a_trailing_newline_never_changes_a_line(context_nlp, lines):
    """The pair prior reads a line's edge as the doc's edge, not the newline as a character."""
    plain = [words(context_nlp, t) for t in lines]
    assert [words(context_nlp, t + "\n")[:-1] for t in lines] == plain
    assert [words(context_nlp, "\n" + t)[1:] for t in lines] == plain


def test_lines_joined_in_pairs_keep_their_words(context_nlp, lines):
    """No label transition runs across a line break."""
    plain = [words(context_nlp, t) for t in lines]
    for i in range(0, len(lines) - 1, 2):
        joined = words(context_nlp, lines[i] + "\n" + lines[i + 1])
        assert joined == plain[i] + ["\n"] + plain[i + 1]
    assert [[t.text for t in d] for d in context_nlp.pipe(lines)] == plain  # pipe == call


def test_case_05_an_indented_line_segments_as_inside_a_document(trained_nlp):

    sentences = [s for _, s in zip(range(150), read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"))]
    lines = ["\u3000\u3000" + "".join(s.words) for s in sentences] + [" " + "".join(s.words) + "\u3000" for s in sentences[:50]]
    alone = [[t.text for t in trained_nlp(line) if not t.is_space] for line in lines]
    inside, current = [], []
    for token in trained_nlp("\n".join(lines)):
        if "\n" in token.text:
            inside.append(current)
            current = []
        elif not token.is_space:
            current.append(token.text)
    inside.append(current)
    assert inside == alone
    plain = [[t.text for t in trained_nlp(line.strip()) if not t.is_space] for line in lines]
    assert alone == plain  # the indent changes nothing
