"""`app.pieces`: a long line cut into pieces at sentence ends (bounded memory in `segment` and
`segment-corpus`), the pieces spelling the line; #61 (11)."""
import pytest

from spacy_gdcws.app.pieces import line_pieces


@pytest.mark.parametrize("line,limit,expected", [
    ("", 10, [""]),
    ("我爱北京。", 10, ["我爱北京。"]),
    ("我爱北京。你好！再见", 6, ["我爱北京。", "你好！再见"]),
    ("他说：“好。”然后走了", 8, ["他说：“好。”", "然后走了"]),
    ("abc def ghi", 5, ["abc ", "def ", "ghi"]),
    ("一二三四五六七", 3, ["一二三", "四五六", "七"]),
])
def test_pieces_end_after_a_sentence_end_else_whitespace_else_the_limit(line, limit, expected):
    assert list(line_pieces(line, limit)) == expected


def test_pieces_spell_the_line_and_keep_the_limit():
    line = "今天天气很好，我们去公园散步。" * 40 + "没有标点的一长串文字" * 30
    pieces = list(line_pieces(line, 100))
    assert "".join(pieces) == line and all(0 < len(p) <= 100 for p in pieces)


def test_a_long_line_segments_in_pieces_and_a_short_one_whole(trained_nlp):
    """A line longer than the piece is segmented piece by piece, streamed (the model reads each
    piece's own windows: `research/benchmarks/long_lines.py` counts the boundaries that differ
    from the whole line's for the main job's model); one output line per input line, empty lines
    kept; a line within the limit gives the words of `nlp(line)`."""
    import io

    from spacy_gdcws.app.segment import segment_lines, write_segmented
    from spacy_gdcws.eval.conllu import write_conllu
    from tests.pipeline.test_long_docs import sxu_test_text

    line = sxu_test_text(3000, "")
    lines = ["", line, "我爱北京天安门。"]
    pieces = list(line_pieces(line, 400))
    got = list(segment_lines(trained_nlp, lines, piece=400))
    assert [last for _, last in got] == [True] + [False] * (len(pieces) - 1) + [True, True] and len(pieces) > 5
    assert [doc.text for doc, _ in got[1:-1]] == pieces
    words = [t.text for doc, _ in got[1:-1] for t in doc]
    out = io.StringIO()
    assert write_segmented(iter(got), out, "/") == 3
    assert out.getvalue().split("\n") == ["", "/".join(w for w in words if w.strip()),
                                           "/".join(t.text for t in trained_nlp("我爱北京天安门。")), ""]
    conllu = io.StringIO()
    assert write_conllu(iter(got), conllu) == 3
    forms = [row.split("\t")[1] for row in conllu.getvalue().split("\n") if row and not row.startswith("#")]
    assert "".join(forms) == line + "我爱北京天安门。"
    ((whole, _),) = segment_lines(trained_nlp, [line], piece=len(line))
    assert [t.text for t in whole] == [t.text for t in trained_nlp(line)]


def test_batches_hold_a_bounded_number_of_characters():
    from spacy.lang.zh import Chinese

    from spacy_gdcws.pipeline.words import doc_batches

    nlp = Chinese()
    docs = [nlp.make_doc(text) for text in ["一二三", "四五", "六七八九十", "", "甲"]]
    assert [[len(d) for d in b] for b in doc_batches(iter(docs), 10, 5)] == [[3, 2], [5, 0], [1]]
    assert [[len(d) for d in b] for b in doc_batches(iter(docs), 2, 100)] == [[3, 2], [5, 0], [1]]
