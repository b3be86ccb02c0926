"""`eval.ud_eval`: words, UPOS and dependencies aligned on characters (CoNLL 2018 style)."""
import pytest
import spacy
from spacy.tokens import Doc

from spacy_gdcws.eval.ud_eval import evaluate_pipeline, score_ud


def make_doc(nlp, words, pos, heads, deps):
    return Doc(nlp.vocab, words=words, spaces=[False] * len(words), pos=pos, heads=heads, deps=deps)


@pytest.fixture
def nlp():
    return spacy.blank("zh")


@pytest.fixture
def gold(nlp):
    # 我 爱 北京 。  (爱 is the root)
    return make_doc(nlp, ["我", "爱", "北京", "。"], ["PRON", "VERB", "PROPN", "PUNCT"], [1, 1, 1, 1],
                    ["nsubj", "root", "obj", "punct"])


def test_gold_against_itself_is_perfect(nlp, gold):
    scores = score_ud([(gold, gold)])
    assert all(scores[k]["f"] == 1.0 for k in ("words", "upos", "uas", "las"))


def test_segmentation_error_costs_words_tags_and_arcs(nlp, gold):
    # 北京 split in two: 3 of 5 predicted words match 3 of 4 gold words
    pred = make_doc(nlp, ["我", "爱", "北", "京", "。"], ["PRON", "VERB", "PROPN", "PROPN", "PUNCT"],
                    [1, 1, 1, 2, 1], ["nsubj", "root", "obj", "flat", "punct"])
    scores = score_ud([(pred, gold)])
    assert scores["words"]["p"] == pytest.approx(3 / 5)
    assert scores["words"]["r"] == pytest.approx(3 / 4)
    assert scores["upos"]["r"] == pytest.approx(3 / 4)
    assert scores["uas"]["r"] == pytest.approx(3 / 4)


def test_wrong_head_and_label_are_counted_apart(nlp, gold):
    # same words; 我 attached to 北京 (wrong head), 。 has the wrong label
    pred = make_doc(nlp, ["我", "爱", "北京", "。"], ["PRON", "VERB", "NOUN", "PUNCT"], [2, 1, 1, 1],
                    ["nsubj", "root", "obj", "dep"])
    scores = score_ud([(pred, gold)])
    assert scores["words"]["f"] == 1.0
    assert scores["upos"]["f"] == pytest.approx(3 / 4)
    assert scores["uas"]["f"] == pytest.approx(3 / 4)
    assert scores["las"]["f"] == pytest.approx(2 / 4)


def test_texts_must_match(nlp, gold):
    other = make_doc(nlp, ["你", "爱", "北京", "。"], ["PRON", "VERB", "PROPN", "PUNCT"], [1, 1, 1, 1],
                     ["nsubj", "root", "obj", "punct"])
    with pytest.raises(ValueError, match="E023"):
        score_ud([(other, gold)])


def test_evaluate_pipeline_runs_both_settings(trained_nlp, sxu_sentences):
    from spacy_gdcws.readers import sentence_to_doc

    golds = [sentence_to_doc(trained_nlp.vocab, s) for s in sxu_sentences[:5]]
    result = evaluate_pipeline(trained_nlp, golds)
    # gold segmentation with the segmenter disabled keeps the gold words exactly
    assert result["gold_segmentation"]["words"]["f"] == 1.0
    # the segmenter was overfitted on these sentences
    assert result["predicted_segmentation"]["words"]["f"] > 0.9
    with pytest.raises(ValueError, match="E024"):
        evaluate_pipeline(trained_nlp, golds, segmenter="nope")


def test_las_drops_subtypes_as_conll_2018_does_and_counts_each_relation(nlp, gold):
    """#68: LAS compares the universal relation (`nmod:tmod` is `nmod`); `las_subtypes` the full one."""
    pred = make_doc(nlp, ["我", "爱", "北京", "。"], ["PRON", "VERB", "PROPN", "PUNCT"], [1, 1, 1, 1],
                    ["nsubj:pass", "ROOT", "obj", "punct"])
    scores = score_ud([(pred, gold)], relations=True)
    assert scores["las"]["f"] == 1.0 and scores["las_subtypes"]["f"] == pytest.approx(3 / 4)
    assert scores["relations"]["nsubj"]["f"] == 1.0 and scores["relations"]["root"]["gold"] == 1


