"""Frequencies that count (#49): the prefer bonus scaled by a word's frequency, scale chosen on dev.

    python research/scripts/user_dict_freq.py training/enc/sxu.fastest/model-best \\
        --output research/metrics/user_dict_freq_zx.json

The model is trained on SXU (news); the text is ZX (a novel). The domain lexicon is what a user
could list for that novel without its dev or test text: the words of ZX's training part
(`corpus/zx/train.spacy`, the training file's first 90%) that the SXU training vocabulary lacks,
each with its count there as its frequency (as a jieba dictionary gives one). Every `--scales`
value (`user_dict_freq_scale`; the bonus stays `user_dict_bonus`, 3.0) segments ZX dev
(`corpus/zx/dev.spacy`, the training file's last 10%) and ZX test with the lexicon as "prefer"
words; scored with the Python port of the official scorer, SXU training vocabulary as dictionary.
The scale with the best dev F is the chosen one; test is reported for every scale, chosen on none.
Controls (`--bonuses`): the same words without frequencies at larger plain bonuses, since any scale
above 0 also raises the mean bonus.
Needs `python -m spacy_gdcws prepare sxu|zx ../shared/corpora corpus/sxu|zx`.
"""
import argparse
import collections
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional

import spacy
from spacy.tokens import DocBin

from spacy_gdcws.app.segment import segment_texts
from spacy_gdcws.eval.evaluate import read_vocabulary
from spacy_gdcws.eval.sighan import score_files
from spacy_gdcws.io import atomic_write_text
from spacy_gdcws.pipeline.names import find_segmenter

ROOT = Path(__file__).resolve().parents[2]


def docbin_words(path: Path) -> List[List[str]]:
    nlp = spacy.blank("zh")
    return [[t.text for t in doc] for doc in DocBin().from_disk(path).get_docs(nlp.vocab)]


def score(model: str, lexicon: Dict[str, int], scale: float, raw: List[str], gold: Path, vocab: Path,
          scratch: Path, bonus: Optional[float] = None) -> Dict[str, float]:
    nlp = spacy.load(model)
    segmenter = nlp.get_pipe(find_segmenter(nlp))
    if lexicon:
        segmenter.add_words(lexicon, "prefer")
    segmenter.user_dict_freq_scale = scale
    if bonus is not None:
        segmenter.user_dict_bonus = bonus
    atomic_write_text(scratch, "".join("  ".join(words) + "\n" for words in segment_texts(nlp, raw)))
    result = score_files(vocab, gold, scratch).to_dict()
    scratch.unlink()
    return {k: round(100 * result[k], 2) for k in ("precision", "recall", "f", "oov_recall", "iv_recall")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--scales", type=float, nargs="+", default=[0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0])
    parser.add_argument("--bonuses", type=float, nargs="+", default=[6.0, 12.0, 24.0],
                        help="controls: the same words without frequencies at these bonuses (is it the frequency "
                             "or only a larger bonus that pays?)")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    corpus = ROOT / "corpus"
    sxu_vocab = corpus / "sxu" / "words.txt"
    known = read_vocabulary(sxu_vocab)
    counts = collections.Counter(w for words in docbin_words(corpus / "zx" / "train.spacy") for w in words)
    lexicon = {w: n for w, n in sorted(counts.items()) if w not in known and len(w) > 1 and not any(c.isspace() for c in w)}
    dev_words = docbin_words(corpus / "zx" / "dev.spacy")
    scratch = args.output.parent / f".{args.output.stem}"
    gold_dev = scratch.with_suffix(".dev_gold.txt")
    atomic_write_text(gold_dev, "".join("  ".join(w) + "\n" for w in dev_words))
    sets = {"dev": (["".join(w) for w in dev_words], gold_dev),
            "test": ((corpus / "zx" / "test_raw.txt").read_text(encoding="utf8").split("\n")[:-1],
                     corpus / "zx" / "test_gold.txt")}
    report = {"model": args.model, "lexicon_size": len(lexicon), "lexicon_freq_median": sorted(lexicon.values())[len(lexicon) // 2],
              "bonus": spacy.load(args.model).get_pipe("segmenter").user_dict_bonus, "runs": {}}
    runs = ([("no dictionary", {}, 0.0, None)] + [(f"prefer, scale {s:g}", lexicon, s, None) for s in args.scales]
            + [(f"prefer, no frequencies, bonus {b:g}", {w: 1 for w in lexicon}, 0.0, b) for b in args.bonuses])
    for name, words, scale, bonus in runs:
        report["runs"][name] = {"scale": scale, "bonus": bonus if bonus is not None else report["bonus"]}
        for part, (raw, gold) in sets.items():
            report["runs"][name][part] = score(args.model, words, scale, raw, gold, sxu_vocab, scratch.with_suffix(".pred"),
                                               bonus)
        print(f"{name:20} dev F {report['runs'][name]['dev']['f']:.2f}  test F {report['runs'][name]['test']['f']:.2f}",
              file=sys.stderr)
    gold_dev.unlink()
    prefer = {k: v for k, v in report["runs"].items() if k.startswith("prefer, scale")}
    report["chosen_on_dev"] = max(prefer, key=lambda k: (prefer[k]["dev"]["f"], -prefer[k]["scale"]))
    report["command"] = " ".join(["python"] + sys.argv)
    atomic_write_text(args.output, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print("chosen on dev:", report["chosen_on_dev"], file=sys.stderr)


if __name__ == "__main__":
    main()
