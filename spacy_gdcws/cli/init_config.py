"""`init-config`: write one of the training configs shipped in the package (as `spacy init config` does)."""
from pathlib import Path
from typing import List

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app
from spacy_gdcws.errors import Errors
from spacy_gdcws.io import atomic_write_text

CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"


def shipped_configs() -> List[str]:
    """The names of the configs shipped in the package (`general`, `idcnn`, ...)."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.cfg"))


def shipped_config(name: str) -> str:
    """The text of a shipped config (E087 for an unknown name)."""
    path = CONFIG_DIR / f"{name}.cfg"
    if name not in shipped_configs():
        raise ValueError(Errors.E087.format(name=name, options=", ".join(shipped_configs())))
    return path.read_text(encoding="utf8")


@app.command("init-config")
def init_config_cli(
    name: str = typer.Argument("general", help="The config: general (the default model), idcnn, fast, default (GD-Transformer), san, bilstm, paper, gpu, trf, ..."),
    output: str = typer.Argument("-", help="Where to write it (- = stdout)"),
    list_configs: bool = typer.Option(False, "--list", help="List the shipped configs and exit"),
) -> None:
    """Write a training config shipped with spacy-gdcws, for `python -m spacy train CONFIG
    --paths.train train.spacy --paths.dev dev.spacy` without cloning the repository."""
    if list_configs:
        for config in shipped_configs():
            print(config)
        return
    try:
        text = shipped_config(name)
    except ValueError as err:
        msg.fail(str(err), exits=1)
    if output == "-":
        print(text, end="")
        return
    path = Path(output)
    if path.is_dir():
        msg.fail(Errors.E079.format(name="OUTPUT", path=path), exits=1)
    atomic_write_text(path, text)
    msg.good(f"{name} -> {path}")
