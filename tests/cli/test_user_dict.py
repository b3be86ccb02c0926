"""`segment --user-dict`: one or several dictionary files, each with its mode."""
import subprocess
import sys

from tests.util import LEGACY_FIXTURE

TEXT = "小米手机发布了红米Note13和天猫精灵。"


def test_segment_cli_with_a_user_dictionary(tmp_path):
    dictionary = tmp_path / "dict.txt"
    dictionary.write_text("小米手机\n天猫精灵\n", encoding="utf8")
    source = tmp_path / "in.txt"
    source.write_text(TEXT + "\n\n天猫精灵\n", encoding="utf8")
    out = tmp_path / "out.txt"
    cmd = [sys.executable, "-m", "spacy_gdcws", "segment", str(LEGACY_FIXTURE), str(source), str(out), "--user-dict", str(dictionary)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = out.read_text(encoding="utf8").split("\n")
    assert lines[1:] == ["", "天猫精灵", ""] and "小米手机" in lines[0].split("  ")


def test_segment_cli_takes_several_dictionaries_with_modes(tmp_path):
    (tmp_path / "a.txt").write_text("小米手机 5 nz\n", encoding="utf8")
    (tmp_path / "b.txt").write_text("\ufeff天猫精灵\tn\r\n", encoding="utf8")
    source = tmp_path / "in.txt"
    source.write_text(TEXT + "\n", encoding="utf8")
    out = tmp_path / "out.txt"
    cmd = [sys.executable, "-m", "spacy_gdcws", "segment", str(LEGACY_FIXTURE), str(source), str(out),
           "--user-dict", str(tmp_path / "a.txt"), "--user-dict", f"{tmp_path / 'b.txt'}:force"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert {"小米手机", "天猫精灵"} <= set(out.read_text(encoding="utf8").split())
