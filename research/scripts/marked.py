"""Tables generated into Markdown files between `<!-- NAME:start -->` and `<!-- NAME:end -->`."""
from pathlib import Path


def replace(content: str, name: str, text: str) -> str:
    """`content` with what stands between the NAME markers replaced by `text`
    (unchanged where the markers are missing)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    if start not in content:
        return content
    head, rest = content.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{text}\n{end}{tail}"


def write_table(path: Path, name: str, text: str) -> None:
    """Replace the NAME table in the file at `path`."""
    path.write_text(replace(path.read_text(encoding="utf8"), name, text), encoding="utf8")
