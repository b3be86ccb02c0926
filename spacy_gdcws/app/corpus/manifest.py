"""The output folder's manifest: which input is done, with which model and settings (resume)."""
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from spacy_gdcws.app.corpus.files import CorpusFile
from spacy_gdcws.app.user_dicts import split_dict_spec
from spacy_gdcws.errors import Errors
from spacy_gdcws.io import atomic_write_fs, folder_digest
from spacy_gdcws.pipeline.names import find_segmenter

# in the output folder: what is done (input identity, model, settings)
MANIFEST_NAME = ".segment-corpus-manifest.json"
MANIFEST_FORMAT = 1


def model_identity(model: str) -> str:
    """A digest of the pipeline's files (a folder, or an installed package's folder): the
    model part of the manifest. E089 when it cannot be loaded (checked by loading it)."""
    import spacy

    try:
        nlp = spacy.load(model)
    except Exception as err:  # any failure to load: one coded line, before Ray starts
        raise ValueError(Errors.E089.format(model=model, error=f"{type(err).__name__}: {err}".splitlines()[0])) from None
    find_segmenter(nlp)  # E024 for a pipeline without a segmenter
    return folder_digest(Path(model) if Path(model).is_dir() else spacy.util.get_package_path(model))


def settings_identity(delimiter: str, user_dicts: Sequence[str], user_dict_mode: str,
                      encoding: Optional[str] = None, granularity: Optional[str] = None,
                      fmt: str = "words", pos_sep: str = "/") -> Dict[str, Any]:
    """What else decides the output: the delimiter, the user dictionaries (with a digest of each),
    a granularity given for the run and the output format."""
    dicts = []
    for spec in user_dicts:
        path, mode = split_dict_spec(spec, user_dict_mode)
        try:
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError as err:
            raise ValueError(Errors.E016.format(path=path, message=err)) from None
        dicts.append({"path": os.path.abspath(path), "mode": mode, "sha256": digest})
    out = {"delimiter": delimiter, "user_dicts": dicts}
    if encoding:  # only where given: manifests written before the option stay valid
        out["user_dict_encoding"] = encoding
    if granularity is not None:
        out["granularity"] = granularity
    if fmt != "words":  # only where given: manifests written before the option stay valid
        out["format"] = fmt
        if fmt == "pos":
            out["pos_sep"] = pos_sep
    return out


def read_manifest(fs: Any, output_root: str) -> Dict[str, Any]:
    """The output folder's manifest (empty when absent, unreadable or of another shape:
    nothing is trusted, every file is segmented again)."""
    try:
        with fs.open_input_stream(f"{output_root}/{MANIFEST_NAME}") as f:
            data = json.loads(f.read().decode("utf8"))
    except Exception:
        return {}
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT or not isinstance(data.get("files"), dict):
        return {}
    return {name: entry for name, entry in data["files"].items() if isinstance(entry, dict)}


def write_manifest(fs: Any, output_root: str, files: Dict[str, Any]) -> None:
    atomic_write_fs(fs, f"{output_root}/{MANIFEST_NAME}",
                    json.dumps({"format": MANIFEST_FORMAT, "files": files}, indent=1, ensure_ascii=False).encode("utf8"))


def is_done(entry: Optional[Dict[str, Any]], file: CorpusFile, model: str, settings: Dict[str, Any], fs: Any,
            in_fs: Any) -> bool:
    """Whether a manifest entry says `file` is done with this model and these settings, and its output is there."""
    import pyarrow.fs as pafs

    if not entry or entry.get("model") != model or entry.get("settings") != settings or file.error:
        return False
    source = entry.get("source")
    if not isinstance(source, dict) or (source.get("size"), source.get("mtime_ns")) != (file.size, file.mtime_ns):
        return False
    if source != file.identity(in_fs):  # read the file only where size and mtime say it is done
        return False
    info = fs.get_file_info(file.target)
    return info.type == pafs.FileType.File and info.size == entry.get("output_size")
