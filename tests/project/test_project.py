"""The spaCy project: README command 1's workflow and the tagger/parser workflow, run end to end on small data."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from tests.util import ROOT


def copy_project(tmp_path: Path) -> Path:
    """The project files a user clones (no corpora beyond the shipped sample)."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "project.yml", project / "project.yml")
    for folder in ("configs",):
        shutil.copytree(ROOT / folder, project / folder)
    for folder in ("ud_zh", "ud_zh_more", "uner_zh"):
        shutil.copytree(ROOT / "assets" / folder, project / "assets" / folder)
    return project


def isolated(tmp_path: Path) -> Tuple[List[str], Dict[str, str]]:
    """The environment that makes the project's package step install into a
    folder of `tmp_path` (pip reads PIP_TARGET), found only through PYTHONPATH:
    the running environment (a user's `zh_gdcws`) is never touched (#38, case 15)."""
    target = tmp_path / "site"
    path = os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    # pip's own build of the sdist would run a second pip that fails beside PIP_TARGET:
    # build it with the setuptools at hand (PIP_NO_BUILD_ISOLATION=0 means --no-build-isolation)
    return [], {**os.environ, "PIP_TARGET": str(target), "PIP_NO_BUILD_ISOLATION": "0", "PYTHONPATH": path}


def installed(name: str) -> str:
    """What the running environment has under `name` (version and location), or "absent"."""
    code = ("import importlib.metadata as m, sys\ntry:\n    d = m.distribution(sys.argv[1]); print(d.version, d.locate_file(''))\n"
            "except m.PackageNotFoundError:\n    print('absent')")
    return subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True).stdout.strip()


@pytest.mark.slow
def test_project_workflow_all(tmp_path):
    project = copy_project(tmp_path)
    before = installed("zh_gdcws")
    pip_args, env = isolated(tmp_path)
    cmd = [sys.executable, "-m", "spacy", "project", "run", "all", str(project), "--vars.max_steps", "20",
           "--vars.pipeline_steps", "10", *pip_args]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-3000:])
    metrics = json.loads((project / "metrics" / "ud_gsd_more.general.json").read_text())
    assert metrics["official"] is not None and 0.0 <= metrics["official"]["f"] <= 1.0
    # the release artifacts of the model: its sdist and its wheel (#48)
    dist = project / "packages" / "zh_gdcws-0.2.0" / "dist"
    assert sorted(p.name for p in dist.iterdir()) == ["zh_gdcws-0.2.0-py3-none-any.whl", "zh_gdcws-0.2.0.tar.gz"]
    predictions = (project / "predictions" / "ud_gsd_more.general.txt").read_text(encoding="utf8")
    assert len(predictions.split("\n")[:-1]) == 500
    # the packaged model carries the training data's licence, sources, accuracy and model card
    code = ("import spacy, json; nlp = spacy.load('zh_gdcws'); doc = nlp('我爱北京天安门。'); "
            "words = spacy.load('zh_gdcws', enable=['segmenter'])('我爱北京天安门。'); "
            "print(json.dumps([[t.text for t in doc], [(t.pos_, t.dep_, t.head.i) for t in doc], nlp.pipe_names, "
            "[(t.text, t.pos_, t.dep_) for t in words], nlp.meta['license'], nlp.meta['performance'], "
            "nlp.meta['notes'], len(nlp.meta['sources']), nlp.meta['spacy_gdcws_version'], nlp.meta['training_vars'], "
            "[s['license'] for s in nlp.meta['sources']], nlp.get_pipe('parser').entity_types]))")
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert fresh.returncode == 0, fresh.stderr
    (words, analysis, pipe_names, words_only, licence, performance, notes, n_sources, version, training_vars,
     licences, entity_types) = json.loads(fresh.stdout.strip().splitlines()[-1])
    assert "".join(words) == "我爱北京天安门。"
    # #47, #60: words with UPOS and dependencies out of the box; the segmenter alone gives the same words
    assert pipe_names == ["segmenter", "parser"]  # #60: gdcws_parser (configs/ud_biaffine.cfg)
    assert all(pos and dep and 0 <= head < len(words) for pos, dep, head in analysis)
    assert [w for w, _, _ in words_only] == words and not any(pos or dep for _, pos, dep in words_only)
    assert licence.startswith("CC BY-NC-SA 4.0 (UD Chinese GSD) + CC BY-SA 4.0") and n_sources == 10
    # #80: which build: the project's version, the training command's variables; each source its licence
    from spacy_gdcws.about import __version__

    assert version == __version__ and training_vars["max_steps"] == "20" and training_vars["pipeline_steps"] == "10"
    assert all(licences)
    # #78: entities, scored both ways on UNER GSDSimp test and GSD test, in meta.json too
    assert entity_types == ["LOC", "ORG", "PER"]
    entities = json.loads((project / "metrics" / "ud_gsd_more_entities.json").read_text())
    assert {"raw_text", "gold_words"} <= set(entities) and entities["entities"] == 763
    assert (project / "metrics" / "ud_gsd_more_entities_gsd.json").exists()
    assert performance["ents_f"] == pytest.approx(entities["raw_text"]["overall"]["f"], abs=1e-4)
    assert "Model card" in notes and "no licence that satisfies every source" in notes  # #47: no "strictest"
    assert "jieba" in notes and "天安" in notes  # the lexicon's source; the card shows the model's own words
    assert performance["token_f"] == pytest.approx(metrics["python"]["f"], abs=1e-4)  # JSON floats: 0.1669 may read back as 0.16690000000000002
    # the second stage's scores from raw text, character-aligned (evaluate-ud), in meta.json too
    analysis = json.loads((project / "metrics" / "ud_gsd_more_pipeline.json").read_text())
    assert analysis["pipeline"] == ["segmenter", "parser"]
    assert analysis["gold_segmentation"]["words"]["f"] == 1.0
    assert performance["dep_las"] == pytest.approx(analysis["predicted_segmentation"]["las"]["f"], abs=1e-4)
    # the user's own zh_gdcws is still the one they had (#38, case 15: failed on fda9378)
    assert installed("zh_gdcws") == before


