"""Write docs/errors.md: every coded error of the package, one cause per code.

    python research/scripts/error_table.py            # print the table
    python research/scripts/error_table.py --write    # and write docs/errors.md

Codes come from `spacy_gdcws.errors` (`Errors`, `Warnings`): every error the
package raises is one of them (`tests/test_robustness.py` checks that none is
raised inline).
"""
import re
import sys
from pathlib import Path
from typing import Dict

ROOT = Path(__file__).resolve().parents[2]

HEADER = """# Error codes

Every error the package raises for a user's mistake carries a code, one code per cause; the
command line prints it in one line (exit status 1). All codes live in `spacy_gdcws/errors.py`
(which imports nothing, so the torch modules of `spacy_gdcws.nn` use it without spaCy). Written by `python research/scripts/error_table.py --write`.

| code | message |
|---|---|
"""


def codes() -> Dict[str, str]:
    from spacy_gdcws.errors import Errors, Warnings

    out: Dict[str, str] = {}
    for cls in (Errors, Warnings):
        for name in vars(cls):
            if re.fullmatch(r"[EW]\d{3}", name):
                out[name] = getattr(cls, name)[len(name) + 3:]
    return dict(sorted(out.items()))


def markdown(message: str) -> str:
    """The message as Markdown text: brackets outside code spans escaped (`[TAG]` would read as a
    reference link)."""
    parts = message.split("`")
    return "`".join(part if i % 2 else re.sub(r"([\[\]])", r"\\\1", part) for i, part in enumerate(parts))


def table() -> str:
    rows = [f"| {code} | {markdown(message.replace('|', '/'))} |" for code, message in codes().items()]
    return HEADER + "\n".join(rows) + "\n"


if __name__ == "__main__":
    text = table()
    print(text)
    if "--write" in sys.argv:
        (ROOT / "docs" / "errors.md").write_text(text, encoding="utf8")
