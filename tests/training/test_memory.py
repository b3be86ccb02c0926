"""`training.memory`: the before_update callback that gives freed heap memory back (#50)."""
from spacy.util import registry

from spacy_gdcws.training import memory


def test_trim_runs_every_n_steps(monkeypatch):
    calls = []
    monkeypatch.setattr(memory, "malloc_trim", lambda: (lambda pad: calls.append(pad) or 1))
    callback = registry.callbacks.get("spacy_gdcws.trim_memory.v1")(every=10)
    for step in range(35):
        callback(None, {"step": step, "epoch": 0})
    assert calls == [0, 0, 0, 0]  # steps 0, 10, 20, 30


def test_no_malloc_trim_is_a_no_op(monkeypatch):
    monkeypatch.setattr(memory, "malloc_trim", lambda: None)
    callback = memory.make_trim_memory(every=0)  # at least every step
    callback(None, {"step": 3, "epoch": 0})


def test_the_training_configs_trim():
    from thinc.api import Config

    from spacy_gdcws.cli.init_config import CONFIG_DIR, shipped_configs

    for name in shipped_configs():
        config = Config().from_disk(CONFIG_DIR / f"{name}.cfg", interpolate=False)
        assert config["training"]["before_update"] == {"@callbacks": "spacy_gdcws.trim_memory.v1", "every": 10}, name
