"""`segment-corpus` on Ray Data against single-process `segment`: speed and the driver's peak
memory as the corpus grows, in one run.

    python research/benchmarks/ray_segment.py --model training/bench.small/model-best \\
        --chars 2000000,20000000 --output research/benchmarks/results/ray_cpu.json

`training/bench.small` is a small ID-CNN-CRF (width 32, one iteration, 50 steps on UD GSD: what
is measured is the machinery around the model, not the model):

    python -m spacy_gdcws prepare ud_gsd assets corpus/ud_gsd
    python -m spacy train configs/idcnn.cfg --output training/bench.small \\
        --paths.train corpus/ud_gsd/train.spacy --paths.dev corpus/ud_gsd/dev.spacy \\
        --training.max_steps 50 --training.eval_frequency 50 --components.segmenter.model.embed.width 32 \\
        --components.segmenter.model.encoder.width 32 --components.segmenter.model.scorer.width 32 \\
        --components.segmenter.model.encoder.iterations 1

The corpus: SXU test lines (UD GSDSimp test where the shared corpora are absent) repeated to each
size, in 8 files. For each size: `segment` run on the 8 files one after another (one process
each), then `segment-corpus` with 1 and 2 actors (a fresh local Ray each, started by the
command as a user runs it), each in a fresh process whose peak resident memory (the driver's:
`ru_maxrss`; Ray's workers and object store are other processes) is reported. Outputs are
checked to be identical to `segment`'s. Seconds include model loading and Ray's start; each run also
gives where the time went (#70: `Summary.stages`): the worker-seconds of reading, segmenting and writing
the chunks, the commit's wall seconds, and the command's startup (imports, the model's check, Ray).
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reports import cpu_model, emit

ROOT = Path(__file__).resolve().parents[2]
N_FILES = 8
# the driver, as `segment-corpus` runs it, reporting its own peak RSS at the end
DRIVER = """
import json, resource, sys
from spacy_gdcws.app.corpus import segment_corpus
s = segment_corpus(sys.argv[1], sys.argv[2], sys.argv[3], actors=int(sys.argv[4]), batch_size=int(sys.argv[5]),
                   progress=False)
print(json.dumps({"files": s.files, "lines": s.lines, "chars": s.chars, "failed": s.failed, "seconds": s.seconds,
                  "stages": s.stages, "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def base_lines():
    sxu = ROOT.parent / "shared" / "corpora" / "sxu" / "test.txt"
    if sxu.exists():
        return ["".join(line.split()) for line in sxu.read_text(encoding="utf8").split("\n") if line.strip()]
    from spacy_gdcws.readers import read_conll

    return ["".join(s.words) for s in read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-test.conllu")]


def write_corpus(folder: Path, n_chars: int) -> int:
    """N_FILES files of SXU lines repeated up to `n_chars` characters; RETURNS the characters written."""
    base = base_lines()
    folder.mkdir(parents=True)
    per_file, written, i = n_chars // N_FILES, 0, 0
    for k in range(N_FILES):
        with (folder / f"part{k}.txt").open("w", encoding="utf8") as f:
            size = 0
            while size < per_file:
                line = base[i % len(base)]
                f.write(line + "\n")
                size += len(line)
                i += 1
            written += size
    return written


def run_size(model: str, n_chars: int, batch_size: int, tmp: Path) -> dict:
    source = tmp / f"in_{n_chars}"
    chars = write_corpus(source, n_chars)
    out = {"chars": chars}
    start = time.perf_counter()
    for k in range(N_FILES):
        subprocess.run([sys.executable, "-m", "spacy_gdcws", "segment", model, str(source / f"part{k}.txt"),
                        str(tmp / f"single_{n_chars}" / f"part{k}.txt")], check=True, capture_output=True)
    seconds = time.perf_counter() - start
    out["segment"] = {"seconds": round(seconds, 1), "chars_per_second": round(chars / seconds)}
    for actors in (1, 2):
        target = tmp / f"ray_{n_chars}_{actors}"
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-c", DRIVER, str(source), str(target), model, str(actors), str(batch_size)],
                             check=True, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        report = json.loads(run.stdout.strip().splitlines()[-1])
        same = all((target / f"part{k}.txt").read_bytes() == (tmp / f"single_{n_chars}" / f"part{k}.txt").read_bytes()
                   for k in range(N_FILES))
        assert same and not report["failed"], f"segment-corpus with {actors} actor(s) differs from segment"
        out[f"ray_{actors}_actors"] = {"seconds": round(seconds, 1), "chars_per_second": round(chars / seconds),
                                       "seconds_per_million_chars": round(seconds / chars * 1e6, 2),
                                       "driver_peak_rss_mb": report["peak_rss_mb"], "identical_to_segment": same,
                                       # where the time went (`Summary.stages`): worker-seconds of reading,
                                       # segmenting and writing chunks; the commit's wall seconds; the rest of
                                       # the command (imports, model check, Ray's start and scheduling)
                                       "pipeline_seconds": round(report["seconds"], 1),
                                       "stages_seconds": {k: round(v, 2) for k, v in report["stages"].items()},
                                       "startup_seconds": round(seconds - report["seconds"], 1)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--chars", default="2000000,20000000", help="corpus sizes in characters (comma list)")
    parser.add_argument("--batch-size", type=int, default=2000, help="lines per chunk")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    sizes = [int(x) for x in args.chars.split(",")]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            results[str(n)] = run_size(args.model, n, args.batch_size, Path(tmp))
            print(json.dumps({n: results[str(n)]}), file=sys.stderr)
    growth = {f"ray_{a}_actors": round(results[str(sizes[-1])][f"ray_{a}_actors"]["driver_peak_rss_mb"]
                                       - results[str(sizes[0])][f"ray_{a}_actors"]["driver_peak_rss_mb"], 1)
              for a in (1, 2)} if len(sizes) > 1 else {}
    report = {"command": "python research/benchmarks/ray_segment.py " + " ".join(sys.argv[1:]),
              "machine": platform.platform(), "cpu": cpu_model(), "cores": os.cpu_count(), "files": N_FILES,
              "sizes": results,
              "driver_rss_growth_mb_first_to_last": growth}
    emit(report, args.output)


if __name__ == "__main__":
    main()
