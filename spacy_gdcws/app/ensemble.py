"""Ensembles of trained segmenters: one pipeline whose segmenter decodes the
average of several pipelines' scores (`spacy_gdcws.GDEnsemble.v1`).

    python -m spacy_gdcws ensemble OUTPUT training/zx.seed0/model-best training/zx.seed1/model-best ...

Each member is trained on its own (`spacy train` with another `--system.seed`);
`build_ensemble` puts their models into one pipeline whose segmenter decodes the
average of the members' logits (greedy or Viterbi, as the segmenter is set:
choose its weights on dev with `tune-decoding`). The ensemble predicts only.
"""
from typing import Any, Dict, Optional, Sequence

from spacy import util
from spacy.language import Language
from thinc.api import Config

from spacy_gdcws.app.tuning import set_decoding
from spacy_gdcws.decoding.user_dict import UserDictionary
from spacy_gdcws.errors import Errors
from spacy_gdcws.ml.state import output_kind
from spacy_gdcws.pipeline.names import find_segmenter


def build_ensemble(pipelines: Sequence[Language], segmenter: Optional[str] = None) -> Language:
    """One pipeline whose segmenter averages the gap logits of the pipelines'
    segmenters. The pipelines must be trained on the same data (the same
    training words, E037; the same general lexicon, E101) and score alike (all
    gap scorers or all CRF taggers, E100); everything else (tokenizer, vocab,
    other components, the segmenter's decoding settings, counts and user
    dictionary) comes from the first one.

    pipelines (Sequence[Language]): Two or more trained pipelines.
    segmenter (Optional[str]): The segmenter's name (default: the first
        `gdcws_segmenter` of the first pipeline).
    RETURNS (Language): The new pipeline.
    """
    if len(pipelines) < 2:
        raise ValueError(Errors.E035.format(n=len(pipelines)))
    name = find_segmenter(pipelines[0], segmenter)
    pipes = [nlp.get_pipe(find_segmenter(nlp, name)) for nlp in pipelines]
    first = output_kind(pipes[0].model)
    for i, pipe in enumerate(pipes[1:], 1):
        if pipe.train_words != pipes[0].train_words:
            raise ValueError(Errors.E037.format(i=i))
        if output_kind(pipe.model) != first:
            raise ValueError(Errors.E100.format(i=i, kind=output_kind(pipe.model), first=first))
        if pipe.general_words != pipes[0].general_words:
            raise ValueError(Errors.E101.format(i=i))
    members: Dict[str, Any] = {}
    for i, nlp in enumerate(pipelines):
        member = nlp.config["components"][name]["model"]
        if member.get("@architectures") == "spacy_gdcws.GDEnsemble.v1":
            raise ValueError(Errors.E038.format(i=i))
        members[f"member{i}"] = member
    config = Config(pipelines[0].config).copy()
    config["components"][name]["model"] = {"@architectures": "spacy_gdcws.GDEnsemble.v1", "*": members}
    nlp = util.load_model_from_config(config, auto_fill=False, validate=True)
    nlp.from_bytes(pipelines[0].to_bytes(exclude=[name]), exclude=[name])
    pipe = nlp.get_pipe(name)
    pipe.cfg.update(pipes[0].cfg)
    pipe.pair_counts = pipes[0].pair_counts
    set_decoding(nlp, pipes[0].transition_weight, pipes[0].tag_prior_weight, name,
                 bigram_prior_weight=pipes[0].bigram_prior_weight)
    for layer, source in zip(pipe.model.layers, pipes):
        layer.from_bytes(source.model.to_bytes())
    pipe.train_words = pipes[0].train_words
    pipe.general_words = pipes[0].general_words
    pipe.user_dict = UserDictionary.from_list(pipes[0].user_dict.to_list())
    return nlp
