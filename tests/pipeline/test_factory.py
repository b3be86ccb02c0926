"""`pipeline.factory`: the default model is the project's; hostile settings are refused when set and at load."""
import shutil

import pytest
import spacy

from tests.util import (
    LEGACY_FIXTURE,
    ROOT,
)


def words(nlp, text):
    return [t.text for t in nlp(text)]


@pytest.mark.parametrize("setting,value,code", [
    ("transition_weight", float("inf"), "E030"),  # failed on c5cdd2a: accepted
    ("transition_weight", float("nan"), "E030"),
    ("transition_weight", -1.0, "E030"),
    ("tag_prior_weight", float("inf"), "E030"),  # failed on c5cdd2a: accepted
    ("tag_prior_weight", -0.5, "E030"),
    ("bigram_prior_weight", float("inf"), "E030"),  # failed on c5cdd2a: accepted
    ("bigram_prior_weight", float("nan"), "E030"),
    ("user_dict_bonus", float("inf"), "E030"),
    ("threshold", 0.0, "E013"),
    ("threshold", 1.0, "E013"),
    ("threshold", float("nan"), "E013"),
])
def test_hostile_settings_are_refused_at_load(tmp_path, setting, value, code):
    """In the saved config, as a tuned pipeline would have them."""
    shutil.copytree(LEGACY_FIXTURE, tmp_path / "nlp")
    config = tmp_path / "nlp" / "config.cfg"
    text = config.read_text(encoding="utf8")
    head = "[components.gdcws_segmenter]\n"
    assert head in text
    lines = [line for line in text.split("\n") if not line.startswith(f"{setting} = ")]
    text = "\n".join(lines).replace(head, f"{head}{setting} = {value}\n")
    config.write_text(text, encoding="utf8")
    with pytest.raises(Exception, match=code):
        spacy.load(tmp_path / "nlp")


def test_hostile_weights_are_refused_when_set(dropout_nlp):
    seg = dropout_nlp.get_pipe("gdcws_segmenter")
    for name in ("transition_weight", "tag_prior_weight", "bigram_prior_weight"):
        for value in (float("inf"), float("-inf"), float("nan"), -1e-9, "x"):
            with pytest.raises(ValueError, match="E030"):
                setattr(seg, name, value)
        assert getattr(seg, name) == 0.0


def test_factory_default_model_is_the_project_default():
    """`nlp.add_pipe("gdcws_segmenter")` builds the model of the main job's config
    (project.yml's `config` var: configs/general.cfg) less its general lexicon, which needs
    a word list at initialize; on fda9378 it built a GD-Transformer."""

    import srsly
    from thinc.api import Config

    root = ROOT
    default = srsly.read_yaml(root / "project.yml")["vars"]["config"]
    assert default == "general"
    config = Config().from_disk(root / "configs" / f"{default}.cfg", interpolate=False)
    expected = config["components"]["segmenter"]["model"]
    assert expected["embed"]["general_lexicon"] is True
    expected["embed"]["general_lexicon"] = False
    nlp = spacy.blank("zh")
    nlp.add_pipe("gdcws_segmenter")
    assert nlp.config["components"]["gdcws_segmenter"]["model"] == expected
