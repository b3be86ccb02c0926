"""The parser's scorer (`spacy_gdcws.parser_scorer.v1`): UPOS, XPOS, heads, relations, sentences
and entities, by spaCy's own scorers, as `eval.scorer` holds the segmenter's."""
from typing import Any, Callable, Dict, Iterable

from spacy.pipeline.dep_parser import parser_score
from spacy.scorer import get_ner_prf
from spacy.scorer import Scorer
from spacy.training import Example
from spacy.util import registry

#: CoNLL-U's empty field: a treebank without XPOS (UD Chinese HK, CFL) writes it in every row
MISSING = "_"


def score_parse(examples: Iterable[Example], **kwargs: Any) -> Dict[str, Any]:
    """UPOS (pos_acc), XPOS (tag_acc), UAS/LAS (dep_*, spaCy's: punctuation left out), sentence
    boundaries (sents_*) and entities (ents_p/r/f and per type, exact spans, over the examples whose
    reference has entity annotation: None without), by spaCy's own scorers."""
    examples = list(examples)
    scores = Scorer.score_token_attr(examples, "pos", **kwargs)
    # a treebank without XPOS (UD Chinese HK, CFL) writes "_": not a tag to score
    scores.update(Scorer.score_token_attr(examples, "tag", missing_values={0, None, "", MISSING}, **kwargs))
    scores.update(parser_score(examples, **kwargs))
    annotated = [eg for eg in examples if eg.reference.has_annotation("ENT_IOB")]
    scores.update(get_ner_prf(annotated, **kwargs))
    return scores


@registry.scorers("spacy_gdcws.parser_scorer.v1")
def make_parser_scorer() -> Callable[..., Dict[str, Any]]:
    """The scorer of `gdcws_parser` (`score_parse`)."""
    return score_parse
