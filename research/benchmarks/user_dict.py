"""User dictionaries at jieba's scale: load time and segmenting speed against
dictionary size, beside jieba's `load_userdict` on the same lists.

    python research/benchmarks/user_dict.py --model training/enc/sxu.idcnn/model-best \\
        --output research/metrics/user_dict_scale.json

The lists are the first 1k, 10k, 100k words of jieba's own `dict.txt` (in the jieba
wheel, `word freq tag` per line) and the whole file (349,046 lines). For each size,
in one process: our `load_user_dict` (force mode) into the pipeline's segmenter and
the seconds to segment the texts (`nlp.pipe`, the first 1,000 SXU test lines); jieba's
`load_userdict` into a fresh, initialised `jieba.Tokenizer` and its `lcut` over the
same texts. The median of `--runs` is reported for each.

Edits (`edits` in the report, issue #49): 4,000 words (of jieba's dict.txt, past the
first 100k) added one `add_words` call at a time against one call of all 4,000, on an
empty dictionary, also counting one short line segmented right after (where the tables of
words added one at a time are brought up to date); then, with jieba's whole dict.txt loaded, the median of one more
one-word `add_words`, of one `remove_words`, and of segmenting one short line right
after an edit (`--edit-samples` of each); and whether the words of the texts after all
the edits equal those of a dictionary built in one call from the same words.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import spacy
from reports import emit

ROOT = Path(__file__).resolve().parents[2]


def timed(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cli_times(model: str, texts, dictionary: Path, rounds: int) -> dict:
    """Wall-clock seconds of `python -m spacy_gdcws segment` in fresh processes (load,
    dictionary and all), without and with `--user-dict dictionary`, taking turns."""
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.txt"
        src.write_text("\n".join(texts) + "\n", encoding="utf8")
        times = {"without": [], "with": []}
        for _ in range(rounds):
            for name, extra in (("without", []), ("with", ["--user-dict", str(dictionary)])):
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", model, str(src), str(Path(tmp) / "out.txt"),
                                *extra], check=True, capture_output=True)
                times[name].append(round(time.perf_counter() - start, 3))
    medians = {k: statistics.median(v) for k, v in times.items()}
    return {"seconds": times, "median_without": medians["without"], "median_with": medians["with"],
            "ratio": round(medians["with"] / medians["without"], 3)}


def edit_costs(nlp, seg, lines, texts, samples: int) -> dict:
    """The cost of editing the dictionary one word at a time (see the module docstring)."""
    from spacy_gdcws.decoding.user_dict import UserDictionary

    words = [line.split()[0] for line in lines[100_000:104_000]]
    line = texts[0][:30]
    seg.user_dict.reset()
    start = time.perf_counter()
    for word in words:
        seg.add_words([word])
    one_at_a_time = time.perf_counter() - start
    nlp(line)  # the tables of the 4,000 words are brought up to date here
    one_at_a_time_then_line = time.perf_counter() - start
    seg.user_dict.reset()
    start = time.perf_counter()
    seg.add_words(words)
    one_call = time.perf_counter() - start
    nlp(line)
    one_call_then_line = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dict.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf8")
        seg.user_dict.reset()
        seg.load_user_dict(path)
    extra = [f"测试词{i}" for i in range(samples)]
    add, remove, decode = [], [], []
    for word in extra:
        t0 = time.perf_counter()
        seg.add_words([word], "prefer")
        t1 = time.perf_counter()
        nlp(texts[len(add) % len(texts)][:30])
        t2 = time.perf_counter()
        add.append(t1 - t0)
        decode.append(t2 - t1)
    for word in extra[::2]:
        t0 = time.perf_counter()
        seg.remove_words([word])
        remove.append(time.perf_counter() - t0)
    edited = [[t.text for t in doc] for doc in nlp.pipe(texts, batch_size=256)]
    seg.user_dict = UserDictionary.from_list(seg.user_dict.to_list())
    at_once = [[t.text for t in doc] for doc in nlp.pipe(texts, batch_size=256)]
    ms = lambda values: round(1000 * statistics.median(values), 3)  # noqa: E731
    return {"words": len(words), "one_at_a_time_s": round(one_at_a_time, 4), "one_call_s": round(one_call, 4),
            "ratio": round(one_at_a_time / one_call, 2),
            "one_at_a_time_then_a_line_s": round(one_at_a_time_then_line, 4),
            "one_call_then_a_line_s": round(one_call_then_line, 4),
            "ratio_then_a_line": round(one_at_a_time_then_line / one_call_then_line, 2),
            "dictionary_size": len(seg.user_dict),
            "add_one_ms_median": ms(add), "remove_one_ms_median": ms(remove),
            "segment_after_edit_ms_median": ms(decode), "samples": samples,
            "same_words_as_one_build": edited == at_once}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--texts", type=Path, default=ROOT / "corpus" / "sxu" / "test_raw.txt")
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000, 0], help="0 = the whole file")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cli-rounds", type=int, default=3,
                        help="fresh `segment` processes with and without jieba's whole dict.txt, taking turns")
    parser.add_argument("--edit-samples", type=int, default=200)
    parser.add_argument("--edits-only", action="store_true", help="measure the edits only (no sizes, no CLI)")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    import jieba

    jieba.setLogLevel(60)
    source = Path(jieba.__file__).parent / "dict.txt"
    lines = source.read_text(encoding="utf8").splitlines()
    texts = args.texts.read_text(encoding="utf8").splitlines()[: args.lines]
    nlp = spacy.load(args.model)
    seg = next(pipe for _, pipe in nlp.pipeline if hasattr(pipe, "load_user_dict"))
    segment = lambda: sum(len(d) for d in nlp.pipe(texts, batch_size=256))  # noqa: E731
    segment()  # warm-up: spaCy's vocabulary holds the texts' words
    edits = edit_costs(nlp, seg, lines, texts, args.edit_samples)
    print(json.dumps({"edits": edits}), file=sys.stderr, flush=True)
    seg.user_dict.reset()
    if args.edits_only:
        args.sizes, args.cli_rounds = [], 0
    rows = [{"size": 0, "ours_segment_s": round(timed(segment, args.runs), 3),
             "jieba_segment_s": None, "label": "no dictionary"}]
    base = jieba.Tokenizer()
    base.initialize()
    rows[0]["jieba_segment_s"] = round(timed(lambda: [base.lcut(t) for t in texts], args.runs), 3)
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            chosen = lines if size == 0 else lines[:size]
            path = Path(tmp) / f"dict_{len(chosen)}.txt"
            path.write_text("\n".join(chosen) + "\n", encoding="utf8")
            seg.user_dict.reset()
            ours_load = timed(lambda: (seg.user_dict.reset(), seg.load_user_dict(path)), args.runs)
            ours_segment = timed(segment, args.runs)

            def jieba_load():
                tok = jieba.Tokenizer()
                tok.initialize()
                start = time.perf_counter()
                tok.load_userdict(str(path))
                return tok, time.perf_counter() - start

            loads = [jieba_load() for _ in range(args.runs)]
            tok = loads[-1][0]
            row = {"size": len(chosen), "ours_load_s": round(ours_load, 3), "ours_segment_s": round(ours_segment, 3),
                   "jieba_load_s": round(statistics.median(t for _, t in loads), 3),
                   "jieba_segment_s": round(timed(lambda: [tok.lcut(t) for t in texts], args.runs), 3)}
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    cli = cli_times(args.model, texts, source, args.cli_rounds) if args.cli_rounds else None
    report = {"command": " ".join(["python"] + sys.argv), "model": args.model, "texts": str(args.texts), "cli": cli,
              "edits": edits,
              "lines": len(texts), "chars": sum(len(t) for t in texts), "runs": args.runs,
              "machine": {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count()},
              "rows": rows}
    emit(report, args.output)


if __name__ == "__main__":
    main()
