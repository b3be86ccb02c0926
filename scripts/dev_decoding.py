"""Decoding experiments on the dev split, from the models' gap logits (dev only).

    python scripts/dev_decoding.py zx training/zx.default/model-best training/exp/zx.folds10/model-best \
        --transition-weights 0.25 0.5 1.0

Scores on corpus/CORPUS/dev.spacy (token P/R/F, OOV and IV recall, the training vocabulary of the
first model as dictionary):
- each model with its own greedy threshold decoding (what the pipeline does);
- with several models, the average of their gap logits (an ensemble), decoded greedily;
- with `--transition-weights`, Viterbi over the gap labels of the first model (or the average):
  log P(gap label) from the model plus weight x log P(label | previous gap's label), the
  transitions counted on the gold segmentation of corpus/CORPUS/train.spacy (closed-test legal):
  what the segmenter does with `transition_weight` (`spacy_gdcws.decoding`).
"""
import argparse
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy
import spacy
from spacy.tokens import Doc, DocBin
from spacy.training import Example

from spacy_gdcws.decoding import transition_counts, transition_log_probs, viterbi
from spacy_gdcws.scorer import score_segmentation
from spacy_gdcws.segment import find_segmenter
from spacy_gdcws.segmenter import forced_boundaries, gold_gaps, merge_words

ROOT = Path(__file__).resolve().parent.parent


def gap_logits(model: Path, texts: Sequence[str], batch_size: int = 64) -> List[numpy.ndarray]:
    """The final scorer's logit of every gap of every text (character docs)."""
    nlp = spacy.load(model)
    segmenter = nlp.get_pipe(find_segmenter(nlp))
    out: List[numpy.ndarray] = []
    for start in range(0, len(texts), batch_size):
        docs = [nlp.make_doc(text) for text in texts[start : start + batch_size]]
        for doc, scores in zip(docs, segmenter.predict(docs)):
            out.append(numpy.asarray(scores)[:, 0].astype("f") if len(doc) > 1 else numpy.zeros(0, "f"))
    return out


def score(nlp, golds: Sequence[Doc], logits: Sequence[numpy.ndarray], words: set,
          log_trans: Optional[numpy.ndarray] = None, weight: float = 0.0) -> Dict[str, float]:
    """Segment each gold text from its logits (gaps of `nlp.make_doc`) and score against the gold docs."""
    examples = []
    for gold, doc_logits in zip(golds, logits):
        doc = nlp.make_doc(gold.text)
        if len(doc) > 1:
            cut = viterbi(doc_logits, log_trans, weight) if log_trans is not None else doc_logits > 0
            merge_words(doc, cut | forced_boundaries(doc))
        examples.append(Example(doc, gold))
    result = score_segmentation(examples, vocabulary=words)
    return {key: round(100 * result[key], 2) for key in ("token_f", "token_oov_r", "token_iv_r")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--transition-weights", nargs="*", type=float, default=[])
    parser.add_argument("--corpus-dir", type=Path, default=ROOT / "corpus")
    args = parser.parse_args()
    nlp = spacy.load(args.models[0])
    vocab = nlp.vocab
    golds = list(DocBin().from_disk(args.corpus_dir / args.corpus / "dev.spacy").get_docs(vocab))
    texts = [g.text for g in golds]
    words = nlp.get_pipe(find_segmenter(nlp)).train_words
    all_logits = [gap_logits(model, texts) for model in args.models]
    for model, logits in zip(args.models, all_logits):
        print(f"{str(model):60s} {score(nlp, golds, logits, words)}")
    base = all_logits[0]
    if len(all_logits) > 1:
        base = [numpy.mean(parts, axis=0) for parts in zip(*all_logits)]
        print(f"{'average of the gap logits':60s} {score(nlp, golds, base, words)}")
    if args.transition_weights:
        train = list(DocBin().from_disk(args.corpus_dir / args.corpus / "train.spacy").get_docs(vocab))
        counts = transition_counts(gold_gaps(Example(nlp.make_doc(d.text), d)) for d in train)
        log_trans = transition_log_probs(counts)
        for weight in args.transition_weights:
            label = f"Viterbi, transition weight {weight}"
            print(f"{label:60s} {score(nlp, golds, base, words, log_trans, weight)}")


if __name__ == "__main__":
    main()
