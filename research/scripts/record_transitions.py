"""Record the gap-label transitions, the characters' word-position tags and the character pairs'
boundaries of a training file in a pipeline trained before `gdcws_segmenter.initialize` recorded them (needed for
`transition_weight` / `tag_prior_weight` / `bigram_prior_weight` > 0).

    python research/scripts/record_transitions.py training/exp/zx.folds10/model-best corpus/zx/train.spacy \
        training/exp/zx.folds10/model-best-transitions

The counts are those `initialize` records: pairs of neighbouring gold gaps of the training docs,
per character the pair of gold gaps around it, and per pair of characters (and the windows of
three characters around the pairs seen both ways) how often a gold gap between them is a word
boundary.
"""
import argparse
from pathlib import Path

import spacy
from spacy.tokens import DocBin
from spacy.training import Example

from spacy_gdcws.pipeline.names import find_segmenter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", type=Path)
    parser.add_argument("train", type=Path, help="the DocBin the model was trained on")
    parser.add_argument("output", type=Path)
    args = parser.parse_args()
    nlp = spacy.load(args.model)
    segmenter = nlp.get_pipe(find_segmenter(nlp))
    gold = DocBin().from_disk(args.train).get_docs(nlp.vocab)
    segmenter.record_transitions(Example(nlp.make_doc(doc.text), doc) for doc in gold)
    nlp.to_disk(args.output)
    print(f"{args.output}: transitions {segmenter.cfg['transitions']}, tags of {len(segmenter.cfg['tags'])} characters, "
          f"boundaries of {len(segmenter.pair_counts)} character pairs "
          f"and {sum(len(k) for k in segmenter.pair_counts.keys[1:])} windows around them")


if __name__ == "__main__":
    main()
