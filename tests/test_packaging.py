"""What the package declares: its dependencies and its type information (issue #48)."""
import ast
import sys

from tests.util import ROOT, project_metadata

# import names that differ from their distribution's
_DISTRIBUTION = {"yaml": "pyyaml", "opencc": "opencc", "spacy_pkuseg": "spacy-pkuseg",
                 "spacy_transformers": "spacy-transformers", "pyarrow": "ray"}


def _declared() -> set:
    project = project_metadata()["project"]
    lines = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        lines += extra
    names = set()
    for line in lines:
        line = line.split("#")[0].strip()
        if line:
            name = line.split(";")[0].split("[")[0]
            for sep in "<>=!~ ":
                name = name.split(sep)[0]
            names.add(name.lower().replace("_", "-"))
    return names


def test_every_third_party_import_is_declared():
    """`tqdm` was imported (cli/segment.py) but not declared."""
    imported = set()
    for path in (ROOT / "spacy_gdcws").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    stdlib = set(sys.stdlib_module_names)
    third_party = {name for name in imported if name not in stdlib and name != "spacy_gdcws"}
    wanted = {_DISTRIBUTION.get(name, name).lower().replace("_", "-") for name in third_party}
    assert wanted - _declared() == set()


def test_the_package_says_it_is_typed():
    assert (ROOT / "spacy_gdcws" / "py.typed").exists()
    assert "py.typed" in project_metadata()["tool"]["setuptools"]["package-data"]["spacy_gdcws"]
