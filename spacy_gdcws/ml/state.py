"""What the segmenter asks of its model as a whole: what its arrays hold, whether it reads a
general lexicon, its pretrained vectors; and the two attrs that whole models carry (an
ensemble predicts only; an int8 model predicts only). What the featurize layers read is
`ml.resources`."""
import numpy
from thinc.api import Model

from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.resources import SETTINGS, feature_layers
from spacy_gdcws.ml.shims import torch_shims
from spacy_gdcws.ml.windows import OUTPUT

# set by spacy_gdcws.ml.precision on the model: it is int8 and predicts only
QUANTIZED_ATTR = "quantized"
# set on spacy_gdcws.GDEnsemble.v1 models (spacy_gdcws.ml.ensemble): they predict only
ENSEMBLE_ATTR = "ensemble"


def output_kind(model: Model) -> str:
    """What a segmentation model's arrays hold: "gaps" or "tags" (the first
    node that says; an ensemble's members all say the same)."""
    for node in model.walk():
        if OUTPUT in node.attrs:
            return node.attrs[OUTPUT]
    return "gaps"


def uses_general_lexicon(model: Model) -> bool:
    """Whether a featurize layer of the model reads a general lexicon (`CharEmbed.v2 general_lexicon`)."""
    return any(node.attrs[SETTINGS].get("general_lexicon") for node in feature_layers(model))


def uses_lexicon(model: Model) -> bool:
    """Whether a featurize layer of the model reads the training words (dictionary features)."""
    return any(node.attrs[SETTINGS]["lexicon_max_len"] for node in feature_layers(model))


def set_model_vectors(model: Model, vocab) -> None:
    """Copy `vocab.vectors` into the embedding of every segmentation model (or ensemble member)
    whose featurize layer reads pretrained vectors (E043 if the vocab has none)."""
    for node in model.walk():
        # a segmentation model: its first layer featurizes, its torch module is below
        if not node.layers or not node.layers[0].attrs.get(SETTINGS, {}).get("vectors"):
            continue
        import torch

        net = torch_shims(node)[0].net
        table = vocab.vectors
        if table.mode != "default":
            raise ValueError(Errors.E042.format(mode=table.mode))
        if not table.shape[0]:
            raise ValueError(Errors.E043.format(width=net.embed.vectors_width))
        net.embed.set_vectors(torch.from_numpy(numpy.asarray(table.data, dtype="f")))
