"""Write docs/errors.md: every coded error of the package, one cause per code.

    python scripts/error_table.py            # print the table
    python scripts/error_table.py --write    # and write docs/errors.md

Codes come from `spacy_gdcws.errors.Errors` and from the messages raised inline
by `spacy_gdcws.nn` (torch only), found by their "[Exxx]" prefix.
"""
import re
import sys
from pathlib import Path
from typing import Dict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HEADER = """# Error codes

Every error the package raises for a user's mistake carries a code, one code per cause; the
command line prints it in one line (exit status 1). `Exxx` from `spacy_gdcws/errors.py`, or inline
in `spacy_gdcws/nn/` (torch-only modules). Written by `python scripts/error_table.py --write`.

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
    for path in sorted((ROOT / "spacy_gdcws").rglob("*.py")):
        if path.name == "errors.py":
            continue
        text = path.read_text(encoding="utf8")
        for code, message in re.findall(r'f?"\[(E\d{3})\] ((?:[^"\\]|\\.)*)"', text):
            out.setdefault(code, message)
    return dict(sorted(out.items()))


def table() -> str:
    rows = [f"| {code} | {message.replace('|', '/')} |" for code, message in codes().items()]
    return HEADER + "\n".join(rows) + "\n"


if __name__ == "__main__":
    text = table()
    print(text)
    if "--write" in sys.argv:
        (ROOT / "docs" / "errors.md").write_text(text, encoding="utf8")
