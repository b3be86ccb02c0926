"""Write tests/fixtures/legacy_gd_v2: a tiny pipeline saved by spacy_gdcws before the
composable model (run with that version first on PYTHONPATH, e.g. a worktree of c5cdd2a):

    git worktree add /tmp/old c5cdd2a
    PYTHONPATH=/tmp/old python research/scripts/make_legacy_fixture.py tests/fixtures

Trains on 40 sentences of UD_Chinese-GSDSimp dev (assets/ud_zh, CC BY-SA 4.0) and
records the words it gives for 20 other sentences (`legacy_gd_v2.json`).
"""
import sys
from pathlib import Path

import spacy
import srsly
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from spacy_gdcws.readers import read_conll

ROOT = Path(__file__).resolve().parents[2]
MODEL = {
    "@architectures": "spacy_gdcws.GDTransformer.v2", "width": 16, "depth": 2, "n_heads": 2, "d_ff": 32,
    "dropout": 0.0, "char_rows": 800, "char_seeds": 2, "bigrams": True, "bigram_rows": 1500, "bigram_width": 8,
    "biaffine_width": 16, "layer_norm": "pre", "lexicon_max_len": 4, "ngram_vocab": True, "window": 32,
}


def main(out_dir: str) -> None:
    fix_random_seed(0)
    sents = [s for _, s in zip(range(60), read_conll(ROOT / "assets/ud_zh/zh_gsdsimp-ud-dev.conllu"))]
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})
    nlp.add_pipe("gdcws_segmenter", config={"model": MODEL})
    examples = []
    for sent in sents[:40]:
        ref = Doc(nlp.vocab, words=sent.words, spaces=[False] * len(sent.words))
        examples.append(Example(nlp.make_doc(ref.text), ref))
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.01)
    for _ in range(30):
        nlp.update(examples, sgd=optimizer)
    out = Path(out_dir)
    nlp.to_disk(out / "legacy_gd_v2")
    texts = ["".join(sent.words) for sent in sents[40:]] + ["我爱北京天安门。\n今天 天气很好", ""]
    srsly.write_json(out / "legacy_gd_v2.json", {"texts": texts, "words": [[t.text for t in d] for d in nlp.pipe(texts)]})


if __name__ == "__main__":
    main(sys.argv[1])
