"""`pipeline.serialize`: a saved segmenter is written whole, honours the umask and is verified on load (checksums, config)."""
import os
import pathlib
import shutil
import stat
from pathlib import Path

import pytest
import spacy

from tests.util import LEGACY_FIXTURE


def words(nlp, text):
    return [t.text for t in nlp(text)]


def _corrupt(path: Path, how: str) -> None:
    if how == "flip":
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
    elif how == "empty":
        path.write_text("", encoding="utf8")
    elif how == "delete":
        path.unlink()
    elif how == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize("name,how,code", [
    ("model", "flip", "E064"),  # failed on c5cdd2a: loaded and segmented garbage
    ("model", "truncate", "E064"),
    ("model", "delete", "E063"),
    ("words.txt", "empty", "E064"),  # failed on c5cdd2a: loaded without its dictionary
    ("words.txt", "delete", "E063"),
    ("words.txt", "flip", "E064"),
    ("cfg", "truncate", "E064"),
    ("pairs", "flip", "E064"),
    ("user_dict.json", "empty", "E064"),
    ("checksums.json", "truncate", "E064"),
])
def test_corrupt_files_fail_at_load_naming_the_file(tmp_path, name, how, code):
    nlp = spacy.load(LEGACY_FIXTURE)
    nlp.to_disk(tmp_path / "nlp")
    _corrupt(tmp_path / "nlp" / "gdcws_segmenter" / name, how)
    with pytest.raises(ValueError, match=code) as error:
        spacy.load(tmp_path / "nlp")
    assert name in str(error.value) or name == "checksums.json"


def test_words_missing_from_a_pipeline_without_checksums(tmp_path):
    shutil.copytree(LEGACY_FIXTURE, tmp_path / "old")
    (tmp_path / "old" / "gdcws_segmenter" / "words.txt").write_text("", encoding="utf8")
    with pytest.raises(ValueError, match="E065.*words.txt"):
        spacy.load(tmp_path / "old")


def test_a_truncated_config_does_not_load(tmp_path):
    nlp = spacy.load(LEGACY_FIXTURE)
    nlp.to_disk(tmp_path / "nlp")
    config = tmp_path / "nlp" / "config.cfg"
    text = config.read_text(encoding="utf8")
    config.write_text(text[: text.index("[components.gdcws_segmenter.model]") + 40], encoding="utf8")
    with pytest.raises(Exception):
        spacy.load(tmp_path / "nlp")


def test_a_failed_save_leaves_the_previous_folder(tmp_path, monkeypatch):
    """Failed on c5cdd2a: the half-written folder stayed and later loaded."""
    nlp = spacy.load(LEGACY_FIXTURE)
    nlp.to_disk(tmp_path / "nlp")
    seg = nlp.get_pipe("gdcws_segmenter")
    seg.add_words(["北京大学"])

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("spacy_gdcws.io.write_checksums", broken)
    with pytest.raises(OSError):
        nlp.to_disk(tmp_path / "nlp")
    assert spacy.load(tmp_path / "nlp").get_pipe("gdcws_segmenter").user_dict.words == {}
    assert not [p for p in (tmp_path / "nlp").iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_case_08_files_honour_the_umask(trained_nlp, tmp_path, umask):
    old = os.umask(umask)
    try:
        trained_nlp.to_disk(tmp_path / "model")
        from spacy_gdcws.io import atomic_write_text

        atomic_write_text(tmp_path / "out.txt", "x")
    finally:
        os.umask(old)
    want = 0o666 & ~umask
    files = [p for p in (tmp_path / "model").rglob("*") if p.is_file()] + [tmp_path / "out.txt"]
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in files} == {p.name: want for p in files}


def test_case_06_config_and_checksums_are_verified(saved, tmp_path):
    import shutil

    def damaged(name, mutate):
        folder = tmp_path / name
        shutil.copytree(saved / "model", folder)
        mutate(folder)
        with pytest.raises(ValueError) as err:
            spacy.load(folder)
        return str(err.value)

    config = (saved / "model" / "config.cfg").read_text(encoding="utf8")
    assert "\ndepth = 2\n" in config
    edited = damaged("edited", lambda f: (f / "config.cfg").write_text(config.replace("\ndepth = 2\n", "\ndepth = 3\n"), encoding="utf8"))
    width = damaged("width", lambda f: (f / "config.cfg").write_text(config.replace("\nsigma = 2.0\n", "\nsigma = 3.0\n"), encoding="utf8"))
    assert "E081" in width and "E081" in edited
    assert "E082" in damaged("missing", lambda f: (f / "gdcws_segmenter" / "checksums.json").unlink())
    assert "E082" in damaged("empty", lambda f: (f / "gdcws_segmenter" / "checksums.json").write_text(""))
    assert "E064" in damaged("list", lambda f: (f / "gdcws_segmenter" / "checksums.json").write_text("[]"))
    assert [t.text for t in spacy.load(saved / "model")("我爱北京")]  # the intact folder loads


