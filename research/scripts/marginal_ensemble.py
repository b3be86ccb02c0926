"""Dev experiment for the closed-test recipe: combine CRF members by averaging their boundary
marginals instead of their potentials (what `python -m spacy_gdcws ensemble` does).

    python research/scripts/marginal_ensemble.py sxu training/enc/sxu.fast_s{0,1,2,3,4}/model-best \
        --output research/metrics/closed_test/sxu.fast_x5.marginals.dev.json

For each member: its potentials on the dev docs (the last 10% of the training file), Viterbi
decoding of them alone, and each gap's boundary marginal (forward-backward: the gradient of log Z
with respect to the potentials). Then token F on dev of (a) Viterbi over the averaged potentials,
(b) averaged marginals cut at thresholds 0.40-0.60. Dev only: the test file is not read.
"""
import argparse
import json
from pathlib import Path
from typing import List, Sequence

import numpy
import spacy
import torch
from spacy.tokens import DocBin
from spacy.training import Example

from spacy_gdcws.decoding.crf import _pad, crf_boundaries
from spacy_gdcws.eval.ud_eval import prf
from spacy_gdcws.io import atomic_write_text
from spacy_gdcws.data.bmes import AFTER
from spacy_gdcws.nn.crf import allowed_steps, log_partition
from spacy_gdcws.pipeline.loss import gold_gaps

BATCH = 64
THRESHOLDS = (0.4, 0.45, 0.5, 0.55, 0.6)


def boundary_marginals(scores: Sequence[numpy.ndarray]) -> List[numpy.ndarray]:
    """P(a word ends after character t) for t < n - 1, per doc, under the CRF's potentials."""
    out: List[numpy.ndarray] = []
    after = numpy.asarray(AFTER, dtype=numpy.float32)
    for i in range(0, len(scores), BATCH):
        chunk = scores[i : i + BATCH]
        psi_np, gaps, lengths = _pad(chunk, [numpy.full(len(s) - 1, -1) for s in chunk])
        psi = torch.from_numpy(psi_np).requires_grad_(True)
        log_z = log_partition(psi, allowed_steps(torch.from_numpy(gaps), psi_np.shape[1]), torch.from_numpy(lengths))
        (pairs,) = torch.autograd.grad(log_z.sum(), psi)  # P(tag i at t - 1, tag j at t)
        unary = pairs.sum(dim=2).numpy() @ after
        out += [unary[k, : n - 1] for k, n in enumerate(lengths.tolist())]
    return out


def _spans(bounds: numpy.ndarray) -> set:
    """The words of a doc of len(bounds) + 1 characters, as (start, end) character offsets."""
    cuts = [0, *(numpy.flatnonzero(bounds) + 1).tolist(), len(bounds) + 1]
    return set(zip(cuts, cuts[1:]))


def token_f(predicted: Sequence[numpy.ndarray], gold: Sequence[numpy.ndarray]) -> float:
    """Word F1 (x100) of boundary vectors against the gold ones."""
    pairs = [(_spans(p), _spans(g)) for p, g in zip(predicted, gold)]
    counts = [sum(len(ps & gs) for ps, gs in pairs), sum(len(ps) for ps, _ in pairs), sum(len(gs) for _, gs in pairs)]
    return round(100 * prf(*counts)["f"], 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("members", nargs="+")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    chars = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})
    golds = list(DocBin().from_disk(f"corpus/{args.corpus}/dev.spacy").get_docs(chars.vocab))
    texts = [g.text for g in golds]
    gold = [gold_gaps(Example(chars.make_doc(g.text), g))[0] > 0.5 for g in golds]
    free = [numpy.full(len(t) - 1, -1) for t in texts]
    potentials, marginals = [], []
    for path in args.members:
        nlp = spacy.load(path)
        model = nlp.get_pipe("segmenter").model
        docs = [nlp.make_doc(t) for t in texts]
        scores: List[numpy.ndarray] = []
        for i in range(0, len(docs), BATCH):
            scores += [numpy.asarray(s) for s in model.predict(docs[i : i + BATCH])]
        potentials.append(scores)
        marginals.append(boundary_marginals(scores))
    k = len(args.members)
    report = {
        "corpus": args.corpus, "split": "dev", "members": args.members,
        "members_viterbi": [token_f(crf_boundaries(p, free), gold) for p in potentials],
        "members_marginal_0.5": [token_f([m > 0.5 for m in ms], gold) for ms in marginals],
        "potentials_averaged_viterbi": token_f(crf_boundaries(
            [numpy.mean([potentials[m][i] for m in range(k)], axis=0) for i in range(len(texts))], free), gold),
    }
    averaged = [numpy.mean([marginals[m][i] for m in range(k)], axis=0) for i in range(len(texts))]
    report["marginals_averaged"] = {str(th): token_f([a > th for a in averaged], gold) for th in THRESHOLDS}
    text = json.dumps(report, indent=2) + "\n"
    print(text, end="")
    if args.output:
        atomic_write_text(args.output, text)


if __name__ == "__main__":
    main()
