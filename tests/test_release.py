"""Release artifacts (#48): `python -m build` gives the sdist and the wheel of spacy-gdcws,
`spacy package --build wheel` (the project's package step) the model's wheel, and a new venv
installs both from those files, their dependencies from the package index, and loads the model."""
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.util import ROOT

# what the wheel must carry besides the modules: the configs `init-config` writes, the general
# lexicon they name, the official scorer and the typing marker
PACKAGE_DATA = ["spacy_gdcws/configs/general.cfg", "spacy_gdcws/lexicons/jieba_words.txt",
                "spacy_gdcws/lexicons/LICENSE-jieba.txt", "spacy_gdcws/eval/sighan_score/score", "spacy_gdcws/py.typed"]


def run(cmd, **kwargs) -> str:
    out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-3000:])
    return out.stdout


def one(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, (pattern, found)
    return found[0]


@pytest.mark.slow
def test_the_two_wheels_install_into_a_new_venv_and_the_model_loads(saved, tmp_path):
    dist = tmp_path / "dist"
    # the sdist, then the wheel built from it (so the sdist is complete too)
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, ROOT], cwd=tmp_path)
    one(dist, "spacy_gdcws-*.tar.gz")
    wheel = one(dist, "spacy_gdcws-*-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert set(PACKAGE_DATA) <= names, set(PACKAGE_DATA) - names
    assert not any(name.startswith(("tests/", "research/")) for name in names)
    # the model's wheel, as the project's package step makes it
    (tmp_path / "packages").mkdir()
    run([sys.executable, "-m", "spacy", "package", saved / "model", tmp_path / "packages", "--name", "gdcws",
         "--version", "0.1.0", "--build", "sdist", "--force"])
    model_dist = tmp_path / "packages" / "zh_gdcws-0.1.0" / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", model_dist / "zh_gdcws-0.1.0.tar.gz",
         "--wheel-dir", model_dist])
    model_wheel = one(model_dist, "zh_gdcws-0.1.0-*.whl")
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv])
    python = venv / "bin" / "python"
    # CPU torch first, as the README says (a bare `torch` requirement would pull a CUDA build)
    run([python, "-m", "pip", "install", "-q", "torch==2.13.0"])
    run([python, "-m", "pip", "install", "-q", wheel, model_wheel])
    code = "import spacy; nlp = spacy.load('zh_gdcws'); print(' '.join(t.text for t in nlp('我爱北京天安门。')))"
    words = run([python, "-c", code], cwd=tmp_path).split()  # not the clone's folder: the installed files only
    assert "".join(words) == "我爱北京天安门。" and len(words) > 1
    where = run([python, "-c", "import spacy_gdcws; print(spacy_gdcws.__file__)"], cwd=tmp_path)
    assert str(venv) in where and str(ROOT) not in where
