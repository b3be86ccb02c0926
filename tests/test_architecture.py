"""The package keeps its limits and its map: no module over 400 lines and no class over 300
(they came back over them once when nothing checked), and `docs/architecture.md` names every
module of the package in its subpackage's entry, and no module that is gone."""
import ast
import re
from pathlib import Path
from typing import Dict, List

import pytest

import spacy_gdcws

PACKAGE = Path(spacy_gdcws.__file__).parent
DOC = PACKAGE.parent / "docs" / "architecture.md"
MAX_MODULE_LINES = 400
MAX_CLASS_LINES = 300
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _tree() -> Dict[str, str]:
    """The package tree of docs/architecture.md: each top-level entry (`ml/`, `errors.py`) with
    the text of its lines."""
    text = DOC.read_text(encoding="utf8")
    block = next(b for b in re.findall(r"```\n(.*?)```", text, re.S) if b.startswith("spacy_gdcws/"))
    entries: Dict[str, List[str]] = {}
    current = None
    for line in block.splitlines()[1:]:
        top = re.match(r"^  (\S+)", line)
        if top:
            current = top.group(1).rstrip("/")
            entries[current] = []
        if current is not None:
            entries[current].append(line)
    return {name: "\n".join(lines) for name, lines in entries.items()}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_over_its_limit_and_no_class_over_its(path):
    source = path.read_text(encoding="utf8")
    assert source.count("\n") <= MAX_MODULE_LINES
    classes = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef)]
    assert [(c.name, c.end_lineno - c.lineno + 1) for c in classes if c.end_lineno - c.lineno + 1 > MAX_CLASS_LINES] == []


def test_the_architecture_page_names_every_module_where_it_lives():
    tree = _tree()
    missing = []
    for path in MODULES:
        rel = path.relative_to(PACKAGE)
        if rel.name in ("__init__.py", "__main__.py"):
            continue
        entry = rel.parts[0] if len(rel.parts) > 1 else rel.name
        if entry not in tree or (len(rel.parts) > 1 and not re.search(rf"\b{re.escape(path.stem)}\b", tree[entry])):
            missing.append(str(rel))
    assert missing == []


def test_the_architecture_page_names_no_module_that_is_gone():
    gone = []
    for entry, text in _tree().items():
        for name in re.findall(r"\b([a-z_0-9]+\.py)\b", text):
            if not (PACKAGE / name).exists() and not any(p.name == name for p in (PACKAGE / entry).rglob("*.py")):
                gone.append(f"{entry}: {name}")
    assert gone == []


def _defaults(func) -> Dict[str, object]:
    import inspect

    return {name: p.default for name, p in inspect.signature(func).parameters.items()
            if p.default is not inspect.Parameter.empty}


def test_no_builder_of_the_parser_has_a_default_its_factory_sets():
    """#67: the parser's values live in one home, the factory's default config: its builders and its
    torch module have no default of their own for a value the config sets."""
    from spacy_gdcws.legacy.parser import build_biaffine_parser_v1
    from spacy_gdcws.ml.parser import build_biaffine_parser
    from spacy_gdcws.nn.word_parser import BiaffineParserNet
    from spacy_gdcws.parse.factory import DEFAULT_MODEL

    keys = set(DEFAULT_MODEL) - {"@architectures"}
    for func in (build_biaffine_parser, build_biaffine_parser_v1, BiaffineParserNet.__init__):
        assert set(_defaults(func)) & keys == set(), func.__qualname__


def test_no_builder_or_module_of_the_segmenter_has_a_default_its_factory_sets():
    """#81: the segmenter's values live in one home too, its factory's default config: neither the
    factory function, nor the registered builders of its default model, nor the torch modules they
    build have a default of their own (they disagreed once: IDCNN iterations 4 against the
    factory's 1, bigram_width 64 against 32). The legacy wing (`nn.config.GDConfig`) keeps its
    defaults."""
    from spacy.util import registry

    from spacy_gdcws.nn import (BiLSTMEncoder, CharEmbedding, CRFTagger, GapScorer, IteratedDilatedCNN,
                                LocalSelfAttentionEncoder, SegmentationNet)
    from spacy_gdcws.nn.trf_head import TransformerHead
    from spacy_gdcws.pipeline.factory import DEFAULT_CONFIG, DEFAULT_MODEL, make_segmenter

    def keys(block):
        return {k for k, v in block.items() if not k.startswith("@") and not isinstance(v, dict)}

    builders = [(make_segmenter, set(DEFAULT_CONFIG))]
    for block in (DEFAULT_MODEL, DEFAULT_MODEL["embed"], DEFAULT_MODEL["encoder"], DEFAULT_MODEL["scorer"]):
        builders.append((registry.architectures.get(block["@architectures"]), keys(block)))
    for func, set_keys in builders:
        assert set(_defaults(func)) & set_keys == set(), func.__qualname__
    for module in (CharEmbedding, IteratedDilatedCNN, BiLSTMEncoder, LocalSelfAttentionEncoder, GapScorer,
                   CRFTagger, TransformerHead, SegmentationNet):
        assert _defaults(module.__init__) == {}, module.__qualname__


