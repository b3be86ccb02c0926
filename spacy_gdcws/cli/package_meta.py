"""`package-meta`: the meta.json of a packaged pipeline (licence, sources, accuracy, model card)."""
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import typer
from wasabi import msg

from spacy_gdcws.about import __version__
from spacy_gdcws.cli._app import app
from spacy_gdcws.errors import Errors
from spacy_gdcws.io import atomic_write_text, check_outputs

# the licence and sources of each corpus a packaged model may be trained on
# each with its own licence (`license`); the URL of each public repository
_GSD_TRAIN = {
    "name": "UD Chinese GSD (simplified) training set (words, UPOS, dependencies; UD v1 labels relabelled to "
            "UD v2), from a release before UD v2.5 (hankcs/multi-criteria-cws @ 24be488, data/other/udc/train.conll)",
    "url": "https://github.com/hankcs/multi-criteria-cws",
    "author": "Universal Dependencies contributors; data derived from the Google Universal Dependency Treebank; "
              "simplified conversion by hankcs. Distributed under CC BY-NC-SA 4.0 with that release "
              "(UD_Chinese-GSD's README records that Google dropped the NC restriction in v2.5, 2019-11-15; "
              "this copy predates it and is used under the terms it came with)",
    "license": "CC BY-NC-SA 4.0",
}
_UD = "Universal Dependencies contributors"
_GSDSIMP_TEST = {"name": "UD_Chinese-GSDSimp test (evaluation only)",
                 "url": "https://github.com/UniversalDependencies/UD_Chinese-GSDSimp", "author": _UD,
                 "license": "CC BY-SA 4.0"}
_UD_MORE = [
    {"name": "UD_Chinese-HK (traditional; film subtitles, Legislative Council speech): words, UPOS, dependencies",
     "url": "https://github.com/UniversalDependencies/UD_Chinese-HK", "author": _UD, "license": "CC BY-SA 4.0"},
    {"name": "UD_Chinese-CFL (simplified; learner essays): words, UPOS, dependencies",
     "url": "https://github.com/UniversalDependencies/UD_Chinese-CFL", "author": _UD, "license": "CC BY-SA 4.0"},
    {"name": "UD_Chinese-PUD (traditional; news and Wikipedia): words, UPOS, dependencies",
     "url": "https://github.com/UniversalDependencies/UD_Chinese-PUD", "author": _UD, "license": "CC BY-SA 3.0"},
]
_GSDSIMP_DEV = {"name": "UD_Chinese-GSDSimp dev (training data: words, UPOS, dependencies)",
                "url": "https://github.com/UniversalDependencies/UD_Chinese-GSDSimp", "author": _UD,
                "license": "CC BY-SA 4.0"}
_UNER = "Universal NER contributors (Mayhew et al., NAACL 2024)"
_UNER_GSDSIMP = {"name": "Universal NER v1, UD Chinese GSDSimp train and dev: PER, LOC and ORG (the entity tagger's "
                         "training data; train's entities brought to GSD train's words)",
                 "url": "https://github.com/UniversalNER/UNER_Chinese-GSDSIMP", "author": _UNER, "license": "CC BY-SA 4.0"}
_UNER_BY_SA = {"name": "Universal NER v1, UD Chinese GSDSimp train and dev: words (the segmenter's) and PER, LOC and "
                       "ORG (the entity tagger's training data)",
               "url": "https://github.com/UniversalNER/UNER_Chinese-GSDSIMP", "author": _UNER, "license": "CC BY-SA 4.0"}
_UNER_TEST = [{"name": "Universal NER v1, UD Chinese GSDSimp test (evaluation only)",
               "url": "https://github.com/UniversalNER/UNER_Chinese-GSDSIMP", "author": _UNER, "license": "CC BY-SA 4.0"},
              {"name": "Universal NER v1, UD Chinese GSD test, traditional (evaluation only)",
               "url": "https://github.com/UniversalNER/UNER_Chinese-GSD", "author": _UNER, "license": "CC BY-SA 4.0"}]
