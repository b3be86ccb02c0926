"""`segment --format pos|conllu` (issue #62): the words, UPOS and heads of `spacy.load` + `nlp.pipe`,
written as jieba's `word/POS` lines or CoNLL-U that `evaluate-ud` reads back."""
import json

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.readers.corpus import sentence_to_doc
from tests.util import ROOT, cli, run_cli

UD_TEST = ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu"


@pytest.mark.slow
def test_pos_and_conllu_give_what_nlp_pipe_gives_and_evaluate_ud_reads_it_back(tagged_model, tmp_path):
    sentences = list(read_conll(UD_TEST))[:200]
    lines = ["".join(s.words) for s in sentences]
    (tmp_path / "in.txt").write_text("\n".join(lines) + "\n", encoding="utf8")
    nlp = spacy.load(tagged_model)
    docs = list(nlp.pipe(lines))
    cli("segment", tagged_model, tmp_path / "in.txt", tmp_path / "pos.txt", "--format", "pos", "-q")
    out = (tmp_path / "pos.txt").read_text(encoding="utf8").splitlines()
    assert out == ["  ".join(f"{t.text}/{t.pos_}" for t in d if not t.is_space) for d in docs]
    cli("segment", tagged_model, tmp_path / "in.txt", tmp_path / "out.conllu", "--format", "conllu", "-q")
    written = list(read_conll(tmp_path / "out.conllu"))
    expected = [s for d in docs for s in d.sents]
    assert [w.words for w in written] == [[t.text for t in s] for s in expected]
    assert [w.pos for w in written] == [[t.pos_ for t in s] for s in expected]
    assert [w.heads for w in written] == [[t.head.i - s.start for t in s] for s in expected]
    # evaluate-ud scores the file against the gold docs of the same texts
    gold = tmp_path / "gold.spacy"
    DocBin(docs=[sentence_to_doc(nlp.vocab, s) for s in sentences]).to_disk(gold)
    cli("evaluate-ud", tmp_path / "out.conllu", gold, "--output", tmp_path / "m.json")
    from_file = json.loads((tmp_path / "m.json").read_text())["predicted_segmentation"]
    cli("evaluate-ud", tagged_model, gold, "--output", tmp_path / "m2.json")
    from_model = json.loads((tmp_path / "m2.json").read_text())["predicted_segmentation"]
    for key in ("words", "upos", "xpos", "uas", "las"):
        assert from_file[key]["f"] == pytest.approx(from_model[key]["f"])


def test_an_unknown_format_and_a_model_without_parser_are_one_line_errors(tagged_model, tmp_path):
    (tmp_path / "in.txt").write_text("我爱北京\n", encoding="utf8")
    bad = run_cli("segment", tagged_model, tmp_path / "in.txt", tmp_path / "o.txt", "--format", "xml")
    assert bad.returncode == 1 and "E121" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    words_only = tmp_path / "words"
    nlp = spacy.load(tagged_model)
    nlp.remove_pipe("parser")
    nlp.to_disk(words_only)
    none = run_cli("segment", words_only, tmp_path / "in.txt", tmp_path / "o.txt", "--format", "pos")
    assert none.returncode == 1 and "E123" in none.stderr and not (tmp_path / "o.txt").exists()
    # CoNLL-U from the words alone: `_` for the tags and heads nothing set
    words = run_cli("segment", words_only, tmp_path / "in.txt", tmp_path / "o.txt", "--format", "conllu")
    assert words.returncode == 0
    rows = [line.split("\t") for line in (tmp_path / "o.txt").read_text(encoding="utf8").splitlines()
            if line and not line.startswith("#")]
    assert rows and all(r[3] == "_" and r[6] == "_" and r[7] == "_" for r in rows)


def test_69_a_disabled_parser_is_not_a_tagger_and_spacys_tagger_is(tagged_model, tmp_path):
    """#69 (1): a pipeline saved with its parser disabled wrote empty tags and every word a root;
    one whose tags come from spaCy's own tagger was refused because no component is named parser."""
    (tmp_path / "in.txt").write_text("我爱北京\n", encoding="utf8")
    disabled = tmp_path / "disabled"
    spacy.load(tagged_model, enable=["segmenter"]).to_disk(disabled)
    out = run_cli("segment", disabled, tmp_path / "in.txt", tmp_path / "o.txt", "--format", "pos")
    assert out.returncode == 1 and "E123" in out.stderr
    out = run_cli("segment", disabled, tmp_path / "in.txt", tmp_path / "o.txt", "--format", "conllu")
    rows = [line.split("\t") for line in (tmp_path / "o.txt").read_text(encoding="utf8").splitlines()
            if line and not line.startswith("#")]
    assert out.returncode == 0 and all(r[6] == "_" and r[7] == "_" for r in rows)
    tagged = tmp_path / "tagger"
    nlp = spacy.load(tagged_model)
    nlp.remove_pipe("parser")
    tagger = nlp.add_pipe("tagger")
    tagger.add_label("NN")
    nlp.initialize()
    nlp.to_disk(tagged)
    out = run_cli("segment", tagged, tmp_path / "in.txt", tmp_path / "o.txt", "--format", "pos")
    assert out.returncode == 0 and (tmp_path / "o.txt").read_text(encoding="utf8").strip()
