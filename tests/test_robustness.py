"""A standing probe of eight classes of wrong or silent results (issue #26).

Each case states its exact outcome: the words, or the error code. Checked against
c5cdd2a (the main before the fixes of 2026-11-25), these failed there:
1. threads: 29 of 200 lines differed with 4 threads sharing a dropout model (predict
   toggled eval()/train() on the shared torch module) -> `test_four_threads_...`;
2. context: the issue saw 17 of 300 SXU lines change with a trailing newline (the SXU model
   with priors); on c5cdd2a the fixture model with strong label-transition and tag priors
   (3 / 3) gave SXU test line 290 other words after a newline than alone, alone and joined
   to line 289 -> `test_strong_priors_do_not_run_across_a_line_break` (needs ../shared);
3. score: a truncated prediction file scored F 1.000 with exit status 0 -> `truncated`;
4. segment: `-b 0` wrote 0 lines and exited 0 -> `args0`;
5. corrupt files: a flipped byte in the weights plus an emptied words.txt loaded and
   segmented -> `model-flip`, `words.txt-empty`;
6. a doc of word tokens came back unchanged -> `test_word_tokens_are_refused_...`;
7. URLs, e-mails, numbers, Latin words, grapheme clusters were split inside (tests/test_units.py);
8. `transition_weight = inf` was accepted -> `transition_weight-inf`; E022 had five causes.
"""
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_gdcws.readers import read_conll

from .conftest import plain_embed, train_model

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "legacy_gd_v2"
SXU_TEST = ROOT.parent / "shared" / "corpora" / "sxu" / "test.txt"


def blank():
    return spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})


def words(nlp, text):
    return [t.text for t in nlp(text)]


