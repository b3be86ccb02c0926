"""`segment --format pos|conllu|iob2` (issues #62, #78): the words, UPOS, heads and entities of
`spacy.load` + `nlp.pipe`, written as jieba's `word/POS` lines, CoNLL-U that `evaluate-ud` reads back
(entities in MISC, `NER=B-PER`), or Universal NER's IOB2 columns that its reader reads back."""
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


def test_78_entities_go_to_conllu_misc_and_to_unners_columns(tagged_model, tmp_path):
    from spacy_gdcws.eval.conllu import NER_KEY
    from spacy_gdcws.readers.iob2 import read_iob2

    lines = ["五月二十一日，努尔哈赤出城迎接前来沈阳的科尔沁部奥巴贝勒。他花费了许多时间来比较加拿大地质调查局博物馆中的恐龙化石。",
             "", "  劳特塔瓦尔湖是印度尼西亚的湖泊，位于苏门答腊岛北部。"]
    (tmp_path / "in.txt").write_text("\n".join(lines) + "\n", encoding="utf8")
    nlp = spacy.load(tagged_model)
    sents = [s for doc in nlp.pipe(lines) for s in doc.sents if any(not t.is_space for t in s)]
    expected = [[(e.start - s.start, e.end - s.start, e.label_) for e in s.ents] for s in sents]
    assert any(expected)
    cli("segment", tagged_model, tmp_path / "in.txt", tmp_path / "out.conllu", "--format", "conllu", "-q")
    misc = [[m for m in line.split("\t")[9].split("|") if m.startswith(NER_KEY + "=")]
            for line in (tmp_path / "out.conllu").read_text(encoding="utf8").splitlines() if line and line[0] != "#"]
    words = [t for s in sents for t in s if not t.is_space]
    assert [m[0][len(NER_KEY) + 1:] if m else "O" for m in misc] == [
        f"{t.ent_iob_}-{t.ent_type_}" if t.ent_type_ else "O" for t in words]
    cli("segment", tagged_model, tmp_path / "in.txt", tmp_path / "out.iob2", "--format", "iob2", "-q")
    read = list(read_iob2(tmp_path / "out.iob2"))
    assert [r.words for r in read] == [[t.text for t in s if not t.is_space] for s in sents]
    # UNER's columns: ID, FORM, TAG and two '-'; its reader gives back the same entities
    rows = [line.split("\t") for line in (tmp_path / "out.iob2").read_text(encoding="utf8").splitlines()
            if line and line[0] != "#"]
    assert all(len(r) == 5 and r[3:] == ["-", "-"] for r in rows)
    assert [r.meta["entities"] for r in read] == [[(a - sum(t.is_space for t in s[:a]), b - sum(t.is_space for t in s[:b]), label)
                                                  for a, b, label in ents] for s, ents in zip(sents, expected)]


def test_80_given_words_are_tagged_and_parsed_as_the_models_own(tagged_model, tmp_path):
    """#80: words you already have, through Python (`words_doc`) and both CLI input formats (`words`,
    `conllu`), get the tags and heads the same words get when the model segments the text itself."""
    from spacy_gdcws import words_doc

    lines = ["我爱北京天安门。", "他说：“今天天气很好。”然后走了。", "五月二十一日，努尔哈赤出城迎接前来沈阳的科尔沁部奥巴贝勒。"]
    nlp = spacy.load(tagged_model)
    raw = list(nlp.pipe(lines))
    analysis = [[(t.text, t.pos_, t.tag_, t.head.i, t.dep_) for t in d] for d in raw]
    given = [nlp(words_doc(nlp.vocab, [t.text for t in d])) for d in raw]
    assert [[(t.text, t.pos_, t.tag_, t.head.i, t.dep_) for t in d] for d in given] == analysis
    (tmp_path / "in.txt").write_text("\n".join(lines) + "\n", encoding="utf8")
    (tmp_path / "words.txt").write_text("\n".join(" ".join(t.text for t in d) for d in raw) + "\n", encoding="utf8")
    cli("segment", tagged_model, tmp_path / "in.txt", tmp_path / "raw.conllu", "--format", "conllu", "-q")
    cli("segment", tagged_model, tmp_path / "words.txt", tmp_path / "w.conllu", "--format", "conllu", "-q",
        "--input-format", "words")

    def rows(path):
        return [line.split("\t")[1:8] for line in path.read_text(encoding="utf8").splitlines()
                if line and not line.startswith("#")]

    assert [r[:6] for r in rows(tmp_path / "w.conllu")] == [r[:6] for r in rows(tmp_path / "raw.conllu")]
    # a CoNLL-U file's words re-tagged and re-parsed: each of its sentences as one, its comments kept
    cli("segment", tagged_model, tmp_path / "raw.conllu", tmp_path / "again.conllu", "--format", "conllu", "-q",
        "--input-format", "conllu")
    again = (tmp_path / "again.conllu").read_text(encoding="utf8")
    assert rows(tmp_path / "again.conllu") == rows(tmp_path / "raw.conllu")
    assert [line for line in again.splitlines() if line.startswith("#")] == [
        line for line in (tmp_path / "raw.conllu").read_text(encoding="utf8").splitlines() if line.startswith("#")]
