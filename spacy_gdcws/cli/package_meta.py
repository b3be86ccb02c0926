"""`package-meta`: the meta.json of a packaged segmenter (licence, sources, accuracy, model card)."""
import json
from pathlib import Path
from typing import Any, Dict, List

import srsly
import typer
from wasabi import msg

from spacy_gdcws.cli._app import app
from spacy_gdcws.io import atomic_write_text, check_outputs
from spacy_gdcws.readers.corpora import get_corpus

# the licence and sources of each corpus a packaged model may be trained on
CORPUS_TERMS: Dict[str, Dict[str, Any]] = {
    "ud_gsd": {
        "license": "CC BY-NC-SA 4.0",
        "sources": [
            {"name": "UD Chinese GSD (simplified), training words", "url": "https://github.com/hankcs/multi-criteria-cws",
             "author": "Universal Dependencies contributors; conversion by hankcs (CC BY-NC-SA 4.0)"},
            {"name": "UD_Chinese-GSDSimp test (evaluation only)", "url": "https://github.com/UniversalDependencies/UD_Chinese-GSDSimp",
             "author": "Universal Dependencies contributors (CC BY-SA 4.0)"},
        ],
    },
    "ud_gsdsimp": {
        "license": "CC BY-SA 4.0",
        "sources": [{"name": "UD_Chinese-GSDSimp", "url": "https://github.com/UniversalDependencies/UD_Chinese-GSDSimp",
                     "author": "Universal Dependencies contributors (CC BY-SA 4.0)"}],
    },
}
RESEARCH_ONLY = {"license": "research use only (the terms of the training corpus)", "sources": []}


def model_card(corpus: str, config: str, official: Dict[str, float], n_train: int) -> str:
    """The model card section of the package's README."""
    rows: List[str] = [
        "### Model card",
        "",
        f"- **What it does**: Chinese word segmentation (`gdcws_segmenter`, config `{config}`), first in the "
        "pipeline on character tokens; `doc.text` is always the input.",
        f"- **Training data**: corpus `{corpus}` ({n_train} training sentences; dev = last 10% of the training file).",
        f"- **Evaluation**: official SIGHAN scorer on the gold test file, training vocabulary as dictionary: "
        f"P {official['precision']:.3f}, R {official['recall']:.3f}, F {official['f']:.3f}, "
        f"OOV recall {official['oov_recall']:.3f}, IV recall {official['iv_recall']:.3f}.",
        "- **Segmentation standard**: that of the training corpus (UD GSD words: e.g. 北京 / 天安门, "
        "numbers and Latin words as units); text from other domains or standards will be segmented by it.",
        "- **Limitations**: a neural model, slower than dictionary segmenters on CPU; unknown words of other "
        "domains are its main source of errors (add them with the user dictionary, `add_words`).",
        "- **Licence**: that of the training data (see the table above); the code is MIT.",
    ]
    return "\n".join(rows)


@app.command("package-meta", hidden=True)
def package_meta_cli(
    metrics: Path = typer.Argument(..., exists=True, help="Metrics JSON written by `evaluate`"),
    output: Path = typer.Argument(..., help="meta.json to write (for `spacy package --meta-path`)"),
    corpus: str = typer.Option(..., "--corpus", help="The corpus the model was trained on"),
    config: str = typer.Option(..., "--config", help="The training config's name"),
    train: Path = typer.Option(..., "--train", exists=True, help="The training DocBin (to count its sentences)"),
    name: str = typer.Option("gdcws", "--name"),
    version: str = typer.Option("0.1.0", "--version"),
) -> None:
    """Write the licence, sources, accuracy (official scorer) and a model card for
    `spacy package`: the packaged model's meta.json and README carry them."""
    check_outputs({"OUTPUT": output}, {"METRICS": metrics, "--train": train})
    from spacy.tokens import DocBin

    get_corpus(corpus)  # E017 for an unknown corpus
    result = srsly.read_json(metrics)
    # the Python port's figures: the official script's, to more than its three printed digits
    official = {key: round(float(value), 4) for key, value in (result.get("python") or result["official"]).items()}
    terms = CORPUS_TERMS.get(corpus, RESEARCH_ONLY)
    meta = {
        "name": name,
        "version": version,
        "description": "Chinese word segmentation for spaCy (spacy-gdcws).",
        "license": terms["license"],
        "sources": terms["sources"],
        "performance": {
            "token_p": official["precision"], "token_r": official["recall"], "token_f": official["f"],
            "token_oov_r": official["oov_recall"], "token_iv_r": official["iv_recall"],
        },
        "notes": model_card(corpus, config, official, len(DocBin().from_disk(train))),
    }
    atomic_write_text(output, json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    msg.good(f"{output}: licence {meta['license']}, F {official['f']}")
