"""What a domain lexicon does to out-of-domain segmentation, with the user dictionary.

    python research/scripts/user_dict_eval.py training/enc/sxu.idcnn/model-best --output research/metrics/user_dict_zx.json

The model is trained on SXU (news); the test is ZX (a novel). The domain lexicon is the ZX
training vocabulary minus the SXU training vocabulary (words a user of the model could list
for that novel, without its test file). ZX test is segmented with no dictionary, with the
lexicon as "force", "prefer" and "combine" words, and scored with the Python port of the
official scorer (SXU training vocabulary as dictionary: OOV = unknown to the model).
Needs `python -m spacy_gdcws prepare sxu|zx ../shared/corpora corpus/sxu|zx`.
"""
import argparse
import json
import sys
from pathlib import Path

import spacy

ROOT = Path(__file__).resolve().parents[2]

from spacy_gdcws.eval.evaluate import read_vocabulary  # noqa: E402
from spacy_gdcws.io import atomic_write_text  # noqa: E402
from spacy_gdcws.app.segment import segment_texts  # noqa: E402
from spacy_gdcws.pipeline.names import find_segmenter
from spacy_gdcws.eval.sighan import score_files  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--source", default="sxu")
    parser.add_argument("--target", default="zx")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()
    corpus = ROOT / "corpus"
    lexicon = sorted(read_vocabulary(corpus / args.target / "words.txt") - read_vocabulary(corpus / args.source / "words.txt"))
    lexicon = [w for w in lexicon if w and not any(c.isspace() for c in w)]
    raw = (corpus / args.target / "test_raw.txt").read_text(encoding="utf8").split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    gold = corpus / args.target / "test_gold.txt"
    report = {"model": args.model, "lexicon_size": len(lexicon), "source": args.source, "target": args.target, "runs": {}}
    for mode in ("none", "force", "prefer", "combine"):
        nlp = spacy.load(args.model)
        if mode != "none":
            nlp.get_pipe(find_segmenter(nlp)).add_words(lexicon, mode)
        pred = args.output.parent / f".{args.output.stem}.{mode}.txt"
        atomic_write_text(pred, "".join("  ".join(words) + "\n" for words in segment_texts(nlp, raw)))
        score = score_files(corpus / args.source / "words.txt", gold, pred).to_dict()
        pred.unlink()
        report["runs"][mode] = {k: score[k] for k in ("precision", "recall", "f", "oov_rate", "oov_recall", "iv_recall")}
        print(f"{mode:7} F {100 * score['f']:.2f}  OOV-R {100 * score['oov_recall']:.1f}", file=sys.stderr)
    report["command"] = " ".join(["python"] + sys.argv)
    atomic_write_text(args.output, json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
