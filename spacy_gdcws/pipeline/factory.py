"""The factories of the pipeline floor's components, the one place where their defaults live:
`gdcws_segmenter` and `gdcws_subwords` (the parser's, on its own floor: `parse.factory`).

The default model is the main job's (`configs/general.cfg`): the one-pass, width-48 ID-CNN-CRF on
hashed normalized characters (OpenCC t2s, full-width punctuation folded),
bigrams, dictionary features and the n-gram vocabulary, so
`nlp.add_pipe("gdcws_segmenter")` builds what `spacy project run all` trains,
less its general lexicon (`general_lexicon`), which needs a word list at
initialize that a bare `add_pipe` does not have.
"""
from typing import Callable, List, Optional

from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Config, Model
from thinc.types import Floats2d

from spacy_gdcws.pipeline.segmenter import GDSegmenter
from spacy_gdcws.pipeline.subwords import SubwordFinder

DEFAULT_MODEL_CONFIG = """
[model]
@architectures = "spacy_gdcws.CharSegmenter.v1"
window = 512
batch_chars = 16384
mixed_precision = false

[model.embed]
@architectures = "spacy_gdcws.CharEmbed.v2"
width = 48
char_rows = 20000
char_seeds = 2
bigrams = true
bigram_rows = 100000
bigram_width = 32
lexicon_max_len = 6
lexicon_dropout = 0.2
lexicon_holdout = true
ngram_vocab = true
ngram_holdout = true
ngram_dropout = 0.1
holdout_folds = 10
positions = false
dropout = 0.3
vectors_width = 0
normalize = "t2s+width"
general_lexicon = false

[model.encoder]
@architectures = "spacy_gdcws.IDCNN.v1"
width = 48
dilations = [1, 1, 2]
iterations = 1
kernel = 3
dropout = 0.2

[model.scorer]
@architectures = "spacy_gdcws.CRFTagger.v1"
width = 48
"""
DEFAULT_MODEL = Config().from_str(DEFAULT_MODEL_CONFIG)["model"]

DEFAULT_CONFIG = {
    "model": DEFAULT_MODEL,
    "threshold": 0.5,
    "transition_weight": 0.0,
    "tag_prior_weight": 0.0,
    "bigram_prior_weight": 0.0,
    "loss": "bce",
    "held_out_priors": False,
    "pseudo_words": 0.0,
    "pseudo_chars": 0.0,
    "atomic_units": True,
    "user_dict_bonus": 3.0,
    # chosen on ZX dev (docs/user-dictionary.md, research/metrics/user_dict_freq_zx.json)
    "user_dict_freq_scale": 2.0,
    "granularity": "fine",
    "scorer": {"@scorers": "spacy_gdcws.segmentation_scorer.v1"},
}


