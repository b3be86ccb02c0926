"""Seconds per training step of the `gdcws_parser` at several sizes, its BiLSTM run over packed
sequences (the code before `spacy_gdcws.nn.bilstm.run_bilstm`) and over the padded batch (after), on
the same batches: the main job's batches (~650 words, `configs/ud_biaffine.cfg`'s batcher at its start),
the segmenter frozen, one process, sizes and paths taking turns batch by batch.

    OMP_NUM_THREADS=2 python research/benchmarks/parser_steps.py --segmenter SEGMENTER \\
        --train corpus/ud_gsd_more/train.spacy --sizes 2x200 3x200 2x256 \\
        --output research/benchmarks/results/parser_steps.json
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build(config_path: Path, segmenter: Path, train: Path, width: int, depth: int, docs: int):
    """An initialized pipeline of `config_path` at this BiLSTM size, its optimizer and training examples."""
    from spacy.training.initialize import init_nlp
    from spacy.util import load_config, registry
    from thinc.api import fix_random_seed

    overrides = {"paths.train": str(train), "paths.dev": str(train), "paths.segmenter": str(segmenter),
                 "corpora.train.limit": docs, "components.parser.model.lstm_width": width,
                 "components.parser.model.lstm_depth": depth}
    config = load_config(config_path, overrides=overrides, interpolate=False)
    fix_random_seed(0)
    nlp = init_nlp(config)
    interpolated = config.interpolate()
    optimizer = registry.resolve(interpolated["training"])["optimizer"]
    corpus = registry.resolve(interpolated["corpora"])["train"]
    return nlp, optimizer, list(corpus(nlp))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--segmenter", type=Path, required=True, help="a trained segmenter pipeline (the config sources it)")
    parser.add_argument("--train", type=Path, required=True)
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "ud_biaffine.cfg")
    parser.add_argument("--sizes", nargs="+", default=["2x200", "3x200", "2x256"], help="DEPTHxWIDTH")
    parser.add_argument("--docs", type=int, default=600)
    parser.add_argument("--batch-words", type=int, default=650)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    import torch

    from spacy_gdcws.nn import bilstm, word_parser
    from reports import cpu_model, emit
    from train_speed import batches

    paths = {"packed": bilstm.packed_bilstm, "padded": bilstm.run_bilstm}
    runs = []
    for size in args.sizes:
        depth, width = (int(v) for v in size.split("x"))
        nlp, optimizer, examples = build(args.config, args.segmenter, args.train, width, depth, args.docs)
        groups = batches(examples, args.batch_words, size_of=lambda eg: len(eg.reference))
        for path in paths:
            runs.append({"size": size, "path": path, "nlp": nlp, "optimizer": optimizer, "groups": groups,
                         "seconds": []})
    for step in range(args.warmup + args.steps):
        for run in runs:
            word_parser.run_bilstm = paths[run["path"]]
            batch = run["groups"][step % len(run["groups"])]
            start = time.perf_counter()
            run["nlp"].update(batch, sgd=run["optimizer"], exclude=["segmenter"])
            if step >= args.warmup:
                run["seconds"].append(time.perf_counter() - start)
    word_parser.run_bilstm = bilstm.run_bilstm
    results = {}
    for run in runs:
        results.setdefault(run["size"], {})[run["path"]] = {
            "seconds_per_step_median": round(statistics.median(run["seconds"]), 4),
            "seconds_per_step_mean": round(statistics.mean(run["seconds"]), 4)}
    for size, r in results.items():
        r["packed_over_padded"] = round(r["packed"]["seconds_per_step_mean"] / r["padded"]["seconds_per_step_mean"], 3)
        print(f"{size}: packed {r['packed']['seconds_per_step_mean']:.3f} s, padded "
              f"{r['padded']['seconds_per_step_mean']:.3f} s, {r['packed_over_padded']}x", file=sys.stderr)
    report = {"command": " ".join([Path(sys.executable).name] + sys.argv), "cpu": cpu_model(),
              "threads": torch.get_num_threads(), "batch_words": args.batch_words, "steps": args.steps,
              "warmup": args.warmup, "results": results}
    emit(report, args.output)


if __name__ == "__main__":
    main()
