"""The shipped configs (`spacy_gdcws/configs/`) stay in step: every config equals `default.cfg`
outside the blocks it is named here to differ in (docs/configs.md: whole files, kept by this test)."""
from pathlib import Path
from typing import Any, Dict

import pytest
from thinc.api import Config

import spacy_gdcws

CONFIG_DIR = Path(spacy_gdcws.__file__).parent / "configs"
SCHEDULE = ["training.batcher", "training.optimizer"]
RUN = ["training.eval_frequency", "training.max_steps", "training.patience"]
PIPELINE = ["nlp", "paths", "training.dropout", "training.logger", "training.score_weights"] + SCHEDULE + RUN
# where each config may differ from default.cfg (keys under these prefixes)
DIFFERS = {
    "default": [],
    "bilstm": ["components.segmenter"],
    "fast": ["components.segmenter"],
    "fastest": ["components.segmenter"],
    "idcnn": ["components.segmenter"],
    "san": ["components.segmenter"],
    "general": ["components.segmenter", "initialize.components"],
    "general_wide": ["components.segmenter", "initialize.components"],
    "gpu": ["components.segmenter"] + SCHEDULE,
    "paper": ["components.segmenter"] + SCHEDULE + RUN,
    "trf": ["components.segmenter", "training.accumulate_gradient", "training.mixed_precision", "training.optimizer"],
    "ner": ["components", "initialize.tokenizer", "system"] + PIPELINE,
    "ner_segmenter": ["components", "system", "training.annotating_components", "training.frozen_components"]
    + PIPELINE,
    "ud_biaffine": ["components", "corpora", "training.frozen_components"] + PIPELINE,
    "ud_biaffine_accurate": ["components", "corpora", "training.frozen_components"] + PIPELINE,
    "ud_pipeline": ["components", "system", "training.annotating_components", "training.frozen_components"]
    + PIPELINE,
}


def flat(config: Dict[str, Any], prefix: str = "") -> Dict[str, Any]:
    out = {}
    for key, value in config.items():
        if isinstance(value, dict):
            out.update(flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def read(name: str) -> Dict[str, Any]:
    return flat(Config().from_disk(CONFIG_DIR / f"{name}.cfg", interpolate=False))


def test_every_shipped_config_is_named_here():
    assert sorted(p.stem for p in CONFIG_DIR.glob("*.cfg")) == sorted(DIFFERS)


@pytest.mark.parametrize("name", sorted(DIFFERS))
def test_a_config_differs_from_default_only_where_it_is_named_to(name):
    base, config = read("default"), read(name)
    differing = {key for key in set(base) | set(config) if base.get(key) != config.get(key)}
    allowed = tuple(f"{prefix}." for prefix in DIFFERS[name])
    assert sorted(key for key in differing if not (key + ".").startswith(allowed)) == []


def test_the_two_sizes_of_the_second_stage_differ_only_in_size_and_schedule():
    """#68: `ud_biaffine_accurate` is `ud_biaffine` (`fast`) at another size: the encoder, the
    projections, the word table, dropout, and the batches, steps and learning rate that go with it."""
    fast, accurate = read("ud_biaffine"), read("ud_biaffine_accurate")
    model = "components.parser.model."
    sized = {f"{model}{k}" for k in ("lstm_width", "lstm_depth", "arc_width", "label_width", "dropout", "feature_rows")}
    sized |= {"training.batcher.size.start", "training.batcher.size.stop", "training.max_steps",
              "training.optimizer.learn_rate"}
    differing = {key for key in set(fast) | set(accurate) if fast.get(key) != accurate.get(key)}
    assert differing == sized
    assert accurate[f"{model}lstm_depth"] > fast[f"{model}lstm_depth"]
    assert accurate[f"{model}lstm_width"] > fast[f"{model}lstm_width"]
