"""Helpers of the tests: paths, corpora, small model configs, pipelines trained in a few
steps, the command line in a subprocess."""
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
import spacy
from spacy.language import Language
from spacy.training import Example

from spacy_gdcws.readers import sentence_to_doc

ROOT = Path(__file__).resolve().parent.parent


def project_metadata() -> dict:
    """pyproject.toml, read."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)
CORPORA = ROOT.parent / "shared" / "corpora"
FIXTURES = ROOT / "tests" / "fixtures"
# a tiny GDTransformer.v2 pipeline saved before the model was composed (tests/legacy)
LEGACY_FIXTURE = FIXTURES / "legacy_gd_v2"
# the SXU gold test file, where the shared corpora are beside the repository
SXU_TEST = CORPORA / "sxu" / "test.txt"
# invented text in Resume NER's format (the corpus is research-use data), and its words
NER_SAMPLE = FIXTURES / "ner_invented_bmes.txt"
NER_SAMPLE_WORDS = FIXTURES / "ner_invented_words.txt"
# texts of every odd shape: empty, whitespace only, line breaks, astral characters, combining marks, emoji
ODD_TEXTS = ["", " ", "  ", "\n", "北京 \n\n 大学", "a  b\tc\u3000d", "今天\r\n天气", "𠀀𠀁字", "e\u0301x", "😀👍🏽北京"]

# where each setting of the small test model lives in the composed config
_EMBED = ("char_rows", "char_seeds", "bigrams", "bigram_rows", "bigram_width", "lexicon_max_len", "lexicon_dropout",
          "lexicon_holdout", "ngram_vocab", "ngram_holdout", "ngram_dropout", "holdout_folds", "positions",
          "vectors_width", "normalize", "general_lexicon")
_TOP = ("window", "batch_chars", "mixed_precision")
_SMALL = {
    "width": 64, "depth": 2, "n_heads": 4, "d_ff": 128, "dropout": 0.0, "attention_dropout": None, "sigma": 2.0,
    "gaussian": True, "gaussian_mode": "multiply", "directional": True, "forward_encoder": True,
    "centre_encoder": True, "backward_encoder": True, "hired": True, "highway_in": True, "highway_out": True,
    "fusion": "sum", "layer_norm": "pre", "biaffine_width": 64,
    "char_rows": 5000, "char_seeds": 2, "bigrams": True, "bigram_rows": 20000, "bigram_width": 32,
    "lexicon_max_len": 0, "lexicon_dropout": 0.0, "lexicon_holdout": False, "ngram_vocab": False,
    "ngram_holdout": False, "ngram_dropout": 0.0, "holdout_folds": 0, "positions": True, "vectors_width": 0,
    "normalize": "", "general_lexicon": False,
    "window": 64, "batch_chars": 16384, "mixed_precision": False,
}


def small_model(**settings) -> dict:
    """A small GD-Transformer (`CharSegmenter.v1` of `CharEmbed.v2`, `GDEncoder.v1` and
    `GapScorer.v1`), fast to train in tests, every part of the architecture on; `settings`
    by their name in any of the three blocks (`dropout` also sets the embedding's, unless
    `embedding_dropout` is given, as `GDTransformer.v1` did)."""
    values = {**_SMALL, **settings}
    embedding_dropout = values.pop("embedding_dropout", values["dropout"])
    embed = {"@architectures": "spacy_gdcws.CharEmbed.v2", "width": values["width"], "dropout": embedding_dropout,
             **{k: values[k] for k in _EMBED}}
    encoder = {"@architectures": "spacy_gdcws.GDEncoder.v1",
               **{k: v for k, v in values.items() if k not in _EMBED and k not in _TOP}}
    scorer = {"@architectures": "spacy_gdcws.GapScorer.v1", "width": values["width"],
              "hidden": values["biaffine_width"]}
    return {"@architectures": "spacy_gdcws.CharSegmenter.v1", **{k: values[k] for k in _TOP},
            "embed": embed, "encoder": encoder, "scorer": scorer}


SMALL_MODEL = small_model()


def corpus_path(relative: str) -> Path:
    path = CORPORA / relative
    if not path.exists():
        pytest.skip(f"corpus file {path} not available")
    return path


def make_examples(nlp: Language, sentences) -> List[Example]:
    out = []
    for sent in sentences:
        ref = sentence_to_doc(nlp.vocab, sent)
        out.append(Example(nlp.make_doc(ref.text), ref))
    return out


def train_pipeline(sentences, n_iter: int = 80, model=None) -> Language:
    """A blank zh pipeline with a segmenter trained on `sentences`."""
    from thinc.api import Adam, fix_random_seed

    fix_random_seed(0)
    nlp = spacy.blank("zh")
    # no atomic units: these tests compare with SXU's gold words, whose text lost its spaces
    # ("１１ １５：０６" became "１１１５：０６", one number to the rule); tests/test_units.py covers them
    nlp.add_pipe("gdcws_segmenter", config={"model": model or SMALL_MODEL, "atomic_units": False})
    examples = make_examples(nlp, sentences)
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.003)
    for _ in range(n_iter):
        nlp.update(examples, sgd=optimizer)
    return nlp


def char_blank() -> Language:
    """A blank zh pipeline with the character tokenizer."""
    return spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})


def train_model(model, sentences, steps: int, learn_rate: float, nlp: Language = None, **component):
    """A segmenter with `model` (a config dict) trained on gold `sentences` for `steps`
    updates from a fixed seed. RETURNS (nlp, the loss of every step)."""
    from spacy.tokens import Doc
    from thinc.api import Adam, fix_random_seed

    fix_random_seed(0)
    nlp = nlp or char_blank()
    nlp.add_pipe("gdcws_segmenter", config={"model": model, **component})
    examples = []
    for sent in sentences:
        ref = Doc(nlp.vocab, words=sent.words, spaces=[False] * len(sent.words))
        examples.append(Example(nlp.make_doc(ref.text), ref))
    nlp.initialize(lambda: examples)
    optimizer = Adam(learn_rate)
    losses = []
    for _ in range(steps):
        step = {}
        nlp.update(examples, sgd=optimizer, losses=step)
        losses.append(step["gdcws_segmenter"])
    return nlp, losses


# what the registered builders defaulted to before configs became the only source of values:
# the values tests leave out of the blocks whose architecture the factory's default model has
# not (for those it has, spaCy fills the block from the factory's config: `plain_embed`)
BLOCK_DEFAULTS = {
    "spacy_gdcws.GDEncoder.v1": {
        "depth": 6, "n_heads": 4, "d_ff": 1024, "dropout": 0.1, "attention_dropout": None, "sigma": 2.0,
        "gaussian": True, "gaussian_mode": "multiply", "directional": True, "forward_encoder": True,
        "centre_encoder": True, "backward_encoder": True, "hired": True, "highway_in": True, "highway_out": True,
        "fusion": "sum", "layer_norm": "post", "biaffine_width": 256},
    "spacy_gdcws.LocalSelfAttention.v1": {"depth": 2, "n_heads": 2, "d_ff": 200, "radius": 5, "dropout": 0.1},
    "spacy_gdcws.BiLSTM.v1": {"depth": 1, "dropout": 0.1},
    "spacy_gdcws.GapScorer.v1": {"hidden": 128},
    "spacy_gdcws.HFTransformer.v1": {"window": 128, "stride": 96, "grad_factor": 1.0,
                                     "tokenizer_config": {"use_fast": True}, "transformer_config": {},
                                     "mixed_precision": False, "grad_scaler_config": {}},
    "spacy_gdcws.TransformerSegmenter.v1": {"hidden_width": 768, "width": 256, "dropout": 0.1,
                                            "mixed_precision": False},
}
PLAIN_EMBED = {"char_rows": 20000, "char_seeds": 2, "bigrams": True, "bigram_rows": 100000, "bigram_width": 64,
               "lexicon_max_len": 0, "lexicon_dropout": 0.0, "lexicon_holdout": False, "ngram_vocab": False,
               "ngram_holdout": False, "ngram_dropout": 0.0, "holdout_folds": 0, "positions": False, "dropout": 0.0,
               "vectors_width": 0, "normalize": "", "general_lexicon": False}


def block(arch: str, **settings) -> dict:
    """A registered block (`arch` without the `spacy_gdcws.` prefix) with `BLOCK_DEFAULTS`
    for the settings not given."""
    full = f"spacy_gdcws.{arch}"
    return {"@architectures": full, **BLOCK_DEFAULTS.get(full, {}), **settings}


def plain_embed(**settings) -> dict:
    """A `spacy_gdcws.CharEmbed.v2` block with every feature off for each setting not
    given: the factory's default model (`pipeline.factory`) would otherwise fill them
    with its own values."""
    return {"@architectures": "spacy_gdcws.CharEmbed.v2", **PLAIN_EMBED, **settings}


def cli(*args, stdin=None) -> str:
    """`python -m spacy_gdcws ARGS` in a subprocess: its stdout (it must succeed)."""
    out = subprocess.run(
        [sys.executable, "-m", "spacy_gdcws", *map(str, args)], capture_output=True, input=stdin,
    )
    assert out.returncode == 0, out.stderr.decode("utf8", errors="replace")
    return out.stdout.decode("utf8")


def run_cli(*args, **kwargs) -> subprocess.CompletedProcess:
    """`python -m spacy_gdcws ARGS` in a subprocess, text mode, whatever its exit status."""
    return subprocess.run([sys.executable, "-m", "spacy_gdcws", *map(str, args)], capture_output=True, text=True,
                          **kwargs)


# encoders and scorers of the composed model, small (tests of every combination)
ENCODERS = {
    "gd": block("GDEncoder.v1", depth=2, n_heads=2, d_ff=64, dropout=0.0, layer_norm="pre", biaffine_width=16),
    "san": block("LocalSelfAttention.v1", depth=2, n_heads=2, d_ff=64, dropout=0.0),
    "idcnn": {"@architectures": "spacy_gdcws.IDCNN.v1", "dropout": 0.0},
    "bilstm": block("BiLSTM.v1", dropout=0.0),
}
SCORERS = {"gap": block("GapScorer.v1", hidden=16),
           "crf": {"@architectures": "spacy_gdcws.CRFTagger.v1"}}


def model_config(encoder: str, scorer: str, width: int = 32, **embed):
    return {
        "@architectures": "spacy_gdcws.CharSegmenter.v1",
        "embed": plain_embed(width=width, char_rows=1000,
                  bigram_rows=2000, bigram_width=16, lexicon_max_len=4, ngram_vocab=True,
                  positions=encoder in ("gd", "san"), **embed),
        "encoder": {**ENCODERS[encoder], "width": width},
        "scorer": {**SCORERS[scorer], "width": width},
        "window": 24,
    }


def ner_sample_docs(vocab) -> list:
    """The docs of `NER_SAMPLE` (characters, entities on character offsets)."""
    from spacy_gdcws.readers.char_bmes import read_char_bmes, sentence_to_ner_doc

    return [sentence_to_ner_doc(vocab, s) for s in read_char_bmes(NER_SAMPLE)]