@pytest.fixture(scope="module")
def lines():
    """300 lines: the SXU test file where the shared corpora are beside the repo, else UD test."""
    if SXU_TEST.exists():
        out = ["".join(line.split()) for line in SXU_TEST.read_text(encoding="utf8").split("\n")]
    else:
        out = ["".join(s.words) for s in read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu")]
    return [line for line in out if line][:300]


@pytest.fixture(scope="module")
def dropout_nlp():
    """A small segmenter with dropout in every layer (what makes train mode visible), trained for a few steps."""
    model = {
        "@architectures": "spacy_gdcws.CharSegmenter.v1",
        "embed": plain_embed(width=32, char_rows=2000, bigram_rows=4000,
                  bigram_width=16, dropout=0.3, lexicon_max_len=4),
        "encoder": {"@architectures": "spacy_gdcws.IDCNN.v1", "width": 32, "dropout": 0.3},
        "scorer": {"@architectures": "spacy_gdcws.GapScorer.v1", "width": 32, "hidden": 16}}
    sents = [s for _, s in zip(range(60), read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"))]
    return train_model(model, sents, 15, 0.01)[0]


# 1. threads ------------------------------------------------------------------------------------


def test_four_threads_give_the_single_thread_words(dropout_nlp, lines):
    """Failed on c5cdd2a: predict set eval(), ran, then set train() again, under other threads."""
    texts = lines[:200]
    single = [words(dropout_nlp, t) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        calls = list(pool.map(lambda t: words(dropout_nlp, t), texts))
        piped = list(pool.map(lambda part: [[t.text for t in d] for d in dropout_nlp.pipe(part, batch_size=16)],
                              [texts[i::4] for i in range(4)]))
    assert calls == single
    assert [piped[i % 4][i // 4] for i in range(len(texts))] == single


def test_threads_during_one_update_never_see_dropout(dropout_nlp, lines):
    seg = dropout_nlp.get_pipe("gdcws_segmenter")
    before = [words(dropout_nlp, t) for t in lines[:20]]
    seg.model.layers[0].shims[0].net.train()  # as an update leaves it
    results = []
    workers = [threading.Thread(target=lambda: results.append([words(dropout_nlp, t) for t in lines[:20]])) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert all(r == before for r in results)


# 2. context ------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["greedy", "priors"])
def context_nlp(request):
    nlp = spacy.load(FIXTURE)
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


def test_strong_priors_do_not_run_across_a_line_break():
    """Failed on c5cdd2a: with transition and tag priors of weight 3, SXU test line 290 began
    with other words after a newline (a transition from the newline's gap), alone and after
    line 289 (2 words became 1 there)."""
    if not SXU_TEST.exists():
        pytest.skip(f"{SXU_TEST} not available")
    sxu = ["".join(line.split()) for line in SXU_TEST.read_text(encoding="utf8").split("\n") if line.strip()]
    before, line = sxu[288], sxu[289]
    nlp = spacy.load(FIXTURE)
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.transition_weight, seg.tag_prior_weight, seg.bigram_prior_weight = 3.0, 3.0, 0.0
    alone = words(nlp, line)
    assert words(nlp, "\n" + line) == ["\n"] + alone
    assert words(nlp, before + "\n" + line) == words(nlp, before) + ["\n"] + alone
    # the line's first two words as c5cdd2a gave them alone (after a newline it gave them as one)
    assert len(alone[0]) == 1 and len(alone[1]) == 2


# 3. the scorer -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    folder = tmp_path_factory.mktemp("score")
    gold = ["北京  大学  在  北京", "我  爱  天安门", "今天  天气  很好"]
    (folder / "dict.txt").write_text("北京\n大学\n", encoding="utf8")
    (folder / "gold.txt").write_text("\n".join(gold) + "\n", encoding="utf8")
    return folder, gold


def _score(folder, lines, *extra):
    (folder / "test.txt").write_text("".join(line + "\n" for line in lines), encoding="utf8")
    cmd = [sys.executable, "-m", "spacy_gdcws", "score", str(folder / "dict.txt"), str(folder / "gold.txt"),
           str(folder / "test.txt"), *extra]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.mark.parametrize("case,lines,code", [
    ("truncated (failed on c5cdd2a: F 1.000, exit 0)", ["北京  大学  在  北京", "我  爱  天安门"], "E020"),
    ("empty", [], "E020"),
    ("extended", ["北京  大学  在  北京", "我  爱  天安门", "今天  天气  很好", "多余"], "E020"),
    ("reordered", ["我  爱  天安门", "北京  大学  在  北京", "今天  天气  很好"], "E048"),
    ("a character changed", ["北京  大学  在  北京", "我  爱  天安们", "今天  天气  很好"], "E048"),
    ("a character lost", ["北京  大学  在  北", "我  爱  天安门", "今天  天气  很好"], "E048"),
])
def test_misaligned_predictions_are_coded_errors(scored, case, lines, code):
    folder, _ = scored
    run = _score(folder, lines)
    assert run.returncode == 1 and code in run.stderr and "Traceback" not in run.stderr, (case, run.stderr)


def test_aligned_predictions_score_with_more_digits_on_request(scored):
    folder, gold = scored
    run = _score(folder, ["北京大学  在  北京", "我  爱  天安门", "今天  天气  很好"], "--digits", "4")
    assert run.returncode == 0, run.stderr
    # 8 of 10 gold words found, 8 of 9 predicted words right
    assert "=== F MEASURE:\t0.8421" in run.stdout and "PRECISION:\t0.8889" in run.stdout
    assert _score(folder, gold, "--digits", "0").returncode == 1


# 4. the segment command line --------------------------------------------------------------------------


@pytest.mark.parametrize("args,code", [
    (["-b", "0"], "E047"),  # failed on c5cdd2a: wrote nothing, exit 0
    (["-b", "-3"], "E047"),
    (["-n", "0"], "E047"),
    (["--user-dict", "MISSING"], "E016"),
    (["--user-dict", "BAD"], "E015"),
    (["--user-dict-mode", "always", "--user-dict", "GOOD"], "E045"),
])
def test_bad_segment_arguments_are_one_line_errors(tmp_path, args, code):
    (tmp_path / "in.txt").write_text("我爱北京。\n", encoding="utf8")
    (tmp_path / "BAD").write_text("北京 大学 force\n", encoding="utf8")
    (tmp_path / "GOOD").write_text("北京\n", encoding="utf8")
    args = [str(tmp_path / a) if a in ("MISSING", "BAD", "GOOD") else a for a in args]
    out = tmp_path / "out.txt"
    cmd = [sys.executable, "-m", "spacy_gdcws", "segment", str(FIXTURE), str(tmp_path / "in.txt"), str(out), *args]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 1 and code in run.stderr and "Traceback" not in run.stderr, run.stderr
    assert not out.exists()


# 5. corrupt model files -------------------------------------------------------------------------------


def _corrupt(path: Path, how: str) -> None:
    if how == "flip":
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
    elif how == "empty":
        path.write_text("", encoding="utf8")
    elif how == "delete":
        path.unlink()
    elif how == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize("name,how,code", [
    ("model", "flip", "E064"),  # failed on c5cdd2a: loaded and segmented garbage
    ("model", "truncate", "E064"),
    ("model", "delete", "E063"),
    ("words.txt", "empty", "E064"),  # failed on c5cdd2a: loaded without its dictionary
    ("words.txt", "delete", "E063"),
    ("words.txt", "flip", "E064"),
    ("cfg", "truncate", "E064"),
    ("pairs", "flip", "E064"),
    ("user_dict.json", "empty", "E064"),
    ("checksums.json", "truncate", "E064"),
])
def test_corrupt_files_fail_at_load_naming_the_file(tmp_path, name, how, code):
    nlp = spacy.load(FIXTURE)
    nlp.to_disk(tmp_path / "nlp")
    _corrupt(tmp_path / "nlp" / "gdcws_segmenter" / name, how)
    with pytest.raises(ValueError, match=code) as error:
        spacy.load(tmp_path / "nlp")
    assert name in str(error.value) or name == "checksums.json"


def test_words_missing_from_a_pipeline_without_checksums(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "old")
    (tmp_path / "old" / "gdcws_segmenter" / "words.txt").write_text("", encoding="utf8")
    with pytest.raises(ValueError, match="E065.*words.txt"):
        spacy.load(tmp_path / "old")


def test_a_truncated_config_does_not_load(tmp_path):
    nlp = spacy.load(FIXTURE)
    nlp.to_disk(tmp_path / "nlp")
    config = tmp_path / "nlp" / "config.cfg"
    text = config.read_text(encoding="utf8")
    config.write_text(text[: text.index("[components.gdcws_segmenter.model]") + 40], encoding="utf8")
    with pytest.raises(Exception):
        spacy.load(tmp_path / "nlp")


def test_a_failed_save_leaves_the_previous_folder(tmp_path, monkeypatch):
    """Failed on c5cdd2a: the half-written folder stayed and later loaded."""
    nlp = spacy.load(FIXTURE)
    nlp.to_disk(tmp_path / "nlp")
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.add_words(["北京大学"])

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("spacy_gdcws.pipeline.serialize.write_checksums", broken)
    with pytest.raises(OSError):
        nlp.to_disk(tmp_path / "nlp")
    assert spacy.load(tmp_path / "nlp").get_pipe("gdcws_segmenter").user_dict.words == {}
    assert not [p for p in (tmp_path / "nlp").iterdir() if p.name.startswith(".")]


# 6. a tokenizer that is not the character tokenizer ------------------------------------------------------


def test_word_tokens_are_refused_not_passed_through():
    """Failed on c5cdd2a: a doc of words came back unchanged."""
    nlp = spacy.load(FIXTURE)
    seg = nlp.get_pipe("gdcws_segmenter")
    doc = Doc(nlp.vocab, words=["北京", "大学", "在", "这里"], spaces=[False] * 4)
    with pytest.raises(ValueError, match="E014"):
        seg(doc)
    with pytest.raises(ValueError, match="E014"):
        list(seg.pipe([doc]))
    word_nlp = spacy.blank("zh")
    word_nlp.tokenizer = lambda text: Doc(word_nlp.vocab, words=[text[:2], text[2:]], spaces=[False, False])
    word_nlp.add_pipe("gdcws_segmenter")
    ref = Doc(word_nlp.vocab, words=["北京", "大学"], spaces=[False, False])
    with pytest.raises(ValueError, match="E014"):
        word_nlp.initialize(lambda: [Example(word_nlp.make_doc("北京大学"), ref)])


# 8. hostile weights and settings ---------------------------------------------------------------------------


@pytest.mark.parametrize("setting,value,code", [
    ("transition_weight", float("inf"), "E030"),  # failed on c5cdd2a: accepted
    ("transition_weight", float("nan"), "E030"),
    ("transition_weight", -1.0, "E030"),
    ("tag_prior_weight", float("inf"), "E030"),  # failed on c5cdd2a: accepted
    ("tag_prior_weight", -0.5, "E030"),
    ("bigram_prior_weight", float("inf"), "E030"),  # failed on c5cdd2a: accepted
    ("bigram_prior_weight", float("nan"), "E030"),
    ("user_dict_bonus", float("inf"), "E030"),
    ("threshold", 0.0, "E013"),
    ("threshold", 1.0, "E013"),
    ("threshold", float("nan"), "E013"),
])
def test_hostile_settings_are_refused_at_load(tmp_path, setting, value, code):
    """In the saved config, as a tuned pipeline would have them."""
    shutil.copytree(FIXTURE, tmp_path / "nlp")
    config = tmp_path / "nlp" / "config.cfg"
    text = config.read_text(encoding="utf8")
    head = "[components.gdcws_segmenter]\n"
    assert head in text
    lines = [line for line in text.split("\n") if not line.startswith(f"{setting} = ")]
    text = "\n".join(lines).replace(head, f"{head}{setting} = {value}\n")
    config.write_text(text, encoding="utf8")
    with pytest.raises(Exception, match=code):
        spacy.load(tmp_path / "nlp")


def test_hostile_weights_are_refused_when_set(dropout_nlp):
    seg = dropout_nlp.get_pipe("gdcws_segmenter")
    for name in ("transition_weight", "tag_prior_weight", "bigram_prior_weight"):
        for value in (float("inf"), float("-inf"), float("nan"), -1e-9, "x"):
            with pytest.raises(ValueError, match="E030"):
                setattr(seg, name, value)
        assert getattr(seg, name) == 0.0


def test_each_error_code_has_one_cause():
    """Failed on c5cdd2a: E022 stood for five different mistakes, E010 for eight."""
    import re

    templates = {}
    for path in (ROOT / "spacy_gdcws").rglob("*.py"):
        if path.name == "errors.py":  # its codes are read from the class below
            continue
        for code, text in re.findall(r'\[(E\d{3})\] ([^"{]{0,40})', path.read_text(encoding="utf8")):
            templates.setdefault(code, set()).add(text.split("{")[0][:25])
    from spacy_gdcws.errors import Errors

    for code in [c for c in vars(Errors) if re.fullmatch(r"E\d{3}", c)]:
        templates.setdefault(code, set()).add(getattr(Errors, code)[7:32])
    shared = {code: texts for code, texts in templates.items() if len(texts) > 1}
    assert not shared, shared


def test_every_error_is_a_code_of_errors_py():
    """Failed on fda9378: 24 errors were raised inline in nn/ and architectures.py,
    E001 and E058 from two places each."""
    import re

    inline = []
    for path in (ROOT / "spacy_gdcws").rglob("*.py"):
        if path.name == "errors.py":
            continue
        text = path.read_text(encoding="utf8")
        inline += [f"{path.name}: {m}" for m in re.findall(r'raise \w*(?:Error|Exception)\(f?["\'][^"\']*', text)]
        inline += [f"{path.name}: {m}" for m in re.findall(r'["\']\[E\d{3}\]', text)]
    assert not inline, inline
    from spacy_gdcws.errors import Errors

    raised = {}
    for path in (ROOT / "spacy_gdcws").rglob("*.py"):
        for code in re.findall(r"Errors\.(E\d{3})", path.read_text(encoding="utf8")):
            raised.setdefault(code, set()).add(path.name)
            assert hasattr(Errors, code), code
    assert raised["E001"] == {"config.py"} and raised["E058"] == {"config.py"}


# inputs ---------------------------------------------------------------------------------------------------

INPUTS = ["", " ", "   ", "\n", "\n\n\n", "\t", "\u3000", " \u3000\n ", "\x00", "\x00\x01\x02北京\x7f", "\u200b\u200b",
          "北", "北 京", "北  京", "北\u3000京", "北\r\n京", " 北京 ", "\ufeff北京", "a", "ab", "𠀀𠀁", "🇨🇳北京"]


@pytest.mark.parametrize("text", INPUTS)
def test_odd_inputs_keep_their_text_and_pipe_equals_call(text):
    nlp = spacy.load(FIXTURE)
    doc = nlp(text)
    assert doc.text == text
    assert [t.text for t in next(nlp.pipe([text]))] == [t.text for t in doc]


def test_a_lone_surrogate_is_a_coded_error():
    nlp = spacy.load(FIXTURE)
    with pytest.raises(ValueError, match="E066.*U\\+D800.*character 3"):
        nlp("北京a\ud800b")


def test_a_long_line_segments_in_windows(lines):
    """A 2M-character line (no line break) segments whole; each window is bounded
    (research/benchmarks/speed.py measures the memory of 1M lines and 10M characters)."""
    nlp = spacy.load(FIXTURE)
    nlp.max_length = 3_000_000
    text = ("".join(lines) * (2_000_000 // len("".join(lines)) + 1))[:2_000_000]
    doc = nlp(text)
    assert doc.text == text and len(doc) > 500_000


def test_the_error_table_in_docs_is_up_to_date():
    sys.path.insert(0, str(ROOT / "research" / "scripts"))
    from error_table import table

    assert (ROOT / "docs" / "errors.md").read_text(encoding="utf8") == table(), "run: python research/scripts/error_table.py --write"
