"""#79, no silent loss round 5: each silent and loud cause of the probe at 122bb17, now a correct
result or one coded line (each failed there)."""
import json
import subprocess
import sys
import warnings

import pytest
import spacy

from spacy_gdcws.decoding.dictionary_files import text_lines
from spacy_gdcws.io import verify_checksums
from tests.util import ROOT, run_cli


def _words(nlp, text):
    return [t.text for t in nlp(text)]


# -- silent -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,phrase_whole", [("我住在New Yorker酒店", False), ("New Yorkshire郡", False),
                                               ("RenewNew York", False), ("我住在New York酒店", True)])
def test_s1_a_phrase_is_matched_at_unit_edges_only_and_warns(trained_copy, text, phrase_whole):
    seg = trained_copy.get_pipe("gdcws_segmenter")
    seg.atomic_units = True
    seg.add_words(["New York"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        doc = trained_copy(text)
    words = [t.text for t in doc]
    assert doc.text == text
    assert ("New York" in words) == phrase_whole
    assert not any(w in ("er", "shire") for w in words)  # no Latin word is cut open
    if not phrase_whole:
        assert any("W004" in str(w.message) for w in caught)


@pytest.mark.parametrize("line,word,freq,tag", [("小米 note 3", "小米 note", 3, None), ("hello kitty 5", "hello kitty", 5, None),
                                                ("machine learning 5", "machine learning", 5, None),
                                                ("印象笔记 nz 1024", "印象笔记", 1024, "nz")])
def test_s2_a_line_means_one_thing(line, word, freq, tag):
    """jieba's grammar for a lowercase word that is no part of speech (a phrase and its frequency);
    HanLP's WORD TAG FREQ where the tag is one, with a warning that jieba reads it otherwise (W005)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (entry,) = list(text_lines(line, "d.txt"))
    assert (entry.word, entry.freq, entry.tag) == (word, freq, tag)
    assert any("W005" in str(w.message) for w in caught) == (tag is not None)


def test_s3_lines_end_at_line_feeds_only():
    text = "上\x0c海\n北京\x0b城 5\n\u2028\n深圳\r\n天津 5\t\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        entries = list(text_lines(text, "d.txt", strict=False))
    assert [e.word for e in entries] == ["深圳", "天津"]
    lines = [str(w.message) for w in caught if "W002" in str(w.message)]
    # the lines as a text editor numbers them (line 3, a line separator alone, is blank: skipped)
    assert [m.split(":")[1] for m in lines] == ["1", "2"]


def test_s4_an_output_inside_the_model_is_refused(saved, tmp_path):
    folder = saved / "model"
    inside = folder / "segmenter_out.txt"
    (tmp_path / "in.txt").write_text("我爱北京\n", encoding="utf8")
    before = sorted(p.name for p in folder.iterdir())
    out = run_cli("segment", folder, tmp_path / "in.txt", inside)
    assert out.returncode == 1 and "E146" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in folder.iterdir()) == before
    assert spacy.load(folder)("我爱北京")


def test_s5_pred_output_is_written_for_a_system_file(tagged_model, tmp_path):
    from spacy_gdcws.readers.conll import read_conll
    from spacy_gdcws.readers.corpus import sentence_to_doc
    from spacy.tokens import DocBin

    sentences = list(read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu"))[:5]
    (tmp_path / "in.txt").write_text("\n".join("".join(s.words) for s in sentences) + "\n", encoding="utf8")
    subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", str(tagged_model), str(tmp_path / "in.txt"),
                    str(tmp_path / "sys.conllu"), "--format", "conllu", "-q"], check=True)
    gold = tmp_path / "gold.spacy"
    DocBin(docs=[sentence_to_doc(spacy.blank("zh").vocab, s) for s in sentences]).to_disk(gold)
    out = run_cli("evaluate-ud", tmp_path / "sys.conllu", gold, "--output", tmp_path / "m.json",
                  "--pred-output", tmp_path / "pred.conllu")
    assert out.returncode == 0, out.stderr
    written = list(read_conll(tmp_path / "pred.conllu"))
    assert [s.words for s in written] and sum(len(s.words) for s in written) == sum(
        len(s.words) for s in read_conll(tmp_path / "sys.conllu"))


def test_s6_a_listing_never_names_a_file_outside_its_folder(tmp_path):
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "a.txt").write_text("a", encoding="utf8")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret", encoding="utf8")
    (folder / "link.txt").symlink_to(outside)
    import hashlib

    digest = hashlib.sha256(b"secret").hexdigest()
    for entry in ("../outside.txt", str(outside), "link.txt"):
        (folder / "sums.json").write_text(json.dumps({entry: digest}), encoding="utf8")
        with pytest.raises(ValueError, match="E145"):
            verify_checksums(folder, "sums.json")


# (S7, the joiners and UAX #29's clusters: tests/decoding/test_units.py, test_79_*)

# -- loud ---------------------------------------------------------------------------------------

def test_l1_evaluate_ud_reads_a_form_with_a_space(tagged_model, tmp_path):
    from spacy.tokens import DocBin

    from spacy_gdcws.readers.corpus import sentence_to_doc
    from spacy_gdcws.readers.base import Sentence

    text = "我住在New York。"
    (tmp_path / "in.txt").write_text(text + "\n", encoding="utf8")
    (tmp_path / "d.txt").write_text("New York\n", encoding="utf8")
    subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", str(tagged_model), str(tmp_path / "in.txt"),
                    str(tmp_path / "sys.conllu"), "--format", "conllu", "-q", "--user-dict", str(tmp_path / "d.txt")],
                   check=True)
    assert "\tNew York\t" in (tmp_path / "sys.conllu").read_text(encoding="utf8")
    gold = tmp_path / "gold.spacy"
    sent = Sentence(words=["我", "住", "在", "New", "York", "。"], line=1)
    doc = sentence_to_doc(spacy.blank("zh").vocab, sent)
    DocBin(docs=[doc]).to_disk(gold)
    out = run_cli("evaluate-ud", tmp_path / "sys.conllu", gold, "--output", tmp_path / "m.json")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("line", ["北京\t", "北京 5\t", "Edu Trust认证 prefer", "Edu Trust认证 prefer 5"])
def test_l2_l3_trailing_whitespace_and_phrases_with_a_mode_load(line):
    (entry,) = list(text_lines(line, "d.txt"))
    assert entry.word in ("北京", "Edu Trust认证")
    assert entry.mode == ("prefer" if "prefer" in line else "force")


def test_l4_a_word_that_heads_itself_is_a_cycle(tmp_path):
    from spacy_gdcws.eval.ud_eval import check_tree
    from spacy_gdcws.readers.conll import read_conll

    path = tmp_path / "s.conllu"
    path.write_text("1\t我\t_\tPRON\t_\t_\t2\tnsubj\t_\t_\n2\t爱\t_\tVERB\t_\t_\t0\troot\t_\t_\n"
                    "3\t北京\t_\tPROPN\t_\t_\t3\tobj\t_\t_\n\n", encoding="utf8")
    (sent,) = list(read_conll(path))
    with pytest.raises(ValueError, match="E133"):
        check_tree(sent, path)


def test_l5_dev_stdout_on_a_pipe_is_stdout(saved, tmp_path):
    (tmp_path / "in.txt").write_text("我爱北京\n", encoding="utf8")
    out = subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", str(saved / "model"), str(tmp_path / "in.txt"),
                          "/dev/stdout", "-q"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() and "E103" not in out.stderr


def test_l6_spacy_load_names_a_damaged_strings_file(saved, tmp_path):
    import shutil

    folder = tmp_path / "p"
    shutil.copytree(saved / "model", folder)
    config = folder / "config.cfg"
    text = config.read_text(encoding="utf8")
    if "verified_load" not in text:
        config.write_text(text.replace("after_creation = null",
                                       'after_creation = {"@callbacks":"spacy_gdcws.verified_load.v1"}', 1), encoding="utf8")
    (folder / "vocab" / "strings.json").write_text("[not json", encoding="utf8")
    with pytest.raises(ValueError, match=r"E136.*strings\.json"):
        spacy.load(folder)


# -- smaller ------------------------------------------------------------------------------------

def test_a_whitespace_text_and_control_characters_are_no_words(tagged_model):
    nlp = spacy.load(tagged_model)
    (space,) = nlp("   ")
    assert (space.pos_, space.dep_) == ("SPACE", "dep") and space.head.i == 0
    doc = nlp("我\x07爱\x01\x02北京")
    controls = [t for t in doc if t.text.strip("\x01\x02\x07") == ""]
    assert controls and all(t.pos_ == "X" and t.dep_ == "dep" for t in controls)
    assert all(t.head.text.strip("\x01\x02\x07") for t in controls)  # they hang on a word
    assert "ROOT" not in [t.dep_ for t in nlp(" \u3000 ")]


def test_a_byte_order_mark_starting_a_later_line_is_no_word(saved, tmp_path):
    (tmp_path / "in.txt").write_bytes("我爱北京\n\ufeff我爱北京\n".encode("utf8"))
    out = run_cli("segment", saved / "model", tmp_path / "in.txt", "-", "-q")
    first, second = out.stdout.splitlines()
    assert first == second and "\ufeff" not in second


def test_new_codes_are_in_the_error_page():
    page = (ROOT / "docs" / "errors.md").read_text(encoding="utf8")
    for code in ("E133", "E140", "E141", "E142", "E143", "E144", "E145", "E146", "E147", "W005"):
        assert f"| {code} |" in page, code

