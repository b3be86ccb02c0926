"""The command line: segment, convert, score, prepare, init-config, package-meta, evaluate."""
import json
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import DocBin

from tests.util import ROOT, cli, corpus_path, run_cli


@pytest.mark.slow
def test_segment_keeps_every_line(trained_nlp, tmp_path):
    model = tmp_path / "model"
    trained_nlp.to_disk(model)
    lines = ["上海推迎奥运三大任务", "", "  ", "我在2024年买了iPhone 15", "\u3000中国人民", "😀"]
    src = tmp_path / "in.txt"
    src.write_text("\ufeff" + "\r\n".join(lines) + "\r\n", encoding="utf8")
    dst = tmp_path / "out.txt"
    cli("segment", model, src, dst, "--delimiter", "|")
    out_lines = dst.read_text(encoding="utf8").split("\n")[:-1]
    assert len(out_lines) == len(lines)
    for line, out_line in zip(lines, out_lines):
        doc = trained_nlp(line)
        assert doc.text == line
        assert out_line == "|".join(t.text for t in doc if not t.is_space)
        assert "".join(out_line.split("|")) == "".join(line.split())
    # stdin -> stdout
    stdout = cli("segment", model, stdin="\n".join(lines).encode("utf8"))
    assert len(stdout.split("\n")[:-1]) == len(lines)


@pytest.mark.slow
def test_convert_and_score(tmp_path):
    src = corpus_path("zhuxian/dev.zhuxian.wordpos")
    cli("convert", src, tmp_path / "train.spacy", "--dev-output", tmp_path / "dev.spacy",
        "--vocab-output", tmp_path / "words.txt", "--gold-output", tmp_path / "gold.txt")
    nlp = spacy.blank("zh")
    train = list(DocBin().from_disk(tmp_path / "train.spacy").get_docs(nlp.vocab))
    dev = list(DocBin().from_disk(tmp_path / "dev.spacy").get_docs(nlp.vocab))
    assert len(train) + len(dev) == 788 and len(dev) == 79
    assert all(not doc.has_unknown_spaces for doc in train)
    assert train[0][0].tag_ == "OD"
    out = cli("score", tmp_path / "words.txt", tmp_path / "gold.txt", tmp_path / "gold.txt")
    assert "=== F MEASURE:\t1.000" in out


def test_prepare_shipped_corpus(tmp_path):

    root = ROOT
    cli("prepare", "ud_gsdsimp", root / "assets", tmp_path)
    gold = (tmp_path / "test_gold.txt").read_text(encoding="utf8").split("\n")[:-1]
    raw = (tmp_path / "test_raw.txt").read_text(encoding="utf8").split("\n")[:-1]
    assert len(gold) == len(raw) == 500
    # the raw text is the sentences' own (CoNLL-U SpaceAfter): the gold characters, with the
    # spaces of the original text between Latin words
    assert all("".join(g.split()) == "".join(r.split()) for g, r in zip(gold, raw))
    assert any(" " in r for r in raw) and not any(r != r.strip() for r in raw)