# what a model trained on GSD's words and the CC BY-SA treebanks can say of itself: both
# licences' ShareAlike terms bind an adaptation, and no one licence meets both
_MIXED_TERMS = ("Its training data come under two licences: CC BY-NC-SA 4.0 (UD Chinese GSD train) and "
                "CC BY-SA (4.0: UD_Chinese-GSDSimp dev, HK, CFL, Universal NER; 3.0: PUD). If the model is an adaptation of that data, "
                "each licence's ShareAlike term asks that it be shared under that licence, and no licence "
                "meets both (one forbids commercial use, the other forbids adding that restriction): this "
                "model carries no licence that satisfies every source. For commercial use, or to share a "
                "model under one open licence, train the CC BY-SA 4.0 variant (`spacy project run all . "
                "--vars.corpus ud_by_sa`).")
CORPUS_TERMS: Dict[str, Dict[str, Any]] = {
    "ud_gsd": {"license": "CC BY-NC-SA 4.0", "sources": [_GSD_TRAIN, _GSDSIMP_TEST]},
    "ud_gsd_more": {"license": "CC BY-NC-SA 4.0 (UD Chinese GSD) + CC BY-SA 4.0 (GSDSimp dev, HK, CFL, Universal "
                               "NER) + CC BY-SA 3.0 (PUD): see the model card",
                    "sources": [_GSD_TRAIN, _GSDSIMP_DEV, *_UD_MORE, _UNER_GSDSIMP, _GSDSIMP_TEST, *_UNER_TEST],
                    "terms": _MIXED_TERMS},
    # CC BY-SA only: BY-SA 3.0 (PUD) lets an adaptation take a later version of the same licence (its 4(b))
    "ud_by_sa": {"license": "CC BY-SA 4.0",
                 "sources": [_GSDSIMP_DEV, *_UD_MORE, _UNER_BY_SA, _GSDSIMP_TEST, *_UNER_TEST],
                 "terms": "Every source is CC BY-SA (PUD's 3.0 allows an adaptation under 4.0): share the model "
                          "and works adapted from it under CC BY-SA 4.0, with attribution to the sources."},
    "ud_gsdsimp_v2": {"license": "CC BY-SA 4.0",
                      "sources": [{"name": "UD_Chinese-GSDSimp train (eb3aed3)",
                                   "url": "https://github.com/UniversalDependencies/UD_Chinese-GSDSimp",
                                   "author": _UD, "license": "CC BY-SA 4.0"},
                                  _GSDSIMP_DEV, *_UD_MORE, _GSDSIMP_TEST],
                      "terms": "Every source is CC BY-SA (PUD's 3.0 allows an adaptation under 4.0): share the model "
                               "and works adapted from it under CC BY-SA 4.0, with attribution to the sources."},
    "ud_gsdsimp": {
        "license": "CC BY-SA 4.0",
        "sources": [{"name": "UD_Chinese-GSDSimp", "url": "https://github.com/UniversalDependencies/UD_Chinese-GSDSimp",
                     "author": _UD, "license": "CC BY-SA 4.0"}],
    },
}
# the general lexicon of configs/general.cfg (spacy_gdcws/lexicons/)
LEXICON_SOURCE = {"name": "jieba 0.42.1 dict.txt: words of 2+ characters with frequency >= 5 (general lexicon features)",
                  "url": "https://github.com/fxsjy/jieba", "author": "Sun Junyi and jieba contributors", "license": "MIT"}
# what the model card shows of the segmentation standard, segmented by the model itself
STANDARD_EXAMPLES = ("我爱北京天安门。", "他在電視台工作，今年30歲。")
RESEARCH_ONLY = {"license": "research use only (the terms of the training corpus)", "sources": []}


