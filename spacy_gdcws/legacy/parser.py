"""`spacy_gdcws.BiaffineParser.v1`: the parser of the pipelines saved before its output sizes were
read off the data (2026-11-27/28), built as `spacy_gdcws.BiaffineParser.v2` is (`ml.parser`), with
the rows the config fixed: the same torch module, weights and predictions. What each setting means:
`ml.parser.build_biaffine_parser`."""
from typing import Any, List, Union

from spacy.util import registry
from thinc.api import Model

from spacy_gdcws.data.features.words import ParseBatch
from spacy_gdcws.ml.parser import ArcStates, parser_model


@registry.architectures("spacy_gdcws.BiaffineParser.v1")
def build_biaffine_parser_v1(feature_rows: List[int], feature_widths: List[int], char_rows: int, char_width: int,
                             word_dropout: float, encoder: str, lstm_width: int, lstm_depth: int, arc_width: int,
                             label_width: int, n_upos: int, n_xpos: int, n_labels: int,
                             dropout: float) -> Model[Union[ParseBatch, ArcStates], Any]:
    """`BiaffineParser.v2` with fixed output rows `n_upos`, `n_xpos` and `n_labels` (at least the
    labels of the training data: E118), reading the text as written (`normalize = ""`)."""
    net_args = dict(feature_rows=list(feature_rows), feature_widths=list(feature_widths), char_rows=char_rows,
                    char_width=char_width, word_dropout=word_dropout, encoder=encoder, lstm_width=lstm_width,
                    lstm_depth=lstm_depth, arc_width=arc_width, label_width=label_width, dropout=dropout)
    return parser_model(net_args, {"n_upos": n_upos, "n_xpos": n_xpos, "n_labels": n_labels}, normalize="")