@pytest.mark.slow
def test_init_config_writes_the_shipped_configs(tmp_path):
    """Every config ships in the package and `init-config` writes it out whole, for users
    who installed the wheel without cloning; an unknown name is a coded error."""
    from thinc.api import Config

    from spacy_gdcws.cli.init_config import CONFIG_DIR, shipped_configs

    names = cli("init-config", "--list").split()
    assert names == shipped_configs() and {"general", "idcnn", "default"} <= set(names)
    cli("init-config", "general", tmp_path / "general.cfg")
    written = (tmp_path / "general.cfg").read_text(encoding="utf8")
    assert written == (CONFIG_DIR / "general.cfg").read_text(encoding="utf8")
    config = Config().from_str(written, interpolate=False)
    assert config["components"]["segmenter"]["model"]["embed"]["normalize"] == "t2s+width"
    assert cli("init-config", "idcnn", "-") == (CONFIG_DIR / "idcnn.cfg").read_text(encoding="utf8")
    bad = subprocess.run([sys.executable, "-m", "spacy_gdcws", "init-config", "nope", str(tmp_path / "x.cfg")],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and "E087" in bad.stdout + bad.stderr and not (tmp_path / "x.cfg").exists()


@pytest.mark.slow
def test_init_config_general_trains_outside_a_clone(tmp_path):
    """Issue #48: general.cfg named `assets/lexicon/jieba_words.txt`, a path only a clone has;
    the lexicon now ships in the package and `paths.lexicon = null` reads it."""
    from spacy_gdcws.shipped import JIEBA_WORDS

    cli("init-config", "general", tmp_path / "general.cfg")
    (tmp_path / "train.txt").write_text("我  爱  北京  天安门  。\n他  在  电视台  工作  。\n" * 8, encoding="utf8")
    cli("convert", tmp_path / "train.txt", tmp_path / "train.spacy")
    cmd = [sys.executable, "-m", "spacy", "train", "general.cfg", "--output", "out", "--paths.train", "train.spacy",
           "--paths.dev", "train.spacy", "--training.max_steps", "2", "--training.eval_frequency", "1"]
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)  # not in a clone
    assert run.returncode == 0, run.stderr[-3000:]
    saved = (tmp_path / "out" / "model-last" / "segmenter" / "general_lexicon.txt").read_text(encoding="utf8")
    shipped = {line.split()[0] for line in JIEBA_WORDS.read_text(encoding="utf8").splitlines()}
    assert set(saved.splitlines()) == shipped and len(shipped) > 100_000


@pytest.mark.slow
def test_segment_threads_option_gives_the_same_words(trained_nlp, tmp_path):
    """`--threads` (torch threads per process) changes speed, never the words; a bad value is E047."""
    trained_nlp.to_disk(tmp_path / "model")
    source = tmp_path / "in.txt"
    source.write_text("我爱北京天安门。\n\n今天天气很好\n", encoding="utf8")
    outs = []
    for threads in ("1", "2"):
        cli("segment", tmp_path / "model", source, tmp_path / f"out{threads}.txt", "--threads", threads)
        outs.append((tmp_path / f"out{threads}.txt").read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\n") == 3
    bad = subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", str(tmp_path / "model"), str(source),
                          str(tmp_path / "bad.txt"), "--threads", "0"], capture_output=True, text=True)
    assert bad.returncode == 1 and "E047" in bad.stdout + bad.stderr


@pytest.mark.slow
def test_segment_precision_option(trained_nlp, tmp_path):
    """`--precision`: fp32 is the saved float32 model's words; bf16 and int8 keep every line and
    character; an unknown precision is E094 before any work."""
    import spacy

    from spacy_gdcws.app.precision import set_precision
    from spacy_gdcws.ml.shims import InPlacePyTorchShim

    trained_nlp.to_disk(tmp_path / "model")
    source = tmp_path / "in.txt"
    lines = ["我爱北京天安门。", "", "今天天气很好", "2024年ABC公司"]
    source.write_text("\n".join(lines) + "\n", encoding="utf8")
    outs = {}
    for precision in ("saved", "fp32", "bf16", "int8"):
        cli("segment", tmp_path / "model", source, tmp_path / f"{precision}.txt", "--precision", precision)
        outs[precision] = (tmp_path / f"{precision}.txt").read_text(encoding="utf8").split("\n")[:-1]
    assert outs["fp32"] == outs["saved"]
    for got in outs.values():
        assert ["".join(line.split("  ")) for line in got] == lines
    bad = subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", str(tmp_path / "model"), str(source),
                          str(tmp_path / "bad.txt"), "--precision", "int4"], capture_output=True, text=True)
    assert bad.returncode == 1 and "E094" in bad.stdout + bad.stderr and not (tmp_path / "bad.txt").exists()
    nlp = spacy.load(tmp_path / "model")
    set_precision(nlp, "bf16")
    shims = [s for n in nlp.get_pipe("gdcws_segmenter").model.walk() for s in n.shims if isinstance(s, InPlacePyTorchShim)]
    assert shims and all(s.mixed_precision for s in shims)
    set_precision(nlp, "fp32")
    assert not any(s.mixed_precision for s in shims)


