"""Learn `spacy_gdcws/treebanks/gsd_v1_to_v2.json` from GSD dev in both annotations.

    python research/scripts/gsd_v1_to_v2.py --corpora ../shared/corpora --write

`ud_zh/dev.conll` (pre-v2.5 GSD, UD v1 labels) and `ud_zh/zh_gsdsimp-ud-dev.conllu` (UD v2)
hold the same 500 sentences word for word. For each key of the old annotation
(`spacy_gdcws.treebanks.relabel`: form and labels, most specific first) the v2 label its
words had most often is kept where it differs from what the next, less specific key
gives (at least `--min-count` words); a two-fold check on the dev sentences is printed.
The same check prints how far `convert_gsd_v1` (relabelling and `treebanks/ud_trees.py`'s tree
moves) brings the old heads to the v2 ones. The test sets are never read.
"""
import argparse
import collections
import json
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.treebanks.relabel import TABLE_PATH, convert_gsd_v1, relabel_gsd_v1, upos_keys, word_deprel_keys

Pair = Tuple[Sentence, Sentence]


def _keys(old: Sentence, i: int, what: str) -> List[str]:
    return upos_keys(old.pos[i], old.words[i], old.deps[i]) if what == "upos" else word_deprel_keys(old, i)


def learn(pairs: Sequence[Pair], min_count: int) -> Dict[str, Dict[str, str]]:
    table: Dict[str, Dict[str, str]] = {}
    for what, column in (("upos", "pos"), ("deprel", "deps")):
        counts: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        for old, new in pairs:
            for i in range(len(old.words)):
                for key in _keys(old, i, what):
                    counts[key][getattr(new, column)[i]] += 1
        kept: Dict[str, str] = {}
        # least specific first, so each key is kept only where it changes the fallback's answer
        for level in range(1, (3 if what == "upos" else 4) + 1):
            for key, counter in sorted(counts.items()):
                if key.count("\t") != level - 1 or sum(counter.values()) < min_count:
                    continue
                label = counter.most_common(1)[0][0]
                fallback = _fallback(kept, key)
                if label != fallback:
                    kept[key] = label
        table[what] = dict(sorted(kept.items()))
    return table


def _fallback(kept: Dict[str, str], key: str) -> str:
    parts = key.split("\t")
    for n in range(len(parts) - 1, 0, -1):
        shorter = "\t".join(parts[:n])
        if shorter in kept:
            return kept[shorter]
    return parts[0]


def agreement(pairs: Sequence[Pair], table) -> Dict[str, float]:
    """Per cent of words whose v2 label (and head) the old annotation gives as it is, relabelled,
    and converted (`convert_gsd_v1`: relabelled, heads moved; `_punct` for punctuation alone)."""
    same = collections.Counter()
    n = n_punct = 0
    for old, new in pairs:
        relabelled = relabel_gsd_v1(old, table)
        converted = convert_gsd_v1(old, table)
        for i in range(len(old.words)):
            n += 1
            head = converted.heads[i] == new.heads[i]
            same["heads_converted"] += head
            same["labelled_heads_converted"] += head and converted.deps[i] == new.deps[i]
            same["labelled_heads_before"] += old.heads[i] == new.heads[i] and old.deps[i] == new.deps[i]
            same["labelled_heads_relabelled"] += old.heads[i] == new.heads[i] and relabelled.deps[i] == new.deps[i]
            same["forms_before"] += old.words[i] == new.words[i]
            same["forms_converted"] += converted.words[i] == new.words[i]
            if new.deps[i] == "punct":
                n_punct += 1
                same["punct_heads_before_p"] += old.heads[i] == new.heads[i]
                same["punct_heads_converted_p"] += head
            same["upos_before"] += old.pos[i] == new.pos[i]
            same["upos_after"] += relabelled.pos[i] == new.pos[i]
            same["deprel_before"] += old.deps[i] == new.deps[i]
            same["deprel_after"] += relabelled.deps[i] == new.deps[i]
            same["heads"] += old.heads[i] == new.heads[i]
    return {k.removesuffix("_p"): round(100 * v / (n_punct if k.endswith("_p") else n), 2) for k, v in sorted(same.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", type=Path, default=Path("../shared/corpora"))
    parser.add_argument("--min-count", type=int, default=2)
    parser.add_argument("--write", action="store_true", help=f"write {TABLE_PATH}")
    args = parser.parse_args()
    old = list(read_conll(args.corpora / "ud_zh" / "dev.conll"))
    new = list(read_conll(args.corpora / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"))
    assert [s.words for s in old] == [s.words for s in new] or len(old) == len(new)
    pairs = list(zip(old, new))
    folds = [agreement([p for j, p in enumerate(pairs) if j % 2 == f],
                       learn([p for j, p in enumerate(pairs) if j % 2 != f], args.min_count)) for f in (0, 1)]
    print("two-fold on dev:", {k: round((folds[0][k] + folds[1][k]) / 2, 2) for k in folds[0]})
    table = learn(pairs, args.min_count)
    print({k: len(v) for k, v in table.items()}, "entries")
    if args.write:
        TABLE_PATH.write_text(json.dumps(table, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf8")
        print("->", TABLE_PATH)


if __name__ == "__main__":
    main()
