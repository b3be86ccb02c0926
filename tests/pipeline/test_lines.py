"""A newline is a hard boundary: a line's words never depend on the lines around it or on its indent."""
import pytest
import spacy

from spacy_gdcws.readers import read_conll
from tests.util import LEGACY_FIXTURE, ROOT, plain_embed, train_model


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


@pytest.fixture(scope="module")
def crf_nlp():
    """A small ID-CNN-CRF segmenter (its Viterbi runs in float32), trained for a few steps."""
    model = {"@architectures": "spacy_gdcws.CharSegmenter.v1",
             "embed": plain_embed(width=32, char_rows=2000, bigram_rows=4000, bigram_width=16, lexicon_max_len=4),
             "encoder": {"@architectures": "spacy_gdcws.IDCNN.v1", "width": 32},
             "scorer": {"@architectures": "spacy_gdcws.CRFTagger.v1", "width": 32}}
    sents = [s for _, s in zip(range(60), read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"))]
    nlp = train_model(model, sents, 15, 0.01)[0]
    nlp.max_length = 10**7
    return nlp


def _line_words(doc):
    """The words of each line of a doc (line-break tokens left out)."""
    out, line = [], []
    for token in doc:
        if "\n" in token.text:
            out.append(line)
            line = []
        elif not token.is_space:
            line.append(token.text)
    return out + [line]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["crf", "priors"])
def test_a_line_decodes_alike_anywhere_in_a_long_document(kind, crf_nlp, dropout_nlp, lines):
    """Issue #51, S5: 3,654 SXU test lines joined by newlines (188k characters) gave 49
    lines other words than alone with this small CRF model (the Viterbi's running scores
    summed in float32 along the whole document). Each line now decodes on its own."""
    nlp = crf_nlp
    if kind == "priors":  # a gap scorer decoded by the priors' chain (its Viterbi runs in float64)
        nlp = dropout_nlp
        seg = nlp.get_pipe("gdcws_segmenter")
        seg.transition_weight, seg.tag_prior_weight, seg.bigram_prior_weight = 1.0, 1.0, 1.0
        nlp.max_length = 10**7
    reps = 200_000 // sum(len(line) + 1 for line in lines) + 1
    doc_lines = lines * reps
    alone = [[t.text for t in doc if not t.is_space] for doc in nlp.pipe(doc_lines, batch_size=256)]
    try:
        assert _line_words(nlp("\n".join(doc_lines))) == alone
    finally:
        if kind == "priors":
            seg.transition_weight = seg.tag_prior_weight = seg.bigram_prior_weight = 0.0