@pytest.mark.parametrize("corpus,sizes", [
    # the main job's corpus: GSD train, GSDSimp dev, HK, CFL and PUD (shipped, CoNLL-X and CoNLL-U)
    ("ud_gsd_more", {"gsd": 3997, "gsdsimp_dev": 500, "hk": 1004, "cfl": 451, "pud": 1000}),
    # #47's commercial-use corpus: GSDSimp dev with HK, CFL and PUD, and (#78) Universal NER's GSDSimp
    # train: GSD train's sentences in UD v2's words, with entities and no trees
    ("ud_by_sa", {"gsdsimp_dev": 500, "hk": 1004, "cfl": 451, "pud": 1000, "uner_train": 3997}),
])
def test_prepare_holds_out_the_end_of_each_file(tmp_path, corpus, sizes):
    """Each file's last 10% in dev, so every source has its held-out part; the last dev
    sentence is the last file's last sentence; tested on GSDSimp test. Each sentence names its treebank (its
    file); the treebank the parser parses in leads train.spacy (GSDSimp dev's in both)."""
    from spacy_gdcws.readers.corpus import TREEBANK_KEY

    cli("prepare", corpus, ROOT / "assets", tmp_path / "c")
    n_dev = sum(int(round(n * 0.1)) for n in sizes.values())
    nlp = spacy.blank("zh")
    train = list(DocBin().from_disk(tmp_path / "c" / "train.spacy").get_docs(nlp.vocab))
    dev = list(DocBin().from_disk(tmp_path / "c" / "dev.spacy").get_docs(nlp.vocab))
    assert len(dev) == n_dev and len(train) == sum(sizes.values()) - n_dev
    from spacy_gdcws.readers import read_sentences

    last = {"pud": "ud_zh_more/zh_pud-ud-test.conllu", "uner_train": "uner_zh/zh_gsdsimp-ud-train.iob2"}[list(sizes)[-1]]
    assert dev[-1].text == "".join(list(read_sentences(ROOT / "assets" / last))[-1].words)
    assert len(list(DocBin().from_disk(tmp_path / "c" / "test.spacy").get_docs(nlp.vocab))) == 500
    names = {"gsd": "ud_zh/train.conll", "gsdsimp_dev": "ud_zh/zh_gsdsimp-ud-dev.conllu",
             "hk": "ud_zh_more/zh_hk-ud-test.conllu", "cfl": "ud_zh_more/zh_cfl-ud-test.conllu",
             "pud": "ud_zh_more/zh_pud-ud-test.conllu", "uner_train": "uner_zh/zh_gsdsimp-ud-train.iob2"}
    for part, docs in (("train", train), ("dev", dev)):
        order = sorted(sizes, key=lambda k: k != "gsdsimp_dev") if part == "train" else list(sizes)
        expected = [names[k] for k in order
                    for _ in range(sizes[k] - int(round(sizes[k] * 0.1)) if part == "train" else int(round(sizes[k] * 0.1)))]
        assert [d.user_data[TREEBANK_KEY] for d in docs] == expected
    # the segmenter's files: the same sentences, HK's, CFL's and PUD's words in GSD's standard (ud_gsd_more)
    for part, docs in (("train", train), ("dev", dev)):
        theirs = list(DocBin().from_disk(tmp_path / "c" / f"segmenter_{part}.spacy").get_docs(nlp.vocab))
        assert [d.text for d in theirs] == [d.text for d in docs]
        changed = [i for i, (a, b) in enumerate(zip(theirs, docs)) if [t.text for t in a] != [t.text for t in b]]
        if corpus == "ud_by_sa":
            assert not changed
        else:  # never GSD's or GSDSimp's own sentences
            held = {name: int(round(n * 0.1)) for name, n in sizes.items()}
            first = sum((sizes[k] - held[k]) if part == "train" else held[k] for k in ("gsd", "gsdsimp_dev"))
            assert changed and min(changed) >= first