def _shipped_block(config: str, *path: str):
    from thinc.api import Config

    block = Config().from_disk(PACKAGE / "configs" / config, interpolate=False)
    for key in path:
        block = block[key]
    return block


def test_the_parser_factory_defaults_are_the_shipped_config():
    """#81: `parse.factory`'s docstring says its default config is configs/ud_biaffine.cfg's."""
    from spacy_gdcws.parse.factory import DEFAULT_MODEL, make_parser
    from spacy.language import Language

    shipped = _shipped_block("ud_biaffine.cfg", "components", "parser")
    assert dict(DEFAULT_MODEL) == dict(shipped["model"])
    defaults = Language.get_factory_meta("gdcws_parser").default_config
    for key in ("split_at", "projective", "scorer"):
        assert defaults[key] == shipped[key], key
    assert make_parser.__name__ == "make_parser"


def test_the_segmenter_factory_defaults_are_the_main_jobs_model():
    """#81: `pipeline.factory`'s default model is configs/general.cfg's (the main job's), less its
    general lexicon, which needs a word list at initialize; of the component's settings, the
    config sets the threshold (the same) and pseudo-words (training only: the main job's
    augmentation; a bare segmenter trains on its data as given)."""
    from spacy_gdcws.pipeline.factory import DEFAULT_CONFIG, DEFAULT_MODEL

    shipped = _shipped_block("general.cfg", "components", "segmenter")
    model = {k: dict(v) if isinstance(v, dict) else v for k, v in shipped["model"].items()}
    assert model["embed"].pop("general_lexicon") is True
    factory = {k: dict(v) if isinstance(v, dict) else v for k, v in DEFAULT_MODEL.items()}
    assert factory["embed"].pop("general_lexicon") is False
    assert factory == model
    settings = {k: v for k, v in shipped.items() if k not in ("model", "factory")}
    differ = {k for k, v in settings.items() if DEFAULT_CONFIG[k] != v}
    assert differ == {"pseudo_words", "pseudo_chars"}


def _model_calls_forbidden(model):
    """Every node of `model` raises when run."""

    def boom(*args, **kwargs):
        raise AssertionError("set_annotations called the model")

    for node in model.walk():
        node._func = boom


def _decoders(pipe, which: str):
    """The decoding calls of a component, as (owner, attribute name): the segmenter's decoder
    (`Decoder.flat_boundaries`), the parser's tree decoder and relation choice."""
    import spacy_gdcws.parse.component as component

    if which == "segmenter":
        return [(pipe.decoder, "flat_boundaries")]
    return [(component, "decode_trees"), (component, "best_relations")]


@pytest.mark.parametrize("which", ["segmenter", "parser"])
def test_predict_decodes_and_set_annotations_only_writes(tagged_model, which, monkeypatch):
    """#67, #81: as docs/architecture.md says for both components, `predict` runs the model and
    decodes (the segmenter's boundaries, the parser's trees and relations); `set_annotations`
    writes what it gave, with no model call and no decoding."""
    import spacy

    nlp = spacy.load(tagged_model)
    texts = ["我爱北京天安门。他说：“今天天气很好。”", "第一行\n第二行 有 空格"]
    expected = [[(t.text, t.pos_, t.dep_, t.head.i) for t in doc] for doc in nlp.pipe(texts)]
    name = next(n for n, p in nlp.pipeline if (type(p).__name__ == "GDSegmenter") == (which == "segmenter"))
    pipe = nlp.get_pipe(name)
    docs = [nlp.make_doc(text) for text in texts]
    if which == "parser":
        with nlp.select_pipes(enable=[n for n, _ in nlp.pipeline if n != name]):
            docs = list(nlp.pipe(texts))
    calls = []
    for owner, attr in _decoders(pipe, which):
        real = getattr(owner, attr)
        monkeypatch.setattr(owner, attr, lambda *a, _real=real, _attr=attr, **k: calls.append(_attr) or _real(*a, **k))
    predicted = pipe.predict(docs)
    assert sorted(set(calls)) == sorted(attr for _, attr in _decoders(pipe, which))
    _model_calls_forbidden(pipe.model)
    for owner, attr in _decoders(pipe, which):
        monkeypatch.setattr(owner, attr, lambda *a, **k: pytest.fail("set_annotations decoded"))
    pipe.set_annotations(docs, predicted)
    if which == "parser":
        assert [[(t.text, t.pos_, t.dep_, t.head.i) for t in doc] for doc in docs] == expected
    else:
        assert [[t.text for t in doc] for doc in docs] == [[a[0] for a in doc] for doc in expected]