@pytest.mark.slow
def test_project_workflow_segmenter(tmp_path):
    """The words-only workflow, for corpora without UPOS and dependencies: the packaged
    pipeline is the segmenter with its decoding chosen on dev."""
    project = copy_project(tmp_path)
    cmd = [sys.executable, "-m", "spacy", "project", "run", "segmenter", str(project), "--vars.corpus", "ud_gsdsimp",
           "--vars.max_steps", "20", "--vars.package_stage", ".tuned", "--vars.package_name", "gdcwsseg"]
    before = installed("zh_gdcwsseg")
    pip_args, env = isolated(tmp_path)
    out = subprocess.run(cmd + pip_args, capture_output=True, text=True, env=env)
    assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-3000:])
    assert not (project / "training" / "ud_gsdsimp.general.pipeline").exists()
    code = ("import spacy; nlp = spacy.load('zh_gdcwsseg'); "
            "print(repr((nlp.pipe_names, nlp.meta['performance'], [t.text for t in nlp('我爱北京天安门。')])))")
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert fresh.returncode == 0, fresh.stderr
    pipe_names, performance, words = eval(fresh.stdout.strip().splitlines()[-1])
    assert pipe_names == ["segmenter"] and "dep_las" not in performance
    assert "".join(words) == "我爱北京天安门。"
    assert installed("zh_gdcwsseg") == before


@pytest.mark.slow
def test_project_workflow_all_accurate(tmp_path):
    """#68: the `accurate` second stage (configs/ud_biaffine_accurate.cfg, for a GPU) trains and
    packages through the same main job, here on the CPU at a few steps."""
    project = copy_project(tmp_path)
    cmd = [sys.executable, "-m", "spacy", "project", "run", "all", str(project), "--vars.max_steps", "10",
           "--vars.pipeline_steps", "4", "--vars.pipeline_config", "ud_biaffine_accurate",
           "--vars.package_name", "gdcwsacc"]
    before = installed("zh_gdcwsacc")
    pip_args, env = isolated(tmp_path)
    out = subprocess.run(cmd + pip_args, capture_output=True, text=True, env=env)
    assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-3000:])
    code = ("import spacy; nlp = spacy.load('zh_gdcwsacc'); m = nlp.get_pipe('parser').model; "
            "print(repr((nlp.pipe_names, m.attrs['net_args']['lstm_depth'], m.attrs['net_args']['lstm_width'], "
            "[(t.text, t.dep_) for t in nlp('我爱北京天安门。')])))")
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert fresh.returncode == 0, fresh.stderr
    pipe_names, depth, width, analysis = eval(fresh.stdout.strip().splitlines()[-1])
    assert pipe_names == ["segmenter", "parser"] and (depth, width) == (3, 400)
    assert "".join(w for w, _ in analysis) == "我爱北京天安门。" and sum(d == "ROOT" for _, d in analysis) == 1
    assert installed("zh_gdcwsacc") == before
