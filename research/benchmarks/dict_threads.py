"""Threads segmenting while others edit the user dictionary (issue #51, S6; issue #49).

    python research/benchmarks/dict_threads.py --model zh_gdcws --seconds 60 \\
        --output research/benchmarks/results/dict_threads.json

Force words stay in the dictionary; each writer thread adds and removes a word of its own,
over and over; the reader threads segment the same texts over and over. With two writers
the dictionary is in one of four states (each word in or out): every doc a reader gets
must have the words of one of them. Reports the docs checked, those that matched no state
and the errors raised.
"""
import argparse
import itertools
import sys
import threading
import time
from pathlib import Path

import spacy
from reports import emit

FORCE = ["小米手机", "天猫精灵", "红米"]
TOGGLED = ["米家", "华为"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--readers", type=int, default=6)
    parser.add_argument("--writers", type=int, default=2, choices=[1, 2])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    nlp = spacy.load(args.model)
    seg = next(pipe for _, pipe in nlp.pipeline if hasattr(pipe, "add_words"))
    seg.add_words(FORCE, "force")
    toggled = TOGGLED[: args.writers]
    texts = [f"第{i}天，我用小米手机和天猫精灵，也买了红米、米家和华为的东西。" for i in range(24)]
    states = {}
    for present in itertools.product([False, True], repeat=len(toggled)):
        for word, on in zip(toggled, present):
            (seg.add_words if on else seg.remove_words)([word])
        states[present] = [[t.text for t in doc] for doc in nlp.pipe(texts)]
    for word in toggled:
        seg.remove_words([word])
    allowed = [set(map(tuple, outs)) for outs in zip(*states.values())]
    stop = threading.Event()
    counts = {"docs": 0, "unmatched": 0, "errors": [], "edits": 0}
    lock = threading.Lock()

    def read() -> None:
        while not stop.is_set():
            try:
                for i, doc in enumerate(nlp.pipe(texts, batch_size=8)):
                    ok = tuple(t.text for t in doc) in allowed[i]
                    with lock:
                        counts["docs"] += 1
                        counts["unmatched"] += not ok
            except Exception as err:  # noqa: BLE001 (each one is counted)
                with lock:
                    counts["errors"].append(f"{type(err).__name__}: {err}")

    def write(word: str) -> None:
        while not stop.is_set():
            seg.add_words([word], "force")
            seg.remove_words([word])
            with lock:
                counts["edits"] += 2

    threads = [threading.Thread(target=read) for _ in range(args.readers)]
    threads += [threading.Thread(target=write, args=(word,)) for word in toggled]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    time.sleep(args.seconds)
    stop.set()
    for thread in threads:
        thread.join()
    report = {"command": " ".join(["python"] + sys.argv), "model": args.model, "readers": args.readers,
              "writers": len(toggled), "seconds": round(time.perf_counter() - start, 1),
              "states": len(states), "docs": counts["docs"], "edits": counts["edits"],
              "docs_matching_no_state": counts["unmatched"], "errors": len(counts["errors"]),
              "first_errors": counts["errors"][:5]}
    emit(report, args.output)


if __name__ == "__main__":
    main()
