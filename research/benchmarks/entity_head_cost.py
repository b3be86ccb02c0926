"""What the entity head costs the parser (#78): the same pipeline's `gdcws_parser` over the first SXU
test lines (segmented once by its own segmenter), timed with its entity tagger and with it switched
off (`WordParserNet.ents = None`: no entity scores, no Viterbi, no entities written), taking turns in
one process, one thread. Run nothing else on the machine meanwhile.

    OMP_NUM_THREADS=1 python research/benchmarks/entity_head_cost.py --model zh_gdcws --rounds 4 \\
        --output research/benchmarks/results/entity_head_cost.json
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

from reports import SXU_TEST, cpu_model, emit



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--input", type=Path, default=SXU_TEST)
    parser.add_argument("--lines", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    import spacy
    import torch

    from spacy_gdcws.ml.shims import torch_shims

    torch.set_num_threads(1)
    nlp = spacy.load(args.model)
    texts = ["".join(line.split()) for line in args.input.read_text(encoding="utf8").splitlines()]
    texts = [t for t in texts if t][: args.lines]
    docs = list(nlp.get_pipe("segmenter").pipe(nlp.tokenizer.pipe(texts)))
    pipe = nlp.get_pipe("parser")
    net = torch_shims(pipe.model)[0].net
    head = net.ents
    if head is None:
        sys.exit(f"{args.model}'s parser has no entity tagger")

    def seconds(with_head: bool) -> float:
        net.ents = head if with_head else None
        start = time.perf_counter()
        for _ in pipe.pipe([doc.copy() for doc in docs]):
            pass
        return time.perf_counter() - start

    seconds(True)  # warm-up
    times = {"with_entities": [], "without_entities": []}
    for _ in range(args.rounds):
        times["with_entities"].append(seconds(True))
        times["without_entities"].append(seconds(False))
    net.ents = head
    medians = {k: statistics.median(v) for k, v in times.items()}
    report = {"command": " ".join(["python"] + sys.argv), "model": args.model, "cpu": cpu_model(),
              "torch_threads": torch.get_num_threads(), "lines": len(texts),
              "chars": sum(len(t) for t in texts), "seconds": times, "median_seconds": medians,
              "without/with": round(medians["without_entities"] / medians["with_entities"], 3)}
    emit(report, args.output)


if __name__ == "__main__":
    main()
