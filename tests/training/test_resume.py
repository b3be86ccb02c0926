"""`training.resume`: continuing a `spacy train` run by sourcing its model-last (#50)."""
import json
import subprocess
import sys
from itertools import islice

import pytest
import spacy
from spacy.tokens import DocBin
from thinc.api import Config, registry

from spacy_gdcws.readers import read_sentences, sentence_to_doc
from spacy_gdcws.training.resume import ResumedSchedule, saved_updates
from tests.util import ROOT, corpus_path


def test_resumed_schedule_continues_where_the_run_left_it():
    full = registry.schedules.get("warmup_linear.v1")(initial_rate=0.002, warmup_steps=30, total_steps=100)
    want = list(islice(full, 60))
    fresh = registry.schedules.get("warmup_linear.v1")(initial_rate=0.002, warmup_steps=30, total_steps=100)
    rest = registry.schedules.get("spacy_gdcws.resumed.v1")(schedule=fresh, steps=25)
    assert isinstance(rest, ResumedSchedule)
    assert list(islice(rest, 35)) == want[25:]


def test_saved_updates_needs_the_count(tmp_path):
    (tmp_path / "segmenter").mkdir()
    (tmp_path / "segmenter" / "cfg").write_text('{"updates": 7}', encoding="utf8")
    assert saved_updates(tmp_path) == 7
    (tmp_path / "segmenter" / "cfg").write_text("{}", encoding="utf8")
    with pytest.raises(ValueError, match="E111"):
        saved_updates(tmp_path)
    # #61 (12): a path with no saved segmenter was reported as a missing count
    with pytest.raises(ValueError, match="E016.*no saved segmenter"):
        saved_updates(tmp_path / "nowhere")


def _train(config, tmp_path, out, *overrides):
    cmd = [sys.executable, "-m", "spacy", "train", str(config), "--output", str(out),
           "--paths.train", str(tmp_path / "train.spacy"), "--paths.dev", str(tmp_path / "dev.spacy"),
           "--paths.curve", str(out / "curve.jsonl"), "--training.eval_frequency", "10", *overrides]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in (out / "curve.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_spacy_train_continues_a_sourced_model_last(tmp_path):
    """A second `spacy train` sourcing the first run's model-last, with the resumed
    schedule and the continue_training callback, starts from its weights and its
    schedule position, trains with leave-one-out, block leave-out and pseudo-words
    (rebuilt from the corpus: checked through the sourced segmenter's state), and
    counts on from the first run's updates."""
    sentences = list(read_sentences(corpus_path("sxu/train.txt")))
    nlp = spacy.blank("zh")
    for name, part in (("train", sentences[:300]), ("dev", sentences[300:360])):
        DocBin(docs=[sentence_to_doc(nlp.vocab, s) for s in part]).to_disk(tmp_path / f"{name}.spacy")
    first = _train(ROOT / "configs" / "fast.cfg", tmp_path, tmp_path / "one", "--training.max_steps", "30")
    model_last = tmp_path / "one" / "model-last"
    # spaCy's loop updates at steps 0 to max_steps: 31 updates, each followed by a schedule step
    assert saved_updates(model_last) == 31
    config = Config().from_disk(ROOT / "configs" / "fast.cfg", interpolate=False)
    config["components"]["segmenter"] = {"source": str(model_last)}
    config["initialize"]["after_init"] = {"@callbacks": "spacy_gdcws.continue_training.v1"}
    schedule = config["training"]["optimizer"]["learn_rate"]
    config["training"]["optimizer"]["learn_rate"] = {"@schedules": "spacy_gdcws.resumed.v1",
                                                     "model": str(model_last), "schedule": schedule}
    config.to_disk(tmp_path / "continue.cfg")
    second = _train(tmp_path / "continue.cfg", tmp_path, tmp_path / "two", "--training.max_steps", "20")
    assert saved_updates(tmp_path / "two" / "model-last") == 31 + 21
    # it starts where the first run stopped, not from scratch: its first evaluation (after one update
    # with fresh optimizer moments, training with the rebuilt leave-out and pseudo-words) is nearer the
    # first run's last than its first
    start, stop, resumed = (run["scores"]["token_f"] for run in (first[0], first[-1], second[0]))
    assert abs(resumed - stop) < abs(resumed - start), (start, stop, resumed)
    loaded = spacy.load(tmp_path / "two" / "model-last")
    assert loaded("中国人民银行").text == "中国人民银行"


def test_continue_training_rebuilds_the_training_state(trained_nlp, sxu_sentences, tmp_path):
    """What a saved segmenter lacks for training (leave-one-out counts, block
    leave-out, pseudo-words' sources) is rebuilt by `continue_training`; its words stay."""
    from tests.util import make_examples

    trained_nlp.to_disk(tmp_path / "saved")
    loaded = spacy.load(tmp_path / "saved")
    seg = loaded.get_pipe("gdcws_segmenter")
    resources = seg.resources[0]
    assert seg._pseudo is None and resources.lexicon_counts is None and resources.holdout_folds is None
    words = set(seg.train_words)
    seg.pseudo_words = 0.5
    seg.continue_training(lambda: make_examples(loaded, sxu_sentences))
    assert seg._pseudo is not None
    settings = seg.model.layers[0].attrs["settings"]
    assert (resources.lexicon_counts is not None) == bool(settings["lexicon_max_len"])
    assert (resources.holdout_folds is not None) == (settings["holdout_folds"] >= 2)
    assert seg.train_words == words


def test_a_loaded_segmenter_does_not_train_without_its_training_state(trained_nlp, sxu_sentences, tmp_path):
    """#61 (10): a sourced segmenter trained without leave-one-out counts and pseudo-words' sources,
    exit 0, no warning, where the config lacked `continue_training.v1`: now E128 at its first update;
    with `continue_training` it trains."""
    from spacy.training import Example

    from tests.util import make_examples, small_model, train_pipeline

    nlp = train_pipeline(sxu_sentences[:4], n_iter=1, model=small_model(lexicon_max_len=3, lexicon_holdout=True))
    nlp.to_disk(tmp_path / "saved")
    loaded = spacy.load(tmp_path / "saved")
    seg = loaded.get_pipe("gdcws_segmenter")
    examples = make_examples(loaded, sxu_sentences[:4])
    assert all(isinstance(eg, Example) for eg in examples)
    with pytest.raises(ValueError, match="E128"):
        loaded.update(examples)
    seg.continue_training(lambda: examples)
    assert loaded.update(examples)["gdcws_segmenter"] > 0
    # a model that trains with no such state is not held back
    from spacy_gdcws.pipeline.counts import needs_training_state

    trained_nlp.to_disk(tmp_path / "plain")
    plain = spacy.load(tmp_path / "plain")
    assert not needs_training_state(plain.get_pipe("gdcws_segmenter").model, augment=False)
    assert plain.update(make_examples(plain, sxu_sentences[:4]))["gdcws_segmenter"] > 0