def test_model_card_names_what_the_model_reads():
    from spacy_gdcws.cli.package_meta import CORPUS_TERMS, model_card

    official = {"precision": 0.95, "recall": 0.94, "f": 0.945, "oov_recall": 0.85, "iv_recall": 0.96}
    card = model_card("ud_gsd_more", "general", official, 5807, [("我爱北京天安门。", ["我", "爱", "北京", "天安", "门", "。"])],
                      "t2s+width", 126733)
    assert "我爱北京天安门。 → 我 / 爱 / 北京 / 天安 / 门 / 。" in card
    assert "t2s+width" in card and "126,733 words of jieba" in card
    terms = CORPUS_TERMS["ud_gsd_more"]
    assert len(terms["sources"]) == 9 and "v2.5" in terms["sources"][0]["author"]
    # #80: each source its own licence; #78: the entity model's sources (Universal NER) named
    assert all(source["license"] for source in terms["sources"])
    assert sum("Universal NER" in source["name"] for source in terms["sources"]) == 3
    # #47: no "strictest of its parts": each licence named, and that no one licence meets both
    assert all(name in terms["license"] for name in ("CC BY-NC-SA 4.0", "CC BY-SA 4.0", "CC BY-SA 3.0"))
    assert "no licence that satisfies every source" in terms["terms"] and "ud_by_sa" in terms["terms"]
    assert "strictest" not in card and "strictest" not in terms["license"]
    card = model_card("ud_gsd_more", "general", official, 5807, terms=terms["terms"])
    assert terms["terms"] in card
    by_sa = CORPUS_TERMS["ud_by_sa"]
    assert by_sa["license"] == "CC BY-SA 4.0" and all(s["license"].startswith("CC BY-SA") for s in by_sa["sources"])
    # #78: entities from raw text on the card, where the pipeline tags them
    card = model_card("ud_gsd_more", "general", official, 5807, entities={"p": 0.7, "r": 0.65, "f": 0.674})
    assert "PER, LOC and ORG" in card and "F 0.674" in card
    # #47: a pipeline with a tagger and parser states their scores from raw text
    card = model_card("ud_gsd_more", "general", official, 5807, analysis={"upos": 0.871, "uas": 0.70, "las": 0.645})
    assert "UPOS F 0.871" in card and "LAS F 0.645" in card and "enable=['segmenter']" in card


def test_pipeline_scores_are_read_from_an_evaluate_ud_report(tmp_path):
    from spacy_gdcws.cli.package_meta import pipeline_scores

    report = {"predicted_segmentation": {k: {"p": 0.5, "r": 0.5, "f": v} for k, v in
                                         (("words", 0.95), ("upos", 0.87123), ("uas", 0.7), ("las", 0.64))}}
    (tmp_path / "ok.json").write_text(json.dumps(report))
    assert pipeline_scores(tmp_path / "ok.json") == {"upos": 0.8712, "uas": 0.7, "las": 0.64}
    (tmp_path / "bad.json").write_text(json.dumps({"official": {}}))
    for path in (tmp_path / "bad.json", tmp_path / "missing.json"):
        with pytest.raises(ValueError, match="E110"):
            pipeline_scores(path)


@pytest.mark.slow
def test_case_16_evaluate_says_which_scorer_ran(saved, tmp_path):
    import json as _json
    import shutil as _shutil

    out = run_cli("evaluate", saved / "model", saved / "gold.txt", saved / "dict.txt", "-o", tmp_path / "m.json",
              "-p", tmp_path / "p.txt")
    assert out.returncode == 0, out.stderr
    result = _json.loads((tmp_path / "m.json").read_text())
    if _shutil.which("perl") and _shutil.which("diff"):  # the official script ships with the package
        assert result["official"] is not None and "official perl scorer" in " ".join((out.stdout + out.stderr).split())
        assert result["scorer"]["why_not_official"] is None
    out = run_cli("evaluate", saved / "model", saved / "gold.txt", saved / "dict.txt", "-o", tmp_path / "n.json",
              "-p", tmp_path / "q.txt", "--perl-script", tmp_path / "nowhere")
    result = _json.loads((tmp_path / "n.json").read_text())
    assert result["official"] is None and "does not exist" in result["scorer"]["why_not_official"]
    assert "does not exist" in " ".join((out.stdout + out.stderr).split())  # wasabi wraps long lines


def test_version_and_help_texts():
    """Issue #48: no --version; `train-pkuseg --help` printed "needs the  extra" (rich took
    `[baselines]` for markup)."""
    from spacy_gdcws.about import __version__

    assert cli("--version").strip() == f"spacy-gdcws {__version__}"
    assert "[baselines]" in cli("train-pkuseg", "--help")