class _Payload:
    """Pickled, it would create a file when unpickled."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


def test_weights_are_read_as_tensors_only(trained_nlp, tmp_path):
    """Issue #51, S14: thinc's shim read the weights with `torch.load` and no `weights_only`: a
    pickled payload ran at load with torch < 2.6, and newer torch refused it with a raw
    traceback. Checksums guard against damage only (whoever writes the payload rewrites them)."""
    import io

    import srsly
    import torch

    from spacy_gdcws.io import write_checksums

    folder = tmp_path / "hostile"
    trained_nlp.to_disk(folder)
    model_file = folder / "gdcws_segmenter" / "model"
    msg = srsly.msgpack_loads(model_file.read_bytes())
    buf = io.BytesIO()
    torch.save({"weights": _Payload(tmp_path / "ran")}, buf)
    for shims in msg["shims"]:
        for i, shim_bytes in enumerate(shims):
            shim = srsly.msgpack_loads(shim_bytes)
            shim["state"] = buf.getvalue()
            shims[i] = srsly.msgpack_dumps(shim)
    model_file.write_bytes(srsly.msgpack_dumps(msg))
    (folder / "gdcws_segmenter" / "checksums.json").unlink()
    write_checksums(folder / "gdcws_segmenter")
    with pytest.raises(ValueError, match="E099"):
        spacy.load(folder)
    assert not (tmp_path / "ran").exists()


def test_a_removed_fingerprint_is_refused(trained_nlp, tmp_path):
    """Issue #51, S14: a nulled `model_fingerprint` skipped the architecture check."""
    import srsly

    from spacy_gdcws.io import write_checksums

    folder = tmp_path / "model"
    trained_nlp.to_disk(folder)
    cfg_path = folder / "gdcws_segmenter" / "cfg"
    cfg = srsly.read_json(cfg_path)
    cfg["model_fingerprint"] = None
    srsly.write_json(cfg_path, cfg)
    (folder / "gdcws_segmenter" / "checksums.json").unlink()
    write_checksums(folder / "gdcws_segmenter")
    with pytest.raises(ValueError, match="E081"):
        spacy.load(folder)


CHANGED = {"granularity": "coarse", "user_dict_bonus": 3.5, "user_dict_freq_scale": 0.25, "atomic_units": False,
           "bigram_prior_weight": 0.5, "transition_weight": 0.75, "tag_prior_weight": 0.125}


def _settings(seg):
    return {name: getattr(seg, name) for name in CHANGED}


def test_settings_changed_on_a_loaded_segmenter_are_saved(trained_copy, tmp_path):
    """#61 (1): a setting changed on a live segmenter survives to_disk and load (it was the config's
    again: the README's own coarse example came back fine), and backwards (saved coarse, set fine)."""
    seg = trained_copy.get_pipe("gdcws_segmenter")
    trained_copy.to_disk(tmp_path / "first")
    loaded = spacy.load(tmp_path / "first")
    seg = loaded.get_pipe("gdcws_segmenter")
    for name, value in CHANGED.items():
        setattr(seg, name, value)
    loaded.to_disk(tmp_path / "changed")
    again = spacy.load(tmp_path / "changed").get_pipe("gdcws_segmenter")
    assert _settings(again) == CHANGED
    # and back: a saved coarse pipeline set fine and saved reloads fine
    reloaded = spacy.load(tmp_path / "changed")
    reloaded.get_pipe("gdcws_segmenter").granularity = "fine"
    reloaded.to_disk(tmp_path / "back")
    assert spacy.load(tmp_path / "back").get_pipe("gdcws_segmenter").granularity == "fine"


def test_settings_changed_survive_bytes_and_a_load_override_wins(trained_copy, tmp_path):
    from spacy import util

    seg = trained_copy.get_pipe("gdcws_segmenter")
    for name, value in CHANGED.items():
        setattr(seg, name, value)
    data = trained_copy.to_bytes()
    copy = util.load_model_from_config(trained_copy.config, auto_fill=False).from_bytes(data)
    assert _settings(copy.get_pipe("gdcws_segmenter")) == CHANGED
    trained_copy.to_disk(tmp_path / "p")
    # what the user says at load time is not overwritten by what the folder saved
    override = spacy.load(tmp_path / "p", config={"components": {"gdcws_segmenter": {"user_dict_bonus": 9.0}}})
    got = _settings(override.get_pipe("gdcws_segmenter"))
    assert got == {**CHANGED, "user_dict_bonus": 9.0}


