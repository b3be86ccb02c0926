"""Training memory stays flat: the optimizer step must not keep old parameter tensors alive."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

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


def test_update_does_not_grow_memory():
    corpus = ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(corpus)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rss = json.loads(out.stdout.strip().splitlines()[-1])
    growth_mb = (rss["69"] - rss["20"]) / 1024
    # the leak this guards against grew ~5 MB per step (~250 MB over these 50 steps)
    assert growth_mb < 60, growth_mb
