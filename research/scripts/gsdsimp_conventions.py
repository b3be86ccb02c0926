"""Learn `spacy_gdcws/treebanks/gsdsimp_conventions.json`: how GSDSimp labels what UD Chinese HK, CFL
and PUD label otherwise, read off the GSD training file as the main job converts it (UD v2, GSDSimp's
conventions: `treebanks.relabel.convert_gsd_v1`). No dev or test file is read.

    python research/scripts/gsdsimp_conventions.py --write

(The renames of the relations GSD never writes are UD's, fixed: `treebanks.conventions.RENAMES`.)
- `functions`: forms GSD labels with one (UPOS, relation) in at least 90% of at least 10 uses, that
  relation a function word's (`conventions.FUNCTION_RELATIONS`);
- `upos`: (form, relation) pairs GSD writes with one UPOS in at least 90% of at least 5 uses.
It prints, per treebank, the share of tokens each step changes.
"""
import argparse
import collections
import json
from pathlib import Path

import opencc

from spacy_gdcws.app.prepare import place_names
from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.treebanks.conventions import FUNCTION_RELATIONS, TABLE_PATH, to_gsdsimp
from spacy_gdcws.treebanks.relabel import convert_gsd_v1

ROOT = Path(__file__).resolve().parents[2]
OTHERS = ("hk", "cfl", "pud")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assets", type=Path, default=ROOT / "assets")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    t2s = opencc.OpenCC("t2s")
    places = place_names()
    gsd = [convert_gsd_v1(s, places=places) for s in read_conll(args.assets / "ud_zh" / "train.conll")]
    relations = collections.Counter(d for s in gsd for d in s.deps)
    by_form = collections.defaultdict(collections.Counter)
    upos_of = collections.defaultdict(collections.Counter)
    for s in gsd:
        for w, p, d in zip(s.words, s.pos, s.deps):
            by_form[w][(p, d)] += 1
            upos_of[f"{w}\t{d}"][p] += 1
    others = {tb: list(read_conll(args.assets / "ud_zh_more" / f"zh_{tb}-ud-test.conllu")) for tb in OTHERS}
    functions = {}
    for form, counts in by_form.items():
        if not counts:
            continue
        (pos, rel), n = counts.most_common(1)[0]
        if sum(counts.values()) >= 10 and n / sum(counts.values()) >= 0.9 and rel in FUNCTION_RELATIONS:
            functions[form] = [pos, rel]
    upos = {key: c.most_common(1)[0][0] for key, c in upos_of.items()
            if sum(c.values()) >= 5 and c.most_common(1)[0][1] / sum(c.values()) >= 0.9}
    table = {"functions": dict(sorted(functions.items())), "upos": dict(sorted(upos.items()))}
    print({k: len(v) for k, v in table.items()}, "entries")
    for tb, sents in others.items():
        n = changed_pos = changed_dep = changed_head = 0
        for s in sents:
            out = to_gsdsimp(s, table, t2s.convert)
            n += len(s.words)
            changed_pos += sum(a != b for a, b in zip(s.pos, out.pos))
            changed_dep += sum(a != b for a, b in zip(s.deps, out.deps))
            changed_head += sum(a != b for a, b in zip(s.heads, out.heads))
        print(f"{tb}: {n} tokens; UPOS changed {100 * changed_pos / n:.1f}%, relations {100 * changed_dep / n:.1f}%, "
              f"heads {100 * changed_head / n:.1f}%")
    if args.write:
        TABLE_PATH.write_text(json.dumps(table, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf8")
        print("->", TABLE_PATH)


if __name__ == "__main__":
    main()