def model_card(corpus: str, config: str, official: Dict[str, float], n_train: int,
               examples: Sequence[Tuple[str, List[str]]] = (), normalize: str = "", n_lexicon: int = 0,
               terms: str = "", analysis: Optional[Dict[str, float]] = None, biaffine: bool = False,
               entities: Optional[Dict[str, float]] = None) -> str:
    """The model card section of the package's README; `examples`: texts and the
    model's own words for them (so the card shows what the model does); `analysis`:
    UPOS, UAS and LAS F from raw test text where the pipeline has a tagger and parser; `biaffine`:
    the second stage is `gdcws_parser` (else spaCy's morphologizer and transition parser);
    `entities`: its entity P, R, F on Universal NER's GSDSimp test, from raw text, where it tags entities."""
    shown = "; ".join(f"{text} → {' / '.join(words)}" for text, words in examples)
    rows: List[str] = [
        "### Model card",
        "",
        f"- **What it does**: Chinese word segmentation (`gdcws_segmenter`, config `{config}`), first in the "
        "pipeline on character tokens; `doc.text` is always the input.",
        *([("- **POS and dependencies**: one biaffine tagger and parser (`gdcws_parser`, `configs/ud_biaffine.cfg`: "
            "UPOS, XPOS, heads and relations; sentences end at line breaks and 。！？) trained on the segmenter's own words; "
            if biaffine else "- **POS and dependencies**: a morphologizer (UPOS) and a parser trained on the segmenter's own "
            "words (`configs/ud_pipeline.cfg`); ")
           + f"from raw test text, words aligned on characters: UPOS F {analysis['upos']:.3f}, "
           f"UAS F {analysis['uas']:.3f}, LAS F {analysis['las']:.3f}. "
           "`spacy.load(name, enable=['segmenter'])` gives the words alone at the segmenter's speed."]
          if analysis else []),
        *([f"- **Entities**: PER, LOC and ORG (Universal NER's) as `doc.ents`, from an IOB2 tagger on the parser's encoder, "
           f"within sentences and never across whitespace; on Universal NER's GSDSimp test from raw text (character "
           f"spans): P {entities['p']:.3f}, R {entities['r']:.3f}, F {entities['f']:.3f}."] if entities else []),
        f"- **Training data**: corpus `{corpus}` ({n_train} training sentences; dev = last 10% of the training file).",
        f"- **Evaluation**: official SIGHAN scorer on the gold test file, training vocabulary as dictionary: "
        f"P {official['precision']:.3f}, R {official['recall']:.3f}, F {official['f']:.3f}, "
        f"OOV recall {official['oov_recall']:.3f}, IV recall {official['iv_recall']:.3f}.",
        "- **Segmentation standard**: that of the training corpus (for UD: suffixes apart, 电视 / 台), "
        "numbers, URLs and Latin words as units" + (f"; this model: {shown}" if shown else "") + ".",
        *([f"- **Characters**: the model reads them normalized (`{normalize}`: OpenCC character conversion and "
           "full-width to ASCII punctuation), so simplified and traditional text are segmented alike; "
           "the words keep the input's characters."] if normalize else []),
        *([f"- **General lexicon**: {n_lexicon:,} words of jieba's dict.txt (MIT) feed a second block of "
           "dictionary features (training and inference); the user dictionary is separate."] if n_lexicon else []),
        "- **Limitations**: a neural model, slower than dictionary segmenters on CPU; unknown words of other "
        "domains are its main source of errors (add them with the user dictionary, `add_words`).",
        "- **Licence**: " + (terms or "that of the training data (see the table above).") + " The code is MIT.",
    ]
    return "\n".join(rows)


