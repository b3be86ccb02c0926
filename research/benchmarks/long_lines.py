"""One very long line through `segment`: time, characters/s and peak memory, with both character
tokenizers, and how many word boundaries the piece cutting (`spacy_gdcws.app.pieces`) changes.

    python research/benchmarks/long_lines.py --model PIPELINE --sizes 100000,1000000,5000000 \\
        --output research/benchmarks/results/long_lines.json

PIPELINE: a saved pipeline with a `gdcws_segmenter` (its segmenter is what `segment` runs). The
line: the SXU test sentences (gold words joined; UD GSDSimp test where ../shared is absent)
repeated to each size, no line break. For each size, a fresh process loads the pipeline as
`segment` does (`load_pipeline(words_only=True)`) and times what `segment` then does, the line read
from its file, segmented (`segment_lines`) and written (`write_segmented`), with the pipeline's own
tokenizer (`spacy_gdcws.ChineseCharTokenizer.v1`) and with spaCy's `spacy.zh.ChineseTokenizer` in
"char" mode (the pipeline copied with that tokenizer in its config: the same tokens). Peak resident
memory: the process's `ru_maxrss` (loading included; `load_rss_mb` is the same after loading).
Then, in this process, the boundaries of `segment`'s pieces against `nlp(line)` whole, for the
sizes a whole line fits in memory (`--whole-up-to`). One torch thread (`OMP_NUM_THREADS=1`).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Set

from reports import cpu_model, emit

ROOT = Path(__file__).resolve().parents[2]



def base_text() -> str:
    from spacy_gdcws.readers import read_sentences

    sxu = ROOT.parent / "shared" / "corpora" / "sxu" / "test.txt"
    if sxu.exists():
        return "".join("".join(s.words) for s in read_sentences(sxu))
    gsd = ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu"
    return "".join(line[len("# text = "):].strip() for line in gsd.read_text(encoding="utf8").splitlines()
                   if line.startswith("# text = "))


def with_spacy_tokenizer(model: Path, folder: Path) -> Path:
    """A copy of the pipeline whose config names spaCy's zh tokenizer in char mode."""
    from spacy.util import load_config

    target = folder / "spacy_char"
    shutil.copytree(model, target)
    for listing in target.glob("pipeline_checksums.json"):
        listing.unlink()  # the config changes: the copy is not the sealed pipeline
    config = load_config(target / "config.cfg", interpolate=False)
    config["nlp"]["tokenizer"] = {"@tokenizers": "spacy.zh.ChineseTokenizer", "segmenter": "char"}
    config.to_disk(target / "config.cfg")
    return target


# what `segment MODEL SOURCE OUT` does after its checks, timed from after loading
DRIVER = """
import json, resource, sys, time
from spacy_gdcws.app.segment import load_pipeline, segment_lines, write_segmented
from spacy_gdcws.io import atomic_writer
from spacy_gdcws.readers.base import iter_text_lines
nlp = load_pipeline(sys.argv[1], words_only=True)
load_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
start = time.perf_counter()
with atomic_writer(sys.argv[3]) as out:
    write_segmented(segment_lines(nlp, iter_text_lines(sys.argv[2])), out)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "load_rss_mb": load_rss,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""


def run_segment(model: Path, source: Path, out: Path) -> Dict[str, float]:
    """Seconds of `segment`'s work (after loading) and the process's peak RSS, in a fresh process."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", DRIVER, str(model), str(source), str(out)], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def boundaries(words: List[str]) -> Set[int]:
    out, at = set(), 0
    for word in words:
        at += len(word)
        out.add(at)
    return out


def piece_differences(model: Path, line: str) -> Dict[str, int]:
    """Boundaries of `segment`'s pieces that differ from the whole line's."""
    import spacy

    from spacy_gdcws.app.segment import segment_lines

    nlp = spacy.load(model)
    nlp.max_length = 10**9
    whole = [t.text for t in nlp(line)]
    docs = [doc for doc, _ in segment_lines(nlp, [line])]
    pieces = [t.text for doc in docs for t in doc]
    return {"pieces": len(docs), "boundaries": len(boundaries(whole)),
            "differing": len(boundaries(whole) ^ boundaries(pieces))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--sizes", default="100000,1000000,5000000")
    parser.add_argument("--whole-up-to", type=int, default=1_000_000)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = "1"
    sizes = [int(s) for s in args.sizes.split(",")]
    base = base_text()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        models = {"ChineseCharTokenizer.v1": args.model, "spacy.zh.ChineseTokenizer char": with_spacy_tokenizer(
            args.model, tmp)}
        for tokenizer, model in models.items():
            for size in sizes:
                line = (base * (size // len(base) + 1))[:size]
                (tmp / "line.txt").write_text(line + "\n", encoding="utf8")
                run = run_segment(model, tmp / "line.txt", tmp / "line.out")
                assert (tmp / "line.out").read_text(encoding="utf8").replace("  ", "").rstrip("\n") == line
                rows.append({"tokenizer": tokenizer, "chars": size, "seconds": round(run["seconds"], 2),
                             "chars_per_s": round(size / run["seconds"]), "load_rss_mb": run["load_rss_mb"],
                             "peak_rss_mb": run["peak_rss_mb"]})
                print(rows[-1], file=sys.stderr)
        differences = {}
        for size in sizes:
            if size <= args.whole_up_to:
                differences[str(size)] = piece_differences(args.model, (base * (size // len(base) + 1))[:size])
    emit({"command": " ".join(["python", "research/benchmarks/long_lines.py", *sys.argv[1:]]),
          "machine": f"{cpu_model()}, {os.cpu_count()} cores",
          "model": str(args.model), "runs": rows, "pieces_vs_whole": differences}, args.output)


if __name__ == "__main__":
    main()
