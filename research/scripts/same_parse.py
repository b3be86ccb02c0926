"""Behaviour check for refactors of the whole pipeline: the words, UPOS, XPOS, heads and relations a
saved pipeline gives on fixed texts, and the losses of a few training steps of both components,
written to one JSON file. Run it with the old tree and the new one and compare the files:

    PYTHONPATH=/tmp/old python research/scripts/same_parse.py --model PIPELINE --segmenter SEG --out old.json
    python research/scripts/same_parse.py --model PIPELINE --segmenter SEG --out new.json
    python research/scripts/same_parse.py --compare old.json new.json

Texts: every sentence's `# text` of a CoNLL-U file (default GSDSimp dev, shipped in assets/), run
through `nlp.pipe` (batch size 64) and one by one through `nlp()` (the first `--n-call`, default 50),
plus edge texts.
Losses: `nlp.update` on the same 8 batches of the dev file's docs for the segmenter of
`configs/general.cfg` and the parser of `configs/ud_biaffine.cfg` (on the words of `--segmenter`,
a trained segmenter pipeline folder; `--configs`: the folder to read the configs from).
"""
import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EDGE = ["", " ", "\u3000\u3000我爱北京天安门。", "café Zürich 2.5% https://example.com/a?b=1 好", "a\n\nb",
        "他说：“今天下雨。”我们明天再去！", "第一行\n第二行 有 空格\t制表符"]


def conllu_texts(path: Path):
    return [line[len("# text = "):].rstrip("\n") for line in path.read_text(encoding="utf8").splitlines()
            if line.startswith("# text = ")]


def analyses(nlp, texts):
    out = []
    for doc in nlp.pipe(texts, batch_size=64):
        out.append([(t.text, t.pos_, t.tag_, t.dep_, t.head.i) for t in doc])
    return out


def losses(config_path: Path, dev: Path, segmenter, steps: int = 8):
    from spacy import util
    from spacy.tokens import DocBin
    from spacy.training import Example

    util.fix_random_seed(0)
    overrides = {"paths.train": str(dev), "paths.dev": str(dev)}
    if segmenter:
        overrides["paths.segmenter"] = str(segmenter)
    cfg = util.load_config(config_path, overrides=overrides)
    nlp = util.load_model_from_config(cfg, auto_fill=True, validate=True)
    docs = list(DocBin().from_disk(dev).get_docs(nlp.vocab))[:400]
    if segmenter:
        seg = nlp.get_pipe("segmenter")
        examples = [Example(d, ref) for d, ref in zip(seg.pipe(nlp.make_doc(r.text) for r in docs), docs)]
    else:
        examples = [Example(nlp.make_doc(d.text), d) for d in docs]
    with nlp.select_pipes(disable=["segmenter"] if segmenter else []):
        nlp.initialize(lambda: examples)
    rng = random.Random(0)
    out = []
    optimizer = nlp.create_optimizer()
    name = "parser" if segmenter else "segmenter"
    exclude = ["segmenter"] if segmenter else []
    for _ in range(steps):
        batch = rng.sample(examples, 16)
        result = nlp.update(batch, sgd=optimizer, losses={}, exclude=exclude)
        out.append(round(float(result[name]), 5))
    return out


def compare(old: Path, new: Path) -> int:
    a, b = (json.loads(p.read_text(encoding="utf8")) for p in (old, new))
    same = True
    for key in sorted(set(a["sha1"]) | set(b["sha1"])):
        ok = a["sha1"].get(key) == b["sha1"].get(key)
        same &= ok
        print(f"{key}: {'identical' if ok else 'DIFFERENT'}")
        if not ok and key in a["analyses"] and key in b["analyses"]:
            diff = sum(x != y for x, y in zip(a["analyses"][key], b["analyses"][key]))
            print(f"  {diff} of {len(a['analyses'][key])} texts differ")
    for key in sorted(set(a["losses"]) | set(b["losses"])):
        ok = a["losses"].get(key) == b["losses"].get(key)
        same &= ok
        print(f"losses {key}: {'identical' if ok else 'DIFFERENT'} {a['losses'].get(key)} / {b['losses'].get(key)}")
    return 0 if same else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, help="a saved pipeline (segmenter and parser)")
    parser.add_argument("--segmenter", type=Path, help="a saved segmenter pipeline (the parser's losses)")
    parser.add_argument("--texts", type=Path, default=ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu")
    parser.add_argument("--dev", type=Path, default=ROOT / "corpus" / "ud_gsd_more" / "dev.spacy")
    parser.add_argument("--configs", type=Path, default=ROOT / "configs")
    parser.add_argument("--n-call", type=int, default=50, help="texts run one by one through nlp()")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path)
    args = parser.parse_args()
    if args.compare:
        sys.exit(compare(*args.compare))
    import spacy

    texts = conllu_texts(args.texts) + EDGE
    nlp = spacy.load(args.model)
    report = {"analyses": {"pipe": analyses(nlp, texts)}}
    report["analyses"]["call"] = [[(t.text, t.pos_, t.tag_, t.dep_, t.head.i) for t in nlp(text)] for text in texts[: args.n_call]]
    report["sha1"] = {k: hashlib.sha1(json.dumps(v, ensure_ascii=False).encode()).hexdigest()
                      for k, v in report["analyses"].items()}
    report["losses"] = {"segmenter": losses(args.configs / "general.cfg", args.dev, None),
                        "parser": losses(args.configs / "ud_biaffine.cfg", args.dev, args.segmenter)}
    report["n_texts"] = len(texts)
    args.out.write_text(json.dumps(report, ensure_ascii=False, indent=0), encoding="utf8")
    print(json.dumps({"sha1": report["sha1"], "losses": report["losses"], "n_texts": len(texts)}, indent=1))


if __name__ == "__main__":
    main()
