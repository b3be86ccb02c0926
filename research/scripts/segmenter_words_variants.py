"""The segmenter's training words, four ways, for choosing on held-out GSDSimp dev (#68): from the
main job's data less GSDSimp dev (`heldout_gsdsimp_dev.py`), write to OUT/NAME/{train,dev}.spacy

- `all`: every source's words as released (GSD, HK, CFL, PUD: the main job before);
- `gsd`: GSD's sentences alone;
- `gsdpud`: GSD's and PUD's;
- `standard`: every source, HK's, CFL's and PUD's words in GSD's standard
  (`spacy_gdcws.treebanks.word_standard`, learnt from GSD's training part, as `prepare` does).

    python research/scripts/segmenter_words_variants.py HELDOUT OUT
    bash research/scripts/segmenter_words_run.sh OUT NAME SEED   # train, then words on held-out dev
"""
import argparse
from pathlib import Path

import spacy
from spacy.tokens import DocBin

from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.readers.corpus import sentence_to_doc
from spacy_gdcws.treebanks.word_standard import WordStandard

# sentences of each source in the held-out files, in `prepare ud_gsd_more`'s order (GSDSimp dev removed)
TRAIN = {"gsd": 3597, "hk": 904, "cfl": 406, "pud": 900}
DEV = {"gsd": 400, "hk": 100, "cfl": 45, "pud": 100}


def _parts(docs, sizes):
    out, start = {}, 0
    for name, n in sizes.items():
        out[name] = docs[start: start + n]
        start += n
    assert start == len(docs), (start, len(docs))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("heldout", type=Path, help="the folder with train_nogsdsimp.spacy and dev_nogsdsimp.spacy")
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    nlp = spacy.blank("zh")
    train = _parts(list(DocBin().from_disk(args.heldout / "train_nogsdsimp.spacy").get_docs(nlp.vocab)), TRAIN)
    dev = _parts(list(DocBin().from_disk(args.heldout / "dev_nogsdsimp.spacy").get_docs(nlp.vocab)), DEV)
    standard = WordStandard().learn(Sentence(words=[t.text for t in d], line=0) for d in train["gsd"])

    def in_standard(docs):
        converted = [standard.convert(Sentence(words=[t.text for t in d], line=0)) for d in docs]
        return [sentence_to_doc(nlp.vocab, s) for s in converted]

    variants = {
        "all": (sum(train.values(), []), sum(dev.values(), [])),
        "gsd": (train["gsd"], dev["gsd"]),
        "gsdpud": (train["gsd"] + train["pud"], dev["gsd"] + dev["pud"]),
        "standard": (train["gsd"] + sum((in_standard(train[k]) for k in ("hk", "cfl", "pud")), []),
                     dev["gsd"] + sum((in_standard(dev[k]) for k in ("hk", "cfl", "pud")), [])),
    }
    for name, (docs_train, docs_dev) in variants.items():
        (args.out / name).mkdir(parents=True, exist_ok=True)
        DocBin(docs=docs_train).to_disk(args.out / name / "train.spacy")
        DocBin(docs=docs_dev).to_disk(args.out / name / "dev.spacy")
        print(name, len(docs_train), len(docs_dev))


if __name__ == "__main__":
    main()