@pytest.fixture
def sealed(trained_copy, tmp_path):
    """The trained segmenter with a spaCy tagger after it, saved and sealed as the project seals what
    it packages (`seal`)."""
    from spacy.tokens import Doc
    from spacy.training import Example

    from spacy_gdcws.app.segment import save_pipeline

    tagger = trained_copy.add_pipe("tagger")
    ref = Doc(trained_copy.vocab, words=["我", "爱", "北京"], pos=["PRON", "VERB", "PROPN"], tags=["PN", "VV", "NR"])
    tagger.initialize(lambda: [Example(ref.copy(), ref)], nlp=trained_copy)
    save_pipeline(trained_copy, tmp_path / "p")
    return tmp_path / "p"


# binary files get 64 bytes flipped in the middle; text files an edit that still parses (an edit
# that does not parse fails in spaCy before any component loads, loudly)
EDITS = {
    "tagger/model": None, "gdcws_segmenter/model": None, "tagger/cfg": None,
    "config.cfg": ("batch_size = 1000", "batch_size = 999"),
    "vocab/strings.json": ('"dddd"', '"dddx"'),
    "tokenizer/cfg": ('"char"', '"char" '),
}


@pytest.mark.parametrize("target", sorted(EDITS))
def test_a_changed_file_of_a_sealed_pipeline_is_refused_by_name(sealed, target):
    """#61 (2): 64 bytes changed in another component's model loaded without a word; every file of a
    sealed pipeline is checked when its segmenter loads: one coded error naming the file."""
    assert len(spacy.load(sealed)("我爱北京")) >= 1
    path = sealed / target
    edit = EDITS[target]
    if edit is None:
        data = bytearray(path.read_bytes())
        middle = len(data) // 2
        data[middle : middle + 64] = bytes(b ^ 0x5A for b in data[middle : middle + 64])
        path.write_bytes(bytes(data))
    else:
        text = path.read_text(encoding="utf8")
        assert edit[0] in text
        path.write_text(text.replace(edit[0], edit[1], 1), encoding="utf8")
    with pytest.raises(ValueError, match="E126") as err:
        spacy.load(sealed)
    assert str(path) in str(err.value)


def test_a_missing_file_of_a_sealed_pipeline_is_refused(sealed):
    (sealed / "tagger" / "model").unlink()
    with pytest.raises(ValueError, match="E125"):
        spacy.load(sealed)


def test_the_seal_command_and_what_package_rewrites(sealed, tmp_path):
    """meta.json and README.md (rewritten by `spacy package`) are not sealed; `seal` refuses a folder
    that is not a pipeline (E127)."""
    import json

    from tests.util import run_cli

    listing = json.loads((sealed / "pipeline_checksums.json").read_text(encoding="utf8"))
    assert "meta.json" not in listing and "tagger/model" in listing and "config.cfg" in listing
    meta = json.loads((sealed / "meta.json").read_text(encoding="utf8"))
    (sealed / "meta.json").write_text(json.dumps({**meta, "version": "9.9.9"}), encoding="utf8")
    spacy.load(sealed)
    run = run_cli("seal", tmp_path / "nothing")
    assert run.returncode == 1 and "E127" in run.stderr + run.stdout


def test_a_damaged_component_after_the_segmenter_does_not_stop_words_only(sealed):
    """#61 (12): `segment` failed on a damaged parser it never runs; it now leaves the components
    after the segmenter out (not loaded, their files not read), while a full load refuses them."""
    from spacy_gdcws.app.segment import load_pipeline

    path = sealed / "tagger" / "model"
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    nlp = load_pipeline(str(sealed), words_only=True)
    assert nlp.component_names == ["gdcws_segmenter"] and nlp("我爱北京").text == "我爱北京"
    with pytest.raises(ValueError, match="E126"):
        spacy.load(sealed)


def test_69_an_empty_seal_is_a_damaged_one(sealed):
    """#69 (8): a 0-byte pipeline_checksums.json switched the whole-pipeline seal off: an edited
    config.cfg then loaded."""
    from spacy_gdcws.io import PIPELINE_CHECKSUMS

    (sealed / PIPELINE_CHECKSUMS).write_bytes(b"")
    with pytest.raises(ValueError, match="E126"):
        spacy.load(sealed)


def test_69_saving_over_a_sealed_folder_gives_a_pipeline_that_loads(sealed):
    """#69 (loud 1): saving over a sealed (packaged) folder left the stale seal, and the pipeline just
    saved was refused (E126), the advice 'save the pipeline again' looping."""
    nlp = spacy.load(sealed)
    nlp.get_pipe("gdcws_segmenter").add_words(["北京大学"])
    nlp.to_disk(sealed)
    again = spacy.load(sealed)
    assert "北京大学" in again.get_pipe("gdcws_segmenter").user_dict.words
