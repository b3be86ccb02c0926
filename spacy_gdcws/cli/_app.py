"""The typer application that every subcommand registers on."""
import re
import signal
import sys
import warnings
from typing import IO, Any, Callable, NoReturn, Optional

import typer

from spacy_gdcws.errors import Errors

app = typer.Typer(
    name="spacy-gdcws",
    help="Chinese word segmentation for spaCy: segment text and corpora, prepare corpora, evaluate and tune segmenters.",
    no_args_is_help=True,
    add_completion=False,
)

# a coded message of this package, spaCy or thinc: a code in brackets, then the message
_CODED = re.compile(r"^\[[EW]\d{3,}\]")
_CODED_WARNING = re.compile(r"^\[W\d{3,}\]")


def reflow_help(typer_app: typer.Typer) -> None:
    """Each command's help as flowing paragraphs: its docstring's line breaks (kept short for the
    source) would otherwise break `--help`'s lines mid-sentence; blank lines still part paragraphs."""
    for command in typer_app.registered_commands:
        doc = command.help or (command.callback.__doc__ if command.callback else None)
        if doc:
            paragraphs = [" ".join(p.split()) for p in doc.strip().split("\n\n")]
            command.help = "\n\n".join(p for p in paragraphs if p)


def _version(value: bool) -> None:
    if value:
        from spacy_gdcws.about import __version__

        print(f"spacy-gdcws {__version__}")
        raise typer.Exit()


@app.callback()
def main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                      help="Print the version and exit")) -> None:
    """Segment, tag, parse and find entities in text (`segment`) and corpora on Ray
    (`segment-corpus`); convert and prepare corpora for `spacy train`; evaluate
    segmenters, parses and entities, score, tune and seal pipelines.

    The spaCy project's own steps (`unpack-sighan`, `package-meta`, `train-pkuseg`)
    are commands too, left out of this list: see project.yml."""


def fail(message: str) -> NoReturn:
    """Report a user error in one line on stderr and exit with status 1."""
    print(f"✘ {message}", file=sys.stderr)
    raise SystemExit(1)


def use_gpu(gpu_id: int) -> None:
    """`spacy.require_gpu(gpu_id)` for a `--gpu-id` option (>= 0), as one coded line (E080) where it fails."""
    if gpu_id < 0:
        return
    import spacy

    try:
        spacy.require_gpu(gpu_id)
    except Exception as err:  # CuPy missing, no device, a driver error: all end the same way
        fail(Errors.E080.format(gpu_id=gpu_id, error=err))


def write_stdout(write: Callable[[IO[str]], Any]) -> None:
    """`write(sys.stdout)`, flushed: a full disk or a closed device behind stdout (`> /dev/full`) is
    E103 in one line, as for a file output (a closed pipe, `| head`, ends the command quietly)."""
    try:
        write(sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        raise SystemExit(1)
    except OSError as err:
        _silence_stdout()
        fail(Errors.E103.format(path="<stdout>", message=err))


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that what is still buffered is not written again at exit."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _terminate(signum: int, frame: Any) -> NoReturn:
    """SIGTERM ends the command like Ctrl-C: files being written are removed, not left half-written."""
    raise SystemExit(128 + signum)


_SHOW_WARNING = warnings.showwarning


def _one_line_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                      line: Optional[str] = None) -> None:
    """The package's coded warnings as one line on stderr (others as Python shows them)."""
    text = str(message)
    if _CODED_WARNING.match(text):
        print(f"⚠ {text}", file=sys.stderr)
    else:
        _SHOW_WARNING(message, category, filename, lineno, file, line)


def run() -> None:
    """The command line: a coded error (a mistake in the input, the arguments or
    a model file) is one line on stderr and exit status 1, not a traceback."""
    signal.signal(signal.SIGTERM, _terminate)
    warnings.showwarning = _one_line_warning
    try:
        app()
    except (ValueError, OSError, KeyError, ImportError) as e:
        text = str(e.args[0]) if e.args else str(e)
        if not _CODED.match(text):
            raise
        print(f"✘ {text}", file=sys.stderr)
        sys.exit(1)
