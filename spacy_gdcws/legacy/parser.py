"""The parsers of pipelines saved before the parser changed, built as `spacy_gdcws.BiaffineParser.v3` is
(`ml.parser`): the same torch module, weights and predictions. What each setting means:
`ml.parser.build_biaffine_parser`.

- `spacy_gdcws.BiaffineParser.v1`: saved before its output sizes were read off the data
  (2026-11-27/28): the rows the config fixed, the text as written;
- `spacy_gdcws.BiaffineParser.v2`: saved before the entity tagger (2026-12-01): v3 without it.
"""
from typing import Any, List, Union

from spacy.util import registry
from thinc.api import Model

from spacy_gdcws.data.features.words import ParseBatch
from spacy_gdcws.ml.parser import OUTPUT_DIMS, ArcStates, parser_model


@registry.architectures("spacy_gdcws.BiaffineParser.v1")
def build_biaffine_parser_v1(feature_rows: List[int], feature_widths: List[int], char_rows: int, char_width: int,
                             word_dropout: float, encoder: str, lstm_width: int, lstm_depth: int, arc_width: int,
                             label_width: int, n_upos: int, n_xpos: int, n_labels: int,
                             dropout: float) -> Model[Union[ParseBatch, ArcStates], Any]:
    """`BiaffineParser.v2` with fixed output rows `n_upos`, `n_xpos` and `n_labels` (at least the
    labels of the training data: E118), reading the text as written (`normalize = ""`)."""
    net_args = dict(feature_rows=list(feature_rows), feature_widths=list(feature_widths), char_rows=char_rows,
                    char_width=char_width, word_dropout=word_dropout, encoder=encoder, lstm_width=lstm_width,
                    lstm_depth=lstm_depth, arc_width=arc_width, label_width=label_width, entity_width=0,
                    dropout=dropout)
    return parser_model(net_args, {"n_upos": n_upos, "n_xpos": n_xpos, "n_labels": n_labels, "n_ents": 0},
                        normalize="")


@registry.architectures("spacy_gdcws.BiaffineParser.v2")
def build_biaffine_parser_v2(feature_rows: List[int], feature_widths: List[int], char_rows: int, char_width: int,
                             normalize: str, word_dropout: float, encoder: str, lstm_width: int, lstm_depth: int,
                             arc_width: int, label_width: int, dropout: float) -> Model[Union[ParseBatch, ArcStates], Any]:
    """`BiaffineParser.v3` without the entity tagger: its output sizes read off the data, no entity tags."""
    net_args = dict(feature_rows=list(feature_rows), feature_widths=list(feature_widths), char_rows=char_rows,
                    char_width=char_width, word_dropout=word_dropout, encoder=encoder, lstm_width=lstm_width,
                    lstm_depth=lstm_depth, arc_width=arc_width, label_width=label_width, entity_width=0,
                    dropout=dropout)
    sizes = {name: None for name in OUTPUT_DIMS}
    sizes["n_ents"] = 0
    return parser_model(net_args, sizes, normalize)
