"""`GDTransformerNet`: the GD-Transformer of one `nn.GDConfig` (`CharEmbedding >> GDEncoder >>
GapScorer`), which `spacy_gdcws.GDTransformer.v1` / `.v2` build, with the renames that let weights
saved by the uncomposed net of earlier versions load. New code composes `nn.SegmentationNet`."""
from typing import Any, Dict

from spacy_gdcws.nn.config import GDConfig
from spacy_gdcws.nn.embed import CharEmbedding
from spacy_gdcws.nn.encoder import Pipeline
from spacy_gdcws.nn.gd_encoder import GDEncoder
from spacy_gdcws.nn.heads import GapScorer
from spacy_gdcws.nn.model import SegmentationNet

# parameter names of GDTransformerNet before it was composed (pipelines saved
# before 2026-11-25) -> their place in the composed net
_LEGACY_PREFIXES = (
    ("char_embed.", "embed.char_embed."),
    ("bigram_embed.", "embed.bigram_embed."),
    ("bigram_proj.", "embed.bigram_proj."),
    ("lexicon_proj.", "embed.lexicon_proj."),
    ("encoders.", "encoder.encoders."),
    ("fusion.", "encoder.fusion."),
    ("hired_fusion.", "encoder.hired_fusion."),
    ("hired_scorer.", "encoder.hired_scorer."),
    ("hired_proj.", "encoder.hired_proj."),
    ("scorer.", "head.biaffine."),
)


class GDTransformerNet(SegmentationNet):
    """Gaussian-masked Directional Transformer for gap labelling (Duan & Zhao 2020):
    `CharEmbedding >> GDEncoder >> GapScorer`, all from one `GDConfig`.

    forward(chars, bigrams, mask, lexicon=None):
        chars (LongTensor): (B, T, char_seeds) hashed character rows.
        bigrams (Optional[LongTensor]): (B, T + 1, char_seeds) hashed bigram rows;
            entry i is the bigram (c[i-1], c[i]) with boundary symbols at both ends.
        mask (BoolTensor): (B, T), True for real characters.
        lexicon (Optional[Tensor]): (B, T, F) float dictionary features.
        RETURNS (Tensor): gap logits (B, T - 1, n_scores); column 0 is the
            final scorer, column 1 (with HiRED and Highway-O) the HiRED scorer.

    Weights saved by the uncomposed net of earlier versions load unchanged
    (their parameter names are mapped on loading).
    """

    def __init__(self, cfg: GDConfig) -> None:
        embed = CharEmbedding(cfg.width, cfg.char_rows, cfg.bigrams, cfg.bigram_rows, cfg.bigram_width,
                              cfg.n_lexicon_features, cfg.lexicon_dropout, cfg.positions,
                              cfg.embedding_dropout_rate, 0)  # legacy nets had no pretrained vectors
        super().__init__(embed, GDEncoder(cfg), GapScorer(cfg.width, cfg.biaffine_width))
        self.cfg = cfg
        self._register_load_state_dict_pre_hook(_rename_legacy_keys)

    @property
    def pipelines(self) -> Dict[str, Pipeline]:
        """The enabled pipelines by direction name."""
        return self.encoder.pipelines


def _rename_legacy_keys(state_dict: Dict[str, Any], prefix: str, *args: Any) -> None:
    for key in list(state_dict):
        rest = key[len(prefix):]
        for old, new in _LEGACY_PREFIXES:
            if rest.startswith(old):
                state_dict[prefix + new + rest[len(old):]] = state_dict.pop(key)
                break