def project_commit() -> Optional[str]:
    """The commit of the spacy-gdcws checkout this runs from (`git rev-parse HEAD` beside the package,
    with `+dirty` where the work tree has changes), or None outside a git checkout."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        if head.returncode != 0 or not (root / ".git").exists():
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+dirty" if dirty else "")


def parse_vars(text: Optional[str]) -> Dict[str, str]:
    """`KEY=VALUE KEY=VALUE` as a dict (E147 for an item without `=`)."""
    out: Dict[str, str] = {}
    for item in (text or "").split():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(Errors.E147.format(item=item))
        out[key] = value
    return out


def entity_scores(path: Path) -> Dict[str, float]:
    """Entity P, R and F from raw text in an `evaluate-ner` report of an IOB2 file (E110 if it has none)."""
    import srsly

    if not path.exists():
        raise ValueError(Errors.E110.format(path=path))
    report = srsly.read_json(path)
    try:
        return {key: round(float(report["raw_text"]["overall"][key]), 4) for key in ("p", "r", "f")}
    except (KeyError, TypeError, ValueError):
        raise ValueError(Errors.E110.format(path=path)) from None


def pipeline_scores(path: Path) -> Dict[str, float]:
    """UPOS, UAS and LAS F from raw text in an `evaluate-ud` report (E110 if it has none)."""
    import srsly

    if not path.exists():
        raise ValueError(Errors.E110.format(path=path))
    report = srsly.read_json(path)
    predicted = report.get("predicted_segmentation") if isinstance(report, dict) else None
    try:
        return {key: round(float(predicted[key]["f"]), 4) for key in ("upos", "uas", "las")}
    except (KeyError, TypeError, ValueError):
        raise ValueError(Errors.E110.format(path=path)) from None


@app.command("package-meta", hidden=True)
def package_meta_cli(
    metrics: Path = typer.Argument(..., exists=True, help="Metrics JSON written by `evaluate`"),
    output: Path = typer.Argument(..., help="meta.json to write (for `spacy package --meta-path`)"),
    corpus: str = typer.Option(..., "--corpus", help="The corpus the model was trained on"),
    config: str = typer.Option(..., "--config", help="The training config's name"),
    train: Path = typer.Option(..., "--train", exists=True, help="The training DocBin (to count its sentences)"),
    name: str = typer.Option("gdcws", "--name"),
    version: str = typer.Option(__version__, "--version", help="The model package's version (default: spacy-gdcws's)"),
    model: Optional[Path] = typer.Option(None, "--model", exists=True, file_okay=False,
                                         help="The pipeline to package: the card shows its words for a few texts"),
    pipeline_metrics: Optional[Path] = typer.Option(
        None, "--pipeline-metrics",
        help="Metrics JSON written by `evaluate-ud`: read where --model has a tagger and parser"),
    entity_metrics: Optional[Path] = typer.Option(
        None, "--entity-metrics",
        help="Metrics JSON written by `evaluate-ner` on an IOB2 file: read where --model tags entities"),
    training_vars: Optional[str] = typer.Option(
        None, "--training-vars", help="The training command's variables, KEY=VALUE separated by spaces (recorded)"),
) -> None:
    """Write the licence, sources, accuracy (official scorer) and a model card for
    `spacy package`: the packaged model's meta.json and README carry them."""
    import srsly

    from spacy_gdcws.readers.corpora import get_corpus

    check_outputs({"OUTPUT": output}, {"METRICS": metrics, "--train": train})
    from spacy.tokens import DocBin

    get_corpus(corpus)  # E017 for an unknown corpus
    result = srsly.read_json(metrics)
    # the Python port's figures: the official script's, to more than its three printed digits
    official = {key: round(float(value), 4) for key, value in (result.get("python") or result["official"]).items()}
    terms = CORPUS_TERMS.get(corpus, RESEARCH_ONLY)
    examples: List[Tuple[str, List[str]]] = []
    normalize, n_lexicon = "", 0
    analysis: Optional[Dict[str, float]] = None
    entities: Optional[Dict[str, float]] = None
    biaffine = False
    if model is not None:
        import spacy

        from spacy_gdcws.ml.state import uses_general_lexicon
        from spacy_gdcws.pipeline.names import segmenter_names

        nlp = spacy.load(model)
        examples = [(text, [t.text for t in nlp(text) if not t.is_space]) for text in STANDARD_EXAMPLES]
        for name in segmenter_names(nlp)[:1]:
            segmenter = nlp.get_pipe(name)
            normalize = segmenter.decoder.normalizer.spec
            n_lexicon = len(segmenter.general_words) if uses_general_lexicon(segmenter.model) else 0
        if "parser" in nlp.pipe_names and pipeline_metrics is not None:
            analysis = pipeline_scores(pipeline_metrics)
            biaffine = type(nlp.get_pipe("parser")).__name__ == "BiaffineParser"
            if biaffine and nlp.get_pipe("parser").entity_types and entity_metrics is not None:
                entities = entity_scores(entity_metrics)
    meta = {
        "name": name,
        "version": version,
        "description": "Chinese word segmentation for spaCy (spacy-gdcws).",
        # which build this is: the project's release and commit, and how it was trained
        "spacy_gdcws_version": __version__,
        "spacy_gdcws_commit": project_commit(),
        "training_vars": parse_vars(training_vars),
        "license": terms["license"],
        "sources": terms["sources"] + ([LEXICON_SOURCE] if n_lexicon or biaffine else []),
        "performance": {
            "token_p": official["precision"], "token_r": official["recall"], "token_f": official["f"],
            "token_oov_r": official["oov_recall"], "token_iv_r": official["iv_recall"],
            # spaCy's names; from raw text (words aligned on characters), not from gold words
            **({"pos_acc": analysis["upos"], "dep_uas": analysis["uas"], "dep_las": analysis["las"]} if analysis else {}),
            **({"ents_p": entities["p"], "ents_r": entities["r"], "ents_f": entities["f"]} if entities else {}),
        },
        "notes": model_card(corpus, config, official, len(DocBin().from_disk(train)), examples, normalize, n_lexicon,
                            terms.get("terms", ""), analysis, biaffine, entities),
    }
    atomic_write_text(output, json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    msg.good(f"{output}: licence {meta['license']}, F {official['f']}")
