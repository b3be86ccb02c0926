"""The `gdcws_parser` factory and its default config (the main job's: `configs/ud_biaffine.cfg`):
the one home of the parser's values (its builders and its torch module have no defaults)."""
from typing import Callable, List, Optional

from spacy.language import Language
from thinc.api import Config, Model

from spacy_gdcws.data.sentences import SENTENCE_FINAL
from spacy_gdcws.glossary import register
from spacy_gdcws.parse.component import BiaffineParser

# spacy.explain knows the tags and relations the parser writes (`spacy_gdcws.glossary`)
register()

DEFAULT_MODEL_CONFIG = """
[model]
@architectures = "spacy_gdcws.BiaffineParser.v3"
feature_rows = [20000, 5000, 5000, 64, 12, 24, 8]
feature_widths = [100, 50, 50, 25, 10, 10, 16]
char_rows = 5000
char_width = 50
normalize = "t2s+width"
word_dropout = 0.25
encoder = "lstm"
lstm_width = 200
lstm_depth = 2
arc_width = 256
label_width = 48
entity_width = 128
dropout = 0.2
"""
DEFAULT_MODEL = Config().from_str(DEFAULT_MODEL_CONFIG)["model"]


@Language.factory(
    "gdcws_parser",
    assigns=["token.pos", "token.tag", "token.head", "token.dep", "token.is_sent_start", "doc.sents", "doc.ents",
             "token.ent_iob", "token.ent_type"],
    default_config={"model": DEFAULT_MODEL, "split_at": sorted(SENTENCE_FINAL), "projective": True,
                    "scorer": {"@scorers": "spacy_gdcws.parser_scorer.v1"}},
    default_score_weights={"pos_acc": 0.32, "tag_acc": 0.08, "dep_uas": 0.0, "dep_las": 0.4, "ents_f": 0.2,
                           "sents_f": 0.0, "dep_las_per_type": None, "sents_p": None, "sents_r": None,
                           "ents_p": None, "ents_r": None, "ents_per_type": None},
)
def make_parser(nlp: Language, name: str, model: Model, split_at: List[str], projective: bool,
                scorer: Optional[Callable]) -> BiaffineParser:
    """UPOS, XPOS, heads, relations and entities on the segmenter's words (a biaffine parser and
    tagger, and an IOB2 entity tagger on the same encoder where the training data has entities).

    model (Model): `spacy_gdcws.BiaffineParser.v3`.
    split_at (List[str]): Words that end a sentence (line breaks always do).
    projective (bool): Projective trees (Eisner) or any tree (Chu-Liu-Edmonds).
    scorer (Optional[Callable]): The scorer (`spacy_gdcws.parser_scorer.v1`).
    """
    return BiaffineParser(nlp.vocab, model, name, split_at=split_at, projective=projective, scorer=scorer)
