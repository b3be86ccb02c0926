"""Entry points and registered functions (usable without importing the package), the Noam schedule, the scorer, and the torch modules without spaCy."""
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_gdcws.eval.scorer import score_segmentation
from spacy_gdcws.training.schedules import NoamSchedule


def run_fresh(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _entry_points() -> dict:
    """pyproject.toml's entry points of the spaCy registries: {group: {name: "module:function"}}."""
    from tests.util import project_metadata

    groups = project_metadata()["project"]["entry-points"]
    return {group: dict(points) for group, points in groups.items() if group.startswith(("spacy_", "thinc_"))}


def _registered() -> dict:
    """What the package's decorators register, by entry-point group: {group: {name: "module:function"}}."""
    import importlib
    import pkgutil

    import catalogue
    from spacy.util import registry

    import spacy_gdcws

    for info in pkgutil.walk_packages(spacy_gdcws.__path__, "spacy_gdcws."):
        if not info.name.startswith(("spacy_gdcws.cli", "spacy_gdcws.__main__", "spacy_gdcws.app.corpus")):
            importlib.import_module(info.name)
    groups = {"spacy_factories": registry.factories, "spacy_architectures": registry.architectures,
              "spacy_scorers": registry.scorers,
              "spacy_readers": registry.readers, "spacy_loggers": registry.loggers,
              "spacy_tokenizers": registry.tokenizers, "spacy_misc": registry.misc, "spacy_callbacks": registry.callbacks,
              "thinc_schedules": registry.schedules}
    out = {}
    for group, reg in groups.items():
        # catalogue.REGISTRY holds what decorators registered in this process (`get_all` would
        # add the entry points themselves)
        for keys, func in catalogue.REGISTRY.items():
            if keys[:-1] == reg.namespace and getattr(func, "__module__", "").startswith("spacy_gdcws"):
                out.setdefault(group, {})[keys[-1]] = f"{func.__module__}:{func.__name__}"
    return out


def test_entry_points_work_without_import():
    code = """
import sys, spacy
from spacy.util import registry
nlp = spacy.blank("zh")
nlp.add_pipe("gdcws_segmenter")
for reg, name in [(registry.architectures, "spacy_gdcws.GDTransformer.v1"),
                  (registry.architectures, "spacy_gdcws.GDTransformer.v2"),
                  (registry.scorers, "spacy_gdcws.segmentation_scorer.v1"),
                  (registry.readers, "spacy_gdcws.Corpus.v1"),
                  (registry.loggers, "spacy_gdcws.LearningCurveLogger.v1"),
                  (registry.loggers, "spacy_gdcws.LearningCurveLogger.v2"),
                  (registry.schedules, "spacy_gdcws.noam.v1"),
                  (registry.misc, "spacy_gdcws.general_lexicon.v1")]:
    assert reg.get(name) is not None, name
print(nlp.pipe_names)
"""
    assert "gdcws_segmenter" in run_fresh(code)


def test_plugin_failure_never_breaks_other_pipelines():
    """With torch unimportable, other pipelines still work and ours fails clearly."""
    import importlib.util

    if importlib.util.find_spec("spacy_transformers") is not None:
        pytest.skip("spacy-transformers is installed: its own entry points import torch (CI runs this test before it is)")
    code = """
import sys
sys.modules["torch"] = None
import spacy
nlp = spacy.blank("en")
nlp.add_pipe("sentencizer")
assert len(list(nlp("One. Two.").sents)) == 2
zh = spacy.blank("zh")
try:
    zh.add_pipe("gdcws_segmenter")
except ImportError:
    print("import error as expected")
"""
    assert "import error as expected" in run_fresh(code)


def test_noam_schedule():
    sched = NoamSchedule(width=256, warmup=8000)
    rates = [next(sched) for _ in range(20000)]
    peak = max(range(len(rates)), key=rates.__getitem__) + 1
    assert peak == 8000
    assert rates[7999] == pytest.approx(256 ** -0.5 * 8000 ** -0.5)
    assert rates[0] == pytest.approx(256 ** -0.5 * 8000 ** -1.5)
    assert rates[15999] == pytest.approx(256 ** -0.5 * 16000 ** -0.5)
    with pytest.raises(ValueError, match="E021"):
        NoamSchedule(256, 0)
    resolved = spacy.util.registry.resolve({"s": {"@schedules": "spacy_gdcws.noam.v1", "width": 64, "warmup": 10}})
    assert next(resolved["s"]) == pytest.approx(64 ** -0.5 * 10 ** -1.5)


def test_scorer_p_r_f_oov_iv():
    nlp = spacy.blank("zh")
    ref = Doc(nlp.vocab, words=["中国", "人民", "银行"], spaces=[False] * 3)
    pred = Doc(nlp.vocab, words=["中国", "人", "民", "银行"], spaces=[False] * 4)
    scores = score_segmentation([Example(pred, ref)], vocabulary={"中国", "人民"})
    assert scores["token_p"] == pytest.approx(2 / 4)
    assert scores["token_r"] == pytest.approx(2 / 3)
    assert scores["token_iv_r"] == pytest.approx(1 / 2)
    assert scores["token_oov_r"] == pytest.approx(1.0)
    assert score_segmentation([Example(pred, ref)])["token_oov_r"] is None


def test_torch_modules_import_without_spacy():
    code = """
import sys
sys.modules["spacy"] = None
sys.modules["thinc"] = None
from spacy_gdcws.nn import CharEmbedding, GapScorer, GDConfig, GDEncoder, SegmentationNet
cfg = GDConfig(width=16, depth=2, n_heads=2, d_ff=0, char_rows=10)
net = SegmentationNet(CharEmbedding(16, 10, False, 0, 0, 0, 0.0, False, 0.0, 0), GDEncoder(cfg), GapScorer(16, 16))
print(type(net).__name__)
"""
    assert "SegmentationNet" in run_fresh(code)


def test_registered_names_equal_the_entry_points():
    """Every name a decorator registers is an entry point of pyproject.toml, pointing at that
    function, and every entry point is registered by a decorator (so `spacy.load` finds
    each name without importing the package, and no entry point is stale)."""
    assert _registered() == _entry_points()
