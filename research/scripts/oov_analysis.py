"""OOV recall on the dev split by kind of word, ours against retrained pkuseg.

    python research/scripts/oov_analysis.py sxu training/sxu.default/model-best --pkuseg training/sxu.pkuseg

OOV = not a word of the training split (corpus/CORPUS/train.spacy). Kinds: 1, 2, 3, 4+ Han
characters, words with digits or Han numerals, words with Latin letters, other. For
two-character Han words also by how often their characters occur as a bigram in the training
text, and how our misses look (split inside the word, or merged with a neighbour). Dev only:
the test file is not looked at.

With `--iv`, the same for the words of the training vocabulary (IV), by kind and by how often
the word's string is that word in the training text (the word's count over the string's
occurrences: low for strings that are mostly inside other words or split), how our IV misses
look, and how many of our wrong words are strings that are not training words.
"""
import argparse
import collections
from pathlib import Path
from typing import Dict, List, Sequence, Set, Tuple

import spacy
from spacy.tokens import DocBin

from spacy_gdcws.data.features import char_class

ROOT = Path(__file__).resolve().parents[2]


def spans(words: Sequence[str]) -> Set[Tuple[int, int]]:
    """Character spans of a segmentation (whitespace not counted)."""
    out, i = set(), 0
    for word in words:
        out.add((i, i + len(word)))
        i += len(word)
    return out


def kind(word: str) -> str:
    """The row of the table a word counts in (see the module docstring)."""
    classes = {char_class(c) for c in word}
    if classes <= {2}:
        return f"han{min(len(word), 4)}" + ("+" if len(word) >= 4 else "")
    if classes & {1, 3}:
        return "number"
    if 4 in classes:
        return "latin"
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("model")
    parser.add_argument("--pkuseg", type=Path, default=None, help="a pkuseg model folder (research/scripts/baselines.py)")
    parser.add_argument("--iv", action="store_true", help="also the in-vocabulary words")
    args = parser.parse_args()
    nlp = spacy.load(args.model)
    folder = ROOT / "corpus" / args.corpus
    train = list(DocBin().from_disk(folder / "train.spacy").get_docs(nlp.vocab))
    vocabulary = {t.text for doc in train for t in doc if not t.is_space}
    train_text = "\n".join(doc.text for doc in train)
    bigrams = collections.Counter(train_text[i : i + 2] for i in range(len(train_text) - 1))
    gold = list(DocBin().from_disk(folder / "dev.spacy").get_docs(nlp.vocab))
    texts = [doc.text for doc in gold]
    systems: Dict[str, List[List[str]]] = {
        "ours": [[t.text for t in doc if not t.is_space] for doc in nlp.pipe(texts, batch_size=64)]
    }
    if args.pkuseg is not None:
        import spacy_pkuseg

        pkuseg = spacy_pkuseg.pkuseg(model_name=str(args.pkuseg), user_dict=None)
        systems["pkuseg"] = [[w for w in pkuseg.cut(text) if w.strip()] for text in texts]
    found: Dict[str, collections.Counter] = {name: collections.Counter() for name in systems}
    total: collections.Counter = collections.Counter()
    misses: collections.Counter = collections.Counter()
    for n, doc in enumerate(gold):
        predicted = {name: spans(words[n]) for name, words in systems.items()}
        i = 0
        for word in (t.text for t in doc if not t.is_space):
            if word not in vocabulary:
                keys = [kind(word)]
                if keys[0] == "han2":
                    count = bigrams[word]
                    keys.append("han2, bigram " + ("unseen" if count == 0 else "once" if count == 1 else "2+ times"))
                    if (i, i + 2) not in predicted["ours"]:
                        misses["split" if (i, i + 1) in predicted["ours"] else "merged"] += 1
                for key in keys + ["all"]:
                    total[key] += 1
                    for name, got in predicted.items():
                        found[name][key] += (i, i + len(word)) in got
            i += len(word)
    print_table("OOV words", total, found)
    print(f"\nour misses of two-character OOV words: {dict(misses)}")
    if args.iv:
        word_counts = collections.Counter(t.text for doc in train for t in doc if not t.is_space)
        iv_table(gold, systems, word_counts, train_text)


def print_table(title: str, total: collections.Counter, found: Dict[str, collections.Counter]) -> None:
    """Recall per kind of word (rows, "all" last) for each system (columns), as Markdown."""
    names = list(found)
    print(f"| {title} | n | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for key in sorted(total, key=lambda k: (k == "all", k)):
        cells = " | ".join(f"{100 * found[name][key] / total[key]:.1f}" for name in names)
        print(f"| {key} | {total[key]:,} | {cells} |")


def _share_bucket(share: float) -> str:
    """The row of a known word by the share of its string's training occurrences that are it."""
    bounds = (0.95, 0.7, 0.3, 0.0)
    for low, high in zip(bounds, (1.0,) + bounds):
        if share >= low:
            return f"the string is the word in {low:.0%}-{high:.0%} of its training occurrences"
    raise ValueError(share)


def iv_table(gold: Sequence, systems: Dict[str, List[List[str]]], word_counts: collections.Counter,
             train_text: str) -> None:
    """Recall of the dev words that are training words (see the module docstring)."""
    found: Dict[str, collections.Counter] = {name: collections.Counter() for name in systems}
    total: collections.Counter = collections.Counter()
    how: collections.Counter = collections.Counter()
    wrong: collections.Counter = collections.Counter()
    occurrences: Dict[str, int] = {}
    for n, doc in enumerate(gold):
        words = [t.text for t in doc if not t.is_space]
        predicted = {name: spans(got[n]) for name, got in systems.items()}
        starts = {a for a, _ in predicted["ours"]}
        ends = {b for _, b in predicted["ours"]}
        i = 0
        for word in words:
            if word in word_counts:
                if word not in occurrences:
                    occurrences[word] = max(train_text.count(word), word_counts[word])
                keys = [kind(word), _share_bucket(word_counts[word] / occurrences[word]), "all"]
                for key in keys:
                    total[key] += 1
                    for name, got in predicted.items():
                        found[name][key] += (i, i + len(word)) in got
                if (i, i + len(word)) not in predicted["ours"]:
                    split = any(i < b < i + len(word) for b in ends)
                    merged = i not in starts or (i + len(word)) not in ends
                    how[f"{kind(word)}, " + ("split and merged" if split and merged else "split" if split else "merged")] += 1
            i += len(word)
        gold_spans = spans(words)
        j = 0
        for word in systems["ours"][n]:
            if (j, j + len(word)) not in gold_spans:
                wrong["a training word" if word in word_counts else "not a training word"] += 1
            j += len(word)
    print()
    print_table("IV words", total, found)
    print(f"\nour IV misses: {dict(how.most_common())}")
    print(f"our wrong words: {dict(wrong)}")


if __name__ == "__main__":
    main()
