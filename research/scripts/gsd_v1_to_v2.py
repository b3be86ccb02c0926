"""Learn `spacy_gdcws/treebanks/gsd_v1_to_v2.json` from GSD dev in both annotations.

    python research/scripts/gsd_v1_to_v2.py --corpora ../shared/corpora --write

`ud_zh/dev.conll` (pre-v2.5 GSD, UD v1 labels) and `ud_zh/zh_gsdsimp-ud-dev.conllu` (UD v2)
hold the same 500 sentences word for word. For each key of the old annotation
(`spacy_gdcws.treebanks.relabel`: form and labels, most specific first) the v2 label its
words had most often is kept where it differs from what the next, less specific key
gives (at least `--min-count` words); a two-fold check on the dev sentences is printed.
The same check prints how far `convert_gsd_v1` (relabelling and `treebanks/ud_trees.py`'s tree
moves) brings the old heads to the v2 ones. The test pair is read by `--heldout-test` only (the
held-out check of the shipped table, run once).
"""
import argparse
import collections
import json
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from spacy_gdcws.readers.base import Sentence
from spacy_gdcws.readers.conll import read_conll
from spacy_gdcws.decoding.dictionary_files import read_entries, tagged_lexicon
from spacy_gdcws.shipped import JIEBA_DICT
from spacy_gdcws.treebanks.relabel import (
    PLACE_TAGS,
    TABLE_PATH,
    convert_gsd_v1,
    convert_gsd_v1_moves,
    load_table,
    relabel_gsd_v1,
    upos_keys,
    word_deprel_keys,
)

PLACES = frozenset(w for w, (_, t) in tagged_lexicon(read_entries(JIEBA_DICT)).items() if t in PLACE_TAGS)

Pair = Tuple[Sentence, Sentence]


def _keys(old: Sentence, i: int, what: str) -> List[str]:
    return upos_keys(old.pos[i], old.words[i], old.deps[i]) if what == "upos" else word_deprel_keys(old, i)


def learn(pairs: Sequence[Pair], min_count: int, base=None) -> Dict[str, Dict[str, str]]:
    """The table, learned from the words whose converted head (by `base`, the table before) is v2's
    and whose relation no tree move sets (the moves set theirs: learning from them would tie a label
    to the word that moved)."""
    table: Dict[str, Dict[str, str]] = {}
    eligible = []
    for old, new in pairs:
        converted, moved = convert_gsd_v1_moves(old, base, PLACES)
        eligible.append({i for i in range(len(old.words)) if i not in moved and converted.heads[i] == new.heads[i]})
    for what, column in (("upos", "pos"), ("deprel", "deps")):
        counts: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        for (old, new), ok in zip(pairs, eligible):
            for i in range(len(old.words)):
                if what == "deprel" and i not in ok:
                    continue
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
    table["forms"] = spellings(pairs)
    return table


def spellings(pairs: Sequence[Pair]) -> Dict[str, str]:
    """GSDSimp's spelling of the words the pre-v2.5 copy writes in a mainland variant: the pairs of
    dev words of one length that OpenCC knows as variants (s2twp, then t2s, turns the old into the
    new: 网络 → 网路), and the aspect particle 著 → 着 (GSDSimp keeps 著 in 著名)."""
    import opencc

    variant = opencc.OpenCC("s2twp"), opencc.OpenCC("t2s")
    forms: Dict[str, str] = {}
    for old, new in pairs:
        for a, b, pos in zip(old.words, new.words, new.pos):
            if a == b or pos == "PUNCT" or len(a) != len(b):  # a spelling, not another word: the text keeps its length
                continue
            if variant[1].convert(variant[0].convert(a)) == b or (a, b) == ("著", "着"):
                forms[a] = b
    return dict(sorted(forms.items()))


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
        converted = convert_gsd_v1(old, table, PLACES)
        for i in range(len(old.words)):
            n += 1
            head = converted.heads[i] == new.heads[i]
            same["heads_converted"] += head
            same["labelled_heads_converted"] += head and converted.deps[i] == new.deps[i]
            same["labelled_heads_before"] += old.heads[i] == new.heads[i] and old.deps[i] == new.deps[i]
            same["labelled_heads_relabelled"] += old.heads[i] == new.heads[i] and relabelled.deps[i] == new.deps[i]
            same["forms_before"] += old.words[i] == new.words[i]
            same["upos_converted"] += converted.pos[i] == new.pos[i]
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
    parser.add_argument("--heldout-test", action="store_true",
                        help="only print the shipped table's agreement on the test pair (the held-out check: run once)")
    args = parser.parse_args()
    if args.heldout_test:
        pairs = list(zip(read_conll(args.corpora / "ud_zh" / "test.conll"),
                         read_conll(args.corpora / "ud_zh" / "zh_gsdsimp-ud-test.conllu")))
        print("held-out test pair:", {k: round(v, 2) for k, v in agreement(pairs, load_table()).items()})
        return
    old = list(read_conll(args.corpora / "ud_zh" / "dev.conll"))
    new = list(read_conll(args.corpora / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"))
    assert [s.words for s in old] == [s.words for s in new] or len(old) == len(new)
    pairs = list(zip(old, new))
    folds = []
    for f in (0, 1):
        half = [p for j, p in enumerate(pairs) if j % 2 != f]
        folds.append(agreement([p for j, p in enumerate(pairs) if j % 2 == f],
                               learn(half, args.min_count, learn(half, args.min_count))))
    print("two-fold on dev:", {k: round((folds[0][k] + folds[1][k]) / 2, 2) for k in folds[0]})
    # twice: the second table is learned on the heads the first one's conversion gives
    table = learn(pairs, args.min_count, learn(pairs, args.min_count))
    print("in-sample on dev:", {k: round(v, 2) for k, v in agreement(pairs, table).items()})
    print({k: len(v) for k, v in table.items()}, "entries")
    if args.write:
        TABLE_PATH.write_text(json.dumps(table, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf8")
        print("->", TABLE_PATH)


if __name__ == "__main__":
    main()
