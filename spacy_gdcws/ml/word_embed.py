"""Word embeddings for the components after the segmenter: spaCy's `MultiHashEmbed`, plus a
word's first and last characters.

spaCy's lexical attributes cut a word by code points from its ends (`PREFIX` = the first,
`SUFFIX` = the last three), which for a Chinese word of two or three characters is the word
again: the last character alone, which often says a word's class (-性, -化, -者, -们), is in
no attribute. `EdgeCharHashEmbed` hashes the first and the last character of each word into two
tables beside the attributes' and mixes them with the same Maxout layer `MultiHashEmbed` uses.
"""
from typing import Callable, List, Tuple, Union

import numpy
from spacy.strings import get_string_id
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import (
    HashEmbed,
    Maxout,
    Model,
    chain,
    concatenate,
    list2ragged,
    ragged2list,
    with_array,
)
from thinc.types import Floats2d, Ints2d

from spacy_gdcws.errors import Errors


def edge_char_features(attrs: List[Union[str, int]]) -> Model[List[Doc], List[Ints2d]]:
    """Per doc, one row per word: the hashes of `attrs` (as `doc.to_array` gives them), then the
    hashes of the word's first and last characters."""
    return Model("edge_char_features", _features_forward, attrs={"attrs": list(attrs)})


def _features_forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Ints2d], Callable]:
    attrs = model.attrs["attrs"]
    rows = []
    for doc in docs:
        lexical = doc.to_array(attrs).reshape(len(doc), len(attrs)).astype("uint64")
        edges = numpy.array([(get_string_id(t.text[:1]), get_string_id(t.text[-1:])) for t in doc],
                            dtype="uint64").reshape(len(doc), 2)
        rows.append(model.ops.asarray(numpy.hstack([lexical, edges]), dtype="uint64"))
    return rows, lambda d_rows: []


@registry.architectures("spacy_gdcws.EdgeCharHashEmbed.v1")
def build_edge_char_hash_embed(width: int, attrs: List[Union[str, int]], rows: List[int],
                               char_rows: int) -> Model[List[Doc], List[Floats2d]]:
    """`spacy.MultiHashEmbed.v2` without static vectors, with two more tables: the words' first
    and last characters (`char_rows` rows each)."""
    if len(rows) != len(attrs):
        raise ValueError(Errors.E113.format(n_rows=len(rows), n_attrs=len(attrs)))
    tables = list(rows) + [char_rows, char_rows]
    embeddings = [HashEmbed(width, n, column=i, seed=8 + i, dropout=0.0) for i, n in enumerate(tables)]
    return chain(
        edge_char_features(attrs),
        list2ragged(),
        with_array(concatenate(*embeddings)),
        with_array(Maxout(width, width * len(embeddings), nP=3, dropout=0.0, normalize=True)),
        ragged2list(),
    )
