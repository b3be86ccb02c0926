"""Decoding experiments on the dev split, from the models' gap logits (dev only).

    python research/scripts/dev_decoding.py zx training/zx.default/model-best training/exp/zx.folds10/model-best \
        --transition-weights 0 0.5 1.0 --tag-prior-weights 0 0.5 1.0

`python -m spacy_gdcws tune-decoding` does the weight search for one pipeline and saves it with the
chosen weights; this script is for the experiments around it (ensembles, fixed grids). Scores on
corpus/CORPUS/dev.spacy (token P/R/F, OOV and IV recall, each segmenter's training vocabulary as
dictionary), always through `GDSegmenter.boundaries`:
- each model with its own greedy threshold decoding (what the pipeline does);
- with several models, the average of their gap logits (an ensemble), decoded greedily by the
  first model's segmenter;
- with `--transition-weights` and / or `--tag-prior-weights`, Viterbi over the gap labels of the
  first model (or the average), for every pair of weights: log P(gap label) from the model plus
  weight x log P(label | previous gap's label) plus weight x each character's tag score (how its
  two gaps go together), both counted on the gold segmentation of corpus/CORPUS/train.spacy
  (closed-test legal): what the segmenter does with `transition_weight` and `tag_prior_weight`
  (`spacy_gdcws.decoding.priors`). A missing list means weight 0;
- with `--bigram-prior-weights`, the first model's segmenter as it was saved (its own two
  weights) with each `bigram_prior_weight` (the counts recorded from the training docs).
"""
import argparse
from pathlib import Path

import numpy
import spacy
from spacy.tokens import DocBin
from spacy.training import Example

from spacy_gdcws.pipeline.names import find_segmenter
from spacy_gdcws.app.tuning import gap_logits, score_decoding

ROOT = Path(__file__).resolve().parents[2]


def _brief(scores: dict) -> dict:
    return {key: scores[key] for key in ("token_f", "token_oov_r", "token_iv_r")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--transition-weights", nargs="*", type=float, default=[])
    parser.add_argument("--tag-prior-weights", nargs="*", type=float, default=[])
    parser.add_argument("--bigram-prior-weights", nargs="*", type=float, default=[])
    parser.add_argument("--corpus-dir", type=Path, default=ROOT / "corpus")
    args = parser.parse_args()
    pipelines = [spacy.load(model) for model in args.models]
    segmenters = [pipeline.get_pipe(find_segmenter(pipeline)) for pipeline in pipelines]
    nlp, segmenter = pipelines[0], segmenters[0]
    saved = (segmenter.transition_weight, segmenter.tag_prior_weight)
    for one in segmenters:
        one.transition_weight = one.tag_prior_weight = 0.0
    golds = list(DocBin().from_disk(args.corpus_dir / args.corpus / "dev.spacy").get_docs(nlp.vocab))
    texts = [g.text for g in golds]
    # the final scorer's column only, so that models with and without HiRED average
    all_logits = [[scores[:, :1] for scores in gap_logits(pipeline, texts)] for pipeline in pipelines]
    for model, pipeline, one, logits in zip(args.models, pipelines, segmenters, all_logits):
        print(f"{str(model):60s} {_brief(score_decoding(pipeline, one, golds, logits))}")
    base = all_logits[0]
    if len(all_logits) > 1:
        base = [numpy.mean(parts, axis=0) for parts in zip(*all_logits)]
        print(f"{'average of the gap logits':60s} {_brief(score_decoding(nlp, segmenter, golds, base))}")
    if args.bigram_prior_weights:
        train = DocBin().from_disk(args.corpus_dir / args.corpus / "train.spacy").get_docs(nlp.vocab)
        segmenter.record_transitions(Example(nlp.make_doc(d.text), d) for d in train)
        segmenter.transition_weight, segmenter.tag_prior_weight = saved
        for weight in [0.0] + args.bigram_prior_weights:
            segmenter.bigram_prior_weight = weight
            label = f"saved weights {saved}, bigram prior weight {weight}"
            print(f"{label:60s} {_brief(score_decoding(nlp, segmenter, golds, base))}", flush=True)
        segmenter.bigram_prior_weight = 0.0
        segmenter.transition_weight = segmenter.tag_prior_weight = 0.0
    if args.transition_weights or args.tag_prior_weights:
        train = DocBin().from_disk(args.corpus_dir / args.corpus / "train.spacy").get_docs(nlp.vocab)
        segmenter.record_transitions(Example(nlp.make_doc(d.text), d) for d in train)
        for weight in args.transition_weights or [0.0]:
            for tag_weight in args.tag_prior_weights or [0.0]:
                if weight == tag_weight == 0.0:
                    continue
                segmenter.transition_weight = weight
                segmenter.tag_prior_weight = tag_weight
                label = f"Viterbi, transition weight {weight}, tag prior weight {tag_weight}"
                print(f"{label:60s} {_brief(score_decoding(nlp, segmenter, golds, base))}", flush=True)


if __name__ == "__main__":
    main()