def test_segment_quiet_prints_nothing_on_stderr(saved, tmp_path):
    run = run_cli("segment", saved / "model", saved / "in.txt", tmp_path / "out.txt", "--quiet")
    assert run.returncode == 0 and run.stderr == ""
    assert (tmp_path / "out.txt").read_text(encoding="utf8").count("\n") == 2


def test_a_missing_extra_is_one_coded_line(tmp_path):
    """Issue #48: `segment-corpus` without the [ray] extra printed a 25-line traceback ending in E070."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['ray'] = None; sys.modules['pyarrow'] = None; sys.modules['pyarrow.fs'] = None\n"
            "sys.argv = ['spacy-gdcws', 'segment-corpus', 'm', 'in', 'out']\n"
            "from spacy_gdcws.cli import run; run()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1 and "[E070]" in done.stderr


def test_the_v2_training_file_is_checked_and_a_stand_in_trains(tmp_path):
    """`ud_gsdsimp_v2` reads GSDSimp's own v2 training file (not on these machines: a CoNLL-U file of
    the same format stands in), refuses a file whose git blob id is not the release's (E120), and
    with --no-verify trains on it and HK, CFL and PUD with GSDSimp dev as dev."""
    import shutil

    from spacy_gdcws.io import git_blob_id

    corpora = tmp_path / "corpora"
    shutil.copytree(ROOT / "assets", corpora)
    stand_in = corpora / "ud_zh" / "zh_gsdsimp-ud-train.conllu"
    blocks = (ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu").read_text(encoding="utf8").split("\n\n")
    stand_in.write_text("\n\n".join(blocks[:40]) + "\n\n", encoding="utf8")
    hashed = subprocess.run(["git", "hash-object", str(stand_in)], capture_output=True, text=True)
    if hashed.returncode == 0:
        assert git_blob_id(stand_in) == hashed.stdout.strip()
    refused = run_cli("prepare", "ud_gsdsimp_v2", corpora, tmp_path / "c")
    assert refused.returncode == 1 and "E120" in refused.stdout + refused.stderr
    cli("prepare", "ud_gsdsimp_v2", corpora, tmp_path / "c", "--no-verify")
    nlp = spacy.blank("zh")
    train = list(DocBin().from_disk(tmp_path / "c" / "train.spacy").get_docs(nlp.vocab))
    dev = list(DocBin().from_disk(tmp_path / "c" / "dev.spacy").get_docs(nlp.vocab))
    more = {"hk": 1004, "cfl": 451, "pud": 1000}
    assert len(train) == 40 + sum(n - int(round(n * 0.1)) for n in more.values())
    assert len(dev) == 500 + sum(int(round(n * 0.1)) for n in more.values())
    assert train[0].has_annotation("DEP") and train[0].has_annotation("TAG")


def test_tune_decodings_grid_defaults_are_the_apps():
    """`tune-decoding --help` shows its grids without importing app.tuning: the same defaults."""
    from spacy_gdcws.app import tuning
    from spacy_gdcws.cli import tune

    for name in ("DEFAULT_TRANSITION_WEIGHTS", "DEFAULT_TAG_PRIOR_WEIGHTS", "DEFAULT_BIGRAM_PRIOR_WEIGHTS"):
        assert getattr(tune, name) == getattr(tuning, name)


def test_version_and_help_import_neither_spacy_nor_torch():
    """#62: `--version` took 6.1 s and `--help` 5.7 s (every command module imported spaCy and torch)."""
    import subprocess
    import sys

    for args in (["--version"], ["--help"]):
        code = ("import runpy, sys; sys.argv = ['spacy_gdcws', *%r]\n"
                "try:\n    runpy.run_module('spacy_gdcws', run_name='__main__')\n"
                "except SystemExit:\n    pass\n"
                "print(sorted(m for m in ('spacy', 'thinc', 'torch') if m in sys.modules))") % (args,)
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip().splitlines()[-1] == "[]"


def test_69_help_text_flows_without_hard_line_breaks():
    """#69: `--help` broke its lines mid-sentence where a docstring did (kept short in the source)."""
    from spacy_gdcws.cli import app

    for command in app.registered_commands:
        assert command.help and all("\n" not in p for p in command.help.split("\n\n")), command.name
