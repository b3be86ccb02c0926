"""Where the parser's torch model spends its time: torch's profiler over the model's forward on the
sentences of the first SXU test lines (segmented by the pipeline's own segmenter, batched as `predict`
batches them), one thread, with the words and the seconds of the whole forward.

    OMP_NUM_THREADS=1 python research/benchmarks/parser_profile.py --model zh_gdcws [--lines 1500] [--precision int8]
"""
import argparse
import time
from pathlib import Path

from reports import SXU_TEST


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--input", type=Path, default=SXU_TEST)
    parser.add_argument("--lines", type=int, default=1500)
    parser.add_argument("--precision", default="saved", help="the parser's (set_precision): saved, int8, ...")
    parser.add_argument("--rows", type=int, default=15)
    parser.add_argument("--sort", default="cpu_time_total", help="the table's order (torch's key_averages keys)")
    args = parser.parse_args()
    import spacy
    import torch
    from torch.profiler import ProfilerActivity, profile

    from spacy_gdcws.app.precision import set_precision
    from spacy_gdcws.ml.shims import torch_shims
    from reports import cpu_model

    torch.set_num_threads(1)
    nlp = spacy.load(args.model)
    set_precision(nlp, args.precision, components=["parser"])
    texts = ["".join(line.split()) for line in args.input.read_text(encoding="utf8").splitlines()]
    texts = [t for t in texts if t][: args.lines]
    docs = list(nlp.get_pipe("segmenter").pipe(nlp.tokenizer.pipe(texts)))
    pipe = nlp.get_pipe("parser")
    batches, _ = pipe.featurizer.batches(docs)
    net = torch_shims(pipe.model)[0].net.eval()

    def forward() -> None:
        with torch.inference_mode():
            for b in batches:
                net(*(torch.from_numpy(a) for a in (b.feats, b.chars, b.lengths)))

    forward()
    start = time.perf_counter()
    forward()
    seconds = time.perf_counter() - start
    words = sum(int(b.lengths.sum()) for b in batches)
    print(f"{words} words in {len(batches)} batches: forward {seconds:.3f} s ({words / seconds:,.0f} words/s), "
          f"{cpu_model()}, 1 thread, parser {args.precision}")
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        forward()
    print(prof.key_averages().table(sort_by=args.sort, row_limit=args.rows))


if __name__ == "__main__":
    main()
