"""#80: the blocks of README.md and docs/ run, so that the next drift fails CI.

- Every Python block runs, a page's blocks in order in one namespace, in a folder of sample files,
  `spacy.load("zh_gdcws")` loading a small pipeline of the same shape (`tagged_model`: a segmenter named
  `segmenter` and a `gdcws_parser` named `parser`, with entities), so no test depends on whether
  `zh_gdcws` is installed.
- Every shell block's `python -m spacy_gdcws` commands run there too, the small pipeline for `zh_gdcws`.
- A block that needs what a test cannot have (a training run, the research corpora, a GPU, a Ray
  cluster, the network) says so on the line before it, `<!-- doc-test: skip, REASON -->`; its
  `python -m spacy_gdcws` commands are still checked: the command exists and takes every option the
  block gives it (its `--help`).
"""
import re
import shlex
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import List, NamedTuple

import pytest

from tests.util import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(python|bash)\n(.*?)```", re.S)
SKIP = re.compile(r"<!-- doc-test: skip, [^>]+ -->\s*$")
# what the shell blocks' sample files hold: lines of text, their gold words, a dictionary
TEXT = ["我爱北京天安门。", "今天天气很好。", "他在電視台工作，今年30歲。"]
GOLD = ["我  爱  北京  天安门  。", "今天  天气  很  好  。", "他  在  電視  台  工作  ，  今年  30  歲  。"]


class Block(NamedTuple):
    page: Path
    line: int
    kind: str
    code: str
    skip: bool


def blocks() -> List[Block]:
    out = []
    for page in PAGES:
        text = page.read_text(encoding="utf8")
        for match in BLOCK.finditer(text):
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            line = text[: match.start()].count("\n") + 1
            out.append(Block(page, line, match.group(1), match.group(2), bool(SKIP.search(before))))
    return out


def commands(code: str) -> List[List[str]]:
    """The commands of a shell block: lines joined at a trailing backslash, split at `&&`, comments
    dropped, each as its words."""
    joined = re.sub(r"\\\n\s*", " ", code)
    out = []
    for line in joined.splitlines():
        for part in line.split("&&"):
            words = shlex.split(part, comments=True)
            if words:
                out.append(words)
    return out


def gdcws_commands(code: str) -> List[List[str]]:
    return [c[3:] for c in commands(code) if c[:3] == ["python", "-m", "spacy_gdcws"] and len(c) > 3]


@lru_cache(maxsize=None)
def command_help(name: str) -> str:
    out = subprocess.run([sys.executable, "-m", "spacy_gdcws", name, "--help"], capture_output=True, text=True,
                         env={"COLUMNS": "400", "PATH": "", "TERM": "dumb"})
    return out.stdout if out.returncode == 0 else ""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A folder of the sample files the blocks name."""
    path = tmp_path_factory.mktemp("doc_blocks")
    for name in ("input.txt", "in.txt"):
        (path / name).write_text("\n".join(TEXT) + "\n", encoding="utf8")
    (path / "gold.txt").write_text("\n".join(GOLD) + "\n", encoding="utf8")
    (path / "words.txt").write_text("北京\n天安门\n", encoding="utf8")
    (path / "dict.txt").write_text("小米手机 5 nz\n天猫精灵\n", encoding="utf8")
    (path / "names.txt").write_text("古特雷斯\n", encoding="utf8")
    return path


@pytest.fixture(scope="module")
def gap_pipeline(trained_nlp, tmp_path_factory) -> str:
    """A pipeline with a gap scorer (the decoding priors and ensembles of docs/usage.md), its segmenter
    named `segmenter` as the configs name it."""
    path = tmp_path_factory.mktemp("gap") / "model"
    trained_nlp.rename_pipe("gdcws_segmenter", "segmenter")
    try:
        trained_nlp.to_disk(path)
    finally:
        trained_nlp.rename_pipe("segmenter", "gdcws_segmenter")
    return str(path)


def test_the_pages_have_blocks_and_every_skip_names_its_reason():
    found = blocks()
    assert len([b for b in found if b.kind == "python" and not b.skip]) >= 15
    assert len([b for b in found if b.kind == "bash" and not b.skip]) >= 2
    for page in PAGES:
        for line in page.read_text(encoding="utf8").splitlines():
            if "doc-test:" in line:
                assert SKIP.search(line), f"{page.name}: {line}"


@pytest.mark.parametrize("block", [b for b in blocks() if b.kind == "bash"],
                         ids=lambda b: f"{b.page.name}:{b.line}")
def test_every_command_of_a_shell_block_exists_with_its_options(block):
    for words in gdcws_commands(block.code):
        help_text = command_help(words[0])
        assert help_text, f"{block.page.name}:{block.line}: no command {words[0]!r}"
        for word in words[1:]:
            if word.startswith("--"):
                option = word.split("=", 1)[0]
                assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text), \
                    f"{block.page.name}:{block.line}: {words[0]} has no {option}"


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted({b.page for b in blocks() if b.kind == "bash" and not b.skip}),
                         ids=lambda p: p.name)
def test_every_shell_block_runs(page, tagged_model, folder):
    for block in (b for b in blocks() if b.page == page and b.kind == "bash" and not b.skip):
        for words in gdcws_commands(block.code):
            words = [str(tagged_model) if w == "zh_gdcws" else w for w in words]
            out = subprocess.run([sys.executable, "-m", "spacy_gdcws", *words], cwd=folder, capture_output=True,
                                 text=True)
            assert out.returncode == 0, f"{page.name}:{block.line}: {' '.join(words)}\n{out.stderr[-2000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted({b.page for b in blocks() if b.kind == "python" and not b.skip}),
                         ids=lambda p: p.name)
def test_every_python_block_runs(page, tagged_model, gap_pipeline, folder, monkeypatch):
    """The names a page leaves to the reader: `texts` (README), `gap_pipeline` and `seed_pipelines`
    (usage.md: pipelines with a gap scorer)."""
    monkeypatch.chdir(folder)
    namespace = {"texts": list(TEXT), "gap_pipeline": gap_pipeline, "seed_pipelines": [gap_pipeline, gap_pipeline]}
    for block in (b for b in blocks() if b.page == page and b.kind == "python" and not b.skip):
        code = block.code.replace('"zh_gdcws"', repr(str(tagged_model)))
        exec(compile(code, f"{page.name}:{block.line}", "exec"), namespace)


def test_80_both_install_lines_of_command_1_parse():
    """#80: README command 1 pins the torch of this project's machines; the line for elsewhere puts
    torch's CPU index in the command itself. Each `pip install` of both parses as pip parses it (no
    network: the arguments only), and both then install the package with its [train] extra."""
    from pip._internal.commands import create_command

    block = next(b for b in blocks() if b.page.name == "README.md" and "# 1. install" in b.code)
    lines = [words for words in commands(block.code) if words[:4] == ["python", "-m", "pip", "install"]]
    torch_lines = [w for w in lines if any(a.startswith("torch") for a in w[4:])]
    assert len(torch_lines) == 2
    assert any("--index-url" in w and "https://download.pytorch.org/whl/cpu" in w for w in torch_lines)
    assert any("torch==2.13.0" in w and "--index-url" not in w for w in torch_lines)
    for words in lines:
        options, args = create_command("install").parse_args(words[4:])
        assert args or options.editables, words
        assert all(a.startswith("torch") for a in args) and all(e in (".[train]", ".[test]") for e in options.editables), words
    assert sum(w[4:] == ["-e", ".[train]"] for w in lines) == 2
    assert block.code.count("python -m spacy project run all") == 2