@Language.factory(
    "gdcws_segmenter",
    default_config=DEFAULT_CONFIG,
    default_score_weights={"token_f": 1.0, "token_p": 0.0, "token_r": 0.0, "token_oov_r": 0.0, "token_iv_r": 0.0},
    retokenizes=True,
)
def make_segmenter(
    nlp: Language,
    name: str,
    model: Model[List[Doc], List[Floats2d]],
    threshold: float,
    scorer: Optional[Callable],
    transition_weight: float,
    tag_prior_weight: float,
    bigram_prior_weight: float,
    loss: str,
    held_out_priors: bool,
    pseudo_words: float,
    pseudo_chars: float,
    atomic_units: bool,
    user_dict_bonus: float,
    granularity: str,
    user_dict_freq_scale: float,
) -> GDSegmenter:
    """Create a Chinese word segmenter that merges character tokens into words.

    model (Model[List[Doc], List[Floats2d]]): Scores per character doc: gap
        logits (`spacy_gdcws.GapScorer.v1`) or BMES CRF potentials
        (`spacy_gdcws.CRFTagger.v1`).
    threshold (float): With gap logits, a gap is a word boundary if
        sigmoid(score) > threshold.
    scorer (Optional[Callable]): Scoring function (token P/R/F, OOV and IV recall).
    transition_weight (float): 0 = greedy decoding (each gap on its own);
        > 0 = Viterbi decoding with this weight on the gap-label transitions
        of the training data (`spacy_gdcws.decoding.priors`; choose it on dev).
    tag_prior_weight (float): > 0 = Viterbi decoding with this weight on each
        character's word-position tags (B/M/E/S) in the training data: how the
        two gaps around it go together (choose it on dev). Both weights 0 =
        greedy decoding.
    bigram_prior_weight (float): > 0 = add this weight times the log-odds of
        a word boundary between each gap's two characters in the training
        data (refined by the characters on either side where the training
        data has them: `decoding.priors.PairCounts`) to the gap's score, before
        greedy or Viterbi decoding (choose it on dev). Not used in training.
        The three decoding weights apply to gap scorers only (E044 with a CRF tagger).
    loss (str): "bce" = binary cross-entropy of every gap on its own; "crf" =
        the final scorer trained as a linear-chain CRF over the gaps whose
        pairwise scores are the two priors with the weights above (fixed, not
        learned: the model learns its gap scores with the priors in place).
    held_out_priors (bool): with `loss = "crf"` and a model with block
        leave-out (`holdout_folds`): in training, each doc's tag prior is
        counted without the doc's own block of the training data, as the
        dictionary and n-gram features are, so the prior the model learns next
        to is as reliable as on new text (decoding uses all the counts).
    pseudo_words (float): In training, the share of rare two-character
        words replaced by a pseudo-word (`spacy_gdcws.training.augment`: a pair
        of characters new to the model, in a word's place), so that the model
        learns to find unknown two-character words from their characters.
        0 = off.
    pseudo_chars (float): In training, the share of rare single-character
        words replaced by a character that the training words have only
        inside longer words, so that the model learns that such a character
        can stand alone. 0 = off.
    atomic_units (bool): Never split URLs, e-mail addresses, numbers (with
        decimals, thousands separators, percent), Latin words and grapheme
        clusters inside (`spacy_gdcws.decoding.units`); the model decides only
        whether they join their neighbours. Decoding only.
    user_dict_bonus (float): What a "prefer" word of the user dictionary
        (`add_words`) adds to the boundary logits at its edges (and subtracts
        inside it).
    user_dict_freq_scale (float): How much a "prefer" word's frequency (a jieba
        or HanLP file's, or `add_words({word: freq}, "prefer")`) scales that bonus:
        `user_dict_bonus * (1 + scale * log10(freq))`, never below 0; words without
        a frequency get the plain bonus. 0 = frequencies change nothing; the
        default, 2.0, was chosen on dev (docs/user-dictionary.md).
    granularity (str): "fine" = the model's own words (its training data's
        standard: UD's 电视/台); "coarse" = those words merged into the words of
        the general lexicon (the model's, else the shipped jieba words) wherever
        the model's boundaries fall at both edges of one (电视台), after the user
        dictionary's "combine" words and never across a forced boundary. Decoding
        only; `nlp.get_pipe("segmenter").granularity = "coarse"` switches a loaded
        pipeline.
    """
    return GDSegmenter(nlp.vocab, model, name, threshold=threshold, scorer=scorer, loss=loss,
                       held_out_priors=held_out_priors, pseudo_words=pseudo_words, pseudo_chars=pseudo_chars,
                       transition_weight=transition_weight, tag_prior_weight=tag_prior_weight,
                       bigram_prior_weight=bigram_prior_weight, atomic_units=atomic_units,
                       user_dict_bonus=user_dict_bonus, user_dict_freq_scale=user_dict_freq_scale,
                       granularity=granularity)


@Language.factory("gdcws_subwords", default_config={"attr": "subwords", "segmenter": None})
def make_subwords(nlp: Language, name: str, attr: str, segmenter: Optional[str]) -> Callable[[Doc], Doc]:
    """`nlp.add_pipe("gdcws_subwords", after="segmenter")`: `doc._.subwords` (or `attr`),
    the dictionary and lexicon words inside each word, as character offsets (`pipeline.subwords`)."""
    return SubwordFinder(nlp, name, attr, segmenter)
