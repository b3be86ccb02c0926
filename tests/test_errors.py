"""Every error is a coded message of `spacy_gdcws.errors`, one cause per code."""
from tests.util import ROOT


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