GOLD_CONLLU = """# sent_id = 1
# text = 他 说 Hello World 好
1	他	_	PRON	PRP	_	2	nsubj	_	_
2	说	_	VERB	VV	_	0	root	_	_
3	Hello	_	X	FW	_	4	flat:foreign	_	_
4	World	_	X	FW	_	2	obj	_	_
5	好	_	ADJ	JJ	_	2	xcomp	_	_

# sent_id = 2
# text = 我爱北京天安门。
1	我	_	PRON	PRP	_	2	nsubj	_	SpaceAfter=No
2	爱	_	VERB	VV	_	0	root	_	SpaceAfter=No
3	北京	_	PROPN	NNP	_	4	nmod	_	SpaceAfter=No
4	天安门	_	PROPN	NNP	_	2	obj	_	SpaceAfter=No
5	。	_	PUNCT	.	_	2	punct	_	SpaceAfter=No

"""
SYSTEM_CONLLU = """# sent_id = 1
# text = 他 说 Hello World 好
1	他	_	PRON	PRP	_	2	nsubj	_	_
2	说	_	VERB	VV	_	0	root	_	_
3	Hello	_	X	FW	_	2	obj	_	_
4	World	_	X	NNP	_	3	flat	_	_
5	好	_	VERB	JJ	_	2	xcomp	_	_

# sent_id = 2
# text = 我爱北京天安门。
1	我	_	PRON	PRP	_	2	nsubj	_	SpaceAfter=No
2	爱	_	VERB	VV	_	0	root	_	SpaceAfter=No
3	北京天安门	_	PROPN	NNP	_	2	obj	_	SpaceAfter=No
4	。	_	PUNCT	.	_	2	punct:x	_	SpaceAfter=No

"""


def test_the_scores_are_the_official_conll_2018_scorers(tmp_path):
    """#68: Words, UPOS, XPOS, UAS and LAS as udtools' `udeval` (the CoNLL 2018 scorer, GPL: run as a
    tool, never imported) gives them, on a file with a word split wrongly and subtypes."""
    import json
    import shutil
    import subprocess

    udeval = shutil.which("udeval")
    if udeval is None:
        pytest.skip("udtools' udeval is not installed (the [test] extra installs it)")
    gold_path, system_path = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    gold_path.write_text(GOLD_CONLLU, encoding="utf8")
    system_path.write_text(SYSTEM_CONLLU, encoding="utf8")
    out = subprocess.run([udeval, "-v", str(gold_path), str(system_path)], capture_output=True, text=True, check=True)
    official = {}
    for line in out.stdout.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) >= 4 and cells[0] in ("Words", "UPOS", "XPOS", "UAS", "LAS"):
            official[cells[0].lower()] = float(cells[3])
    from spacy_gdcws.eval.ud_eval import docs_from_sentences, read_gold
    from spacy_gdcws.readers.conll import read_conll

    vocab = spacy.blank("zh").vocab
    golds, texts = read_gold(gold_path, vocab)
    assert texts == ["他 说 Hello World 好", "我爱北京天安门。"]
    ours = score_ud(zip(docs_from_sentences(vocab, list(read_conll(system_path)), golds), golds))
    assert set(official) == {"words", "upos", "xpos", "uas", "las"}
    for key, value in official.items():
        assert round(ours[key]["f"] * 100, 2) == pytest.approx(value), (key, json.dumps(ours[key]))


@pytest.mark.parametrize("system,code", [
    # two roots in a sentence
    (GOLD_CONLLU.replace("1\t他\t_\tPRON\tPRP\t_\t2\tnsubj", "1\t他\t_\tPRON\tPRP\t_\t0\troot"), "E132"),
    # a cycle with no root
    (GOLD_CONLLU.replace("2\t说\t_\tVERB\tVV\t_\t0\troot", "2\t说\t_\tVERB\tVV\t_\t1\tccomp"), "E132"),
    (GOLD_CONLLU.replace("1\t他\t_\tPRON\tPRP\t_\t2\tnsubj", "1\t他\t_\tPRON\tPRP\t_\t3\tnsubj")
     .replace("3\tHello\t_\tX\tFW\t_\t4", "3\tHello\t_\tX\tFW\t_\t1"), "E133"),
    # the same block twice
    (GOLD_CONLLU + GOLD_CONLLU.split("\n\n")[1] + "\n\n", "E134"),
])
def test_a_system_file_that_is_not_trees_for_these_texts_is_refused(tmp_path, system, code):
    """#69 (2, 3): two roots, a cycle, or sentences after the last gold text: one coded line, not a score."""
    from spacy_gdcws.eval.ud_eval import docs_from_sentences, read_gold
    from spacy_gdcws.readers.conll import read_conll

    (tmp_path / "gold.conllu").write_text(GOLD_CONLLU, encoding="utf8")
    (tmp_path / "system.conllu").write_text(system, encoding="utf8")
    vocab = spacy.blank("zh").vocab
    golds, _ = read_gold(tmp_path / "gold.conllu", vocab)
    with pytest.raises(ValueError, match=code):
        docs_from_sentences(vocab, list(read_conll(tmp_path / "system.conllu")), golds, tmp_path / "system.conllu")
