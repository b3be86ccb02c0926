"""`ml.shims`: the optimizer step keeps memory flat, parameter averages are used for prediction, bf16 autocast predicts on CPU."""
import json
import subprocess
import sys

import numpy
import pytest
import spacy

from tests.util import ROOT, make_examples


def words(doc):
    return [t.text for t in doc if not t.is_space]


def test_optimizer_averages_are_used_for_prediction(trained_copy, sxu_sentences):
    """thinc's PyTorchShim ignores Optimizer.averages (its keys are tuples); ours applies them."""
    from thinc.api import Adam

    nlp = trained_copy
    optimizer = Adam(0.01, use_averages=True)
    examples = make_examples(nlp, sxu_sentences[:3])
    for _ in range(3):
        nlp.update(examples, sgd=optimizer)
    doc = [nlp.make_doc("我爱北京天安门。")]
    seg = nlp.get_pipe("gdcws_segmenter")
    raw = seg.scores(doc)[0].copy()
    with nlp.use_params(optimizer.averages):
        averaged = seg.scores(doc)[0].copy()
    assert not numpy.allclose(raw, averaged)
    assert numpy.allclose(seg.scores(doc)[0], raw)  # restored afterwards


def test_mixed_precision_on_cpu_predicts_in_bf16_and_trains_in_fp32(trained_nlp, sxu_sentences, tmp_path):
    """`mixed_precision` set at load time: bf16 autocast for prediction on CPU,
    the same words as float32 on the training sentences; CPU training works."""
    trained_nlp.to_disk(tmp_path / "fp32")
    bf16 = spacy.load(tmp_path / "fp32", config={"components": {"gdcws_segmenter": {"model": {"mixed_precision": True}}}})
    texts = ["".join(s.words) for s in sxu_sentences]
    ref = [[t.text for t in doc] for doc in trained_nlp.pipe(texts)]
    got = [[t.text for t in doc] for doc in bf16.pipe(texts)]
    assert sum(a == b for a, b in zip(ref, got)) >= len(texts) - 1
    scores32 = trained_nlp.get_pipe("gdcws_segmenter").scores([trained_nlp.make_doc(texts[0])])[0]
    scores16 = bf16.get_pipe("gdcws_segmenter").scores([bf16.make_doc(texts[0])])[0]
    assert scores16.dtype == numpy.float32 and not numpy.array_equal(scores16, scores32)
    assert numpy.allclose(scores16, scores32, atol=0.5)
    bf16.update(make_examples(bf16, sxu_sentences[:2]))  # no gradient scaler on CPU




SCRIPT = r"""
import json, resource, sys
import spacy
from spacy.training import Example
from spacy_gdcws.readers import read_sentences, sentence_to_doc
nlp = spacy.blank("zh")
nlp.add_pipe("gdcws_segmenter")  # the default (CPU-sized) model
sents = list(read_sentences(sys.argv[1]))[:200]
egs = [Example(nlp.make_doc("".join(s.words)), sentence_to_doc(nlp.vocab, s)) for s in sents]
opt = nlp.initialize(lambda: egs)
rss = {}
for step in range(70):
    nlp.update(egs[(step * 10) % 200 : (step * 10) % 200 + 10], sgd=opt)
    if step in (20, 69):
        rss[step] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(rss))
"""


@pytest.mark.slow
def test_update_does_not_grow_memory():
    corpus = ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(corpus)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rss = json.loads(out.stdout.strip().splitlines()[-1])
    growth_mb = (rss["69"] - rss["20"]) / 1024
    # the leak this guards against grew ~5 MB per step (~250 MB over these 50 steps)
    assert growth_mb < 60, growth_mb
