"""`unpack-sighan`: unpack icwb2-data.zip into the release layout."""
import zipfile
from pathlib import Path

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app


@app.command("unpack-sighan", hidden=True)
def unpack_sighan_cli(
    archive: Path = typer.Argument(..., exists=True, help="icwb2-data.zip"),
    output_dir: Path = typer.Argument(..., help="Folder that gets training/, testing/, gold/, research/scripts/"),
) -> None:
    """Unpack the SIGHAN 2005 release, dropping its top-level `icwb2-data/` folder."""
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            parts = Path(info.filename).parts
            if info.is_dir() or len(parts) < 2:
                continue
            if ".." in parts or Path(info.filename).is_absolute():
                msg.fail(f"Refusing unsafe path in archive: {info.filename}", exits=1)
            target = output_dir.joinpath(*parts[1:])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(info))
    msg.good(f"{archive} -> {output_dir}")
