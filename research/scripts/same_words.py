"""Behaviour check for refactors: the words of fixed pipelines and settings on
every SXU test line, and the losses of a few training steps, written to one
JSON file. Run it with the old tree and the new one and compare the files:

    PYTHONPATH=/tmp/old python research/scripts/same_words.py --model-idcnn M --out old.json
    python research/scripts/same_words.py --model-idcnn M --out new.json
    cmp old.json new.json

Settings: the legacy GD fixture (tests/fixtures/legacy_gd_v2) greedy, with the
three decoding priors (weight 1 each), with a force and a prefer user
dictionary; an ID-CNN-CRF pipeline alone and with the same dictionary; each
`--models NAME=PATH` pipeline (e.g. ones saved by the previous release) alone,
with a force / prefer / combine dictionary, and (gap scorers) with the priors.
Losses: `nlp.update` on the same 8 batches of SXU dev docs, for the model of
`configs/default.cfg` and `configs/idcnn.cfg` (`--configs`: the folder to read
them from, e.g. the old tree's, when a refactor rewrites a config's form).
"""
import argparse
import hashlib
import json
import random
from pathlib import Path

import spacy
from spacy.tokens import DocBin
from spacy.training import Example

ROOT = Path(__file__).resolve().parents[2]
FORCE = ["天安门", "北京大学", "人民", "和服"]
PREFER = ["中华人民共和国", "经济", "发展中"]
COMBINE = ["服务员", "发展中国家", "北京"]


def words_of(nlp, texts):
    return [[t.text for t in doc] for doc in nlp.pipe(texts, batch_size=256)]


def segmenter(nlp):
    return next(pipe for name, pipe in nlp.pipeline if hasattr(pipe, "add_words"))


def settings(fixture: Path, idcnn: Path, texts):
    out = {}
    nlp = spacy.load(fixture)
    seg = segmenter(nlp)
    out["gd_greedy"] = words_of(nlp, texts)
    seg.transition_weight = seg.tag_prior_weight = seg.bigram_prior_weight = 1.0
    out["gd_priors"] = words_of(nlp, texts)
    seg.transition_weight = seg.tag_prior_weight = seg.bigram_prior_weight = 0.0
    seg.add_words(FORCE, "force")
    seg.add_words(PREFER, "prefer")
    out["gd_user_dict"] = words_of(nlp, texts)
    nlp = spacy.load(idcnn)
    out["idcnn"] = words_of(nlp, texts)
    seg = segmenter(nlp)
    seg.add_words(FORCE, "force")
    seg.add_words(PREFER, "prefer")
    out["idcnn_user_dict"] = words_of(nlp, texts)
    return out


def more_settings(models, texts):
    """Words of each extra pipeline: greedy, with the priors (gap scorers), with a dictionary."""
    out = {}
    for name, path in models:
        nlp = spacy.load(path)
        seg = segmenter(nlp)
        out[name] = words_of(nlp, texts)
        if not seg.scores_tags:
            seg.transition_weight = seg.tag_prior_weight = seg.bigram_prior_weight = 1.0
            out[f"{name}_priors"] = words_of(nlp, texts)
            seg.transition_weight = seg.tag_prior_weight = seg.bigram_prior_weight = 0.0
        seg.add_words(FORCE, "force")
        seg.add_words(PREFER, "prefer")
        seg.add_words(COMBINE, "combine")
        out[f"{name}_user_dict"] = words_of(nlp, texts)
    return out


def losses(config: str, dev: Path, configs: Path, steps: int = 8):
    from spacy import util

    util.fix_random_seed(0)
    cfg = util.load_config(configs / f"{config}.cfg")
    nlp = util.load_model_from_config(cfg, auto_fill=True, validate=True)
    docs = list(DocBin().from_disk(dev).get_docs(nlp.vocab))[:400]
    examples = [Example(nlp.make_doc(d.text), d) for d in docs]
    nlp.initialize(lambda: examples)
    rng = random.Random(0)
    out = []
    optimizer = nlp.create_optimizer()
    for _ in range(steps):
        batch = rng.sample(examples, 16)
        result = nlp.update(batch, sgd=optimizer, losses={})
        out.append(round(float(next(iter(result.values()))), 6))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixture", type=Path, default=ROOT / "tests" / "fixtures" / "legacy_gd_v2")
    parser.add_argument("--model-idcnn", type=Path, required=True)
    parser.add_argument("--texts", type=Path, default=ROOT / "corpus" / "sxu" / "test_raw.txt")
    parser.add_argument("--dev", type=Path, default=ROOT / "corpus" / "sxu" / "dev.spacy")
    parser.add_argument("--models", nargs="*", default=[], help="NAME=PATH: more pipelines to compare")
    parser.add_argument("--configs", type=Path, default=ROOT / "configs")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    texts = args.texts.read_text(encoding="utf8").splitlines()
    texts += ["", " ", "\u3000\u3000我爱北京天安门。", "café Zürich 2.5% https://example.com/a?b=1 好", "a\n\nb"]
    report = {"words": settings(args.fixture, args.model_idcnn, texts)}
    report["words"].update(more_settings([spec.split("=", 1) for spec in args.models], texts))
    report["sha1"] = {k: hashlib.sha1(json.dumps(v, ensure_ascii=False).encode()).hexdigest() for k, v in report["words"].items()}
    report["losses"] = {c: losses(c, args.dev, args.configs) for c in ("default", "idcnn")}
    args.out.write_text(json.dumps(report, ensure_ascii=False, indent=0), encoding="utf8")
    print(json.dumps({"sha1": report["sha1"], "losses": report["losses"]}, indent=1))


if __name__ == "__main__":
    main()
