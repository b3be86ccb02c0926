"""Registered scorers: `spacy_gdcws.GapScorer.v1` (biaffine gap logits) and `CRFTagger.v1` (BMES CRF)."""
from typing import Any

from spacy.util import registry


@registry.architectures("spacy_gdcws.GapScorer.v1")
def build_gap_scorer(width: int, hidden: int) -> Any:
    """The GD-Transformer's biaffine gap scorer (paper, Eq. 6): one logit per
    gap, trained with binary cross-entropy (or the segmenter's `loss = "crf"`
    over gaps), decoded greedily or by Viterbi with the decoding priors."""
    from spacy_gdcws.nn import GapScorer

    return GapScorer(width, hidden)


@registry.architectures("spacy_gdcws.CRFTagger.v1")
def build_crf_tagger(width: int) -> Any:
    """A linear-chain CRF over BMES tags: emissions from each character's
    vector, learned transitions; trained by the forward algorithm, decoded by
    Viterbi with BMES constraints (`spacy_gdcws.nn.crf`)."""
    from spacy_gdcws.nn import CRFTagger

    return CRFTagger(width)
