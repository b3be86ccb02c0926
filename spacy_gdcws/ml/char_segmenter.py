"""`spacy_gdcws.CharSegmenter.v1`: `embed >> encoder >> scorer` behind one thinc wrapper."""
from typing import Any, List

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from spacy_gdcws.ml.forward import wrap_segmentation_net


@registry.architectures("spacy_gdcws.CharSegmenter.v1")
def build_char_segmenter(
    embed: Any,
    encoder: Any,
    scorer: Any,
    window: int,
    batch_chars: int,
    mixed_precision: bool,
) -> Model[List[Doc], List[Floats2d]]:
    """A segmentation model composed of an embedding, an encoder and a scorer.

    embed: `spacy_gdcws.CharEmbed.v2`.
    encoder: `spacy_gdcws.GDEncoder.v1`, `LocalSelfAttention.v1`, `IDCNN.v1`,
        `BiLSTM.v1`, or any registered function returning such a module.
    scorer: `spacy_gdcws.GapScorer.v1` or `spacy_gdcws.CRFTagger.v1`.
    window (int): Longest span scored at once; longer lines are scored in
        overlapping windows of this size.
    batch_chars (int): Upper bound on rows * padded length of one torch batch.
    mixed_precision (bool): Training on GPU: fp16 autocast with gradient
        scaling (thinc). Prediction: bf16 autocast on the model's device, GPU
        or CPU (about 2x faster on CPUs with AVX512-BF16 / AMX; set it when
        loading, `spacy.load(path, config={"components": {NAME: {"model":
        {"mixed_precision": True}}}})`, or `app.precision.set_precision`).
        Outputs stay float32.
    RETURNS (Model[List[Doc], List[Floats2d]]): One array per doc: gap logits
        (len(doc) - 1 rows; column 0 the scorer, then the encoder's auxiliary
        scorer) or CRF potentials (len(doc) rows, `data.bmes`).
    """
    from spacy_gdcws.nn import SegmentationNet

    net = SegmentationNet(embed, encoder, scorer)
    return wrap_segmentation_net(net, window=window, batch_chars=batch_chars, mixed_precision=mixed_precision)
