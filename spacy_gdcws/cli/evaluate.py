"""`evaluate`: segment a gold test file, score it officially, write metrics JSON."""
import json
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app, use_gpu
from spacy_gdcws.io import atomic_write_text, check_outputs


@app.command("evaluate")
def evaluate_cli(
    model: str = typer.Argument(..., help="Pipeline name or path"),
    gold: Path = typer.Argument(..., exists=True, help="Gold test file (SIGHAN format)"),
    dictionary: Path = typer.Argument(..., exists=True, help="Training vocabulary"),
    output: Path = typer.Option(..., "--output", "-o", help="Metrics JSON"),
    pred_output: Path = typer.Option(..., "--pred-output", "-p", help="Predicted segmentation"),
    raw: Optional[Path] = typer.Option(None, "--raw", help="Raw test text (default: gold without spaces)"),
    perl_script: Optional[Path] = typer.Option(None, "--perl-script", help="Official SIGHAN `score` script"),
    name: str = typer.Option("", "--name", help="Label stored in the JSON (corpus/model)"),
    batch_size: int = typer.Option(256, "--batch-size", "-b"),
    gpu_id: int = typer.Option(-1, "--gpu-id", "-g"),
    transition_weight: Optional[float] = typer.Option(
        None, "--transition-weight", help="Decode with this gap-label transition weight (chosen on dev; default: the pipeline's)"
    ),
    tag_prior_weight: Optional[float] = typer.Option(
        None, "--tag-prior-weight", help="Decode with this weight on the characters' word-position tags (chosen on dev; default: the pipeline's)"
    ),
    bigram_prior_weight: Optional[float] = typer.Option(
        None, "--bigram-prior-weight", help="Decode with this weight on the character pairs' boundary log-odds (chosen on dev; default: the pipeline's)"
    ),
) -> None:
    """Evaluate a segmenter on a test file with the official scorer and a Python port of it."""
    from spacy_gdcws.app.segment import load_pipeline
    from spacy_gdcws.eval.evaluate import evaluate_segmenter
    from spacy_gdcws.pipeline.names import find_segmenter

    check_outputs({"--output": output, "--pred-output": pred_output}, {"MODEL": model, "GOLD": gold, "DICTIONARY": dictionary, "--raw": raw})
    use_gpu(gpu_id)
    nlp = load_pipeline(model, words_only=True)
    settings = {}
    segmenter = nlp.get_pipe(find_segmenter(nlp))
    if transition_weight is not None:
        segmenter.transition_weight = transition_weight
        settings["transition_weight"] = transition_weight
    if tag_prior_weight is not None:
        segmenter.tag_prior_weight = tag_prior_weight
        settings["tag_prior_weight"] = tag_prior_weight
    if bigram_prior_weight is not None:
        segmenter.bigram_prior_weight = bigram_prior_weight
        settings["bigram_prior_weight"] = bigram_prior_weight
    result = evaluate_segmenter(nlp, gold, dictionary, pred_output, raw, perl_script, batch_size)
    result = {"name": name, "model": model, "gold": str(gold), **settings, **result}
    output.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(output, json.dumps(result, indent=2, ensure_ascii=False) + "\n")  # metrics whole or not at all
    figures = result["official"] or result["python"]
    scorer = result["scorer"]
    source = (f"official perl scorer {scorer['official_script']}" if result["official"]
              else f"Python port of the official scorer: {scorer['why_not_official']}")
    msg.good(
        f"{name or model}: P {figures['precision']:.3f} R {figures['recall']:.3f} F {figures['f']:.3f} "
        f"OOV-R {figures['oov_recall'] or float('nan'):.3f} IV-R {figures['iv_recall'] or float('nan'):.3f} "
        f"({source}); {result['chars_per_second']} chars/s -> {output}"
    )
    if result["scorers_agree"] is False:
        msg.warn(
            "The Python scorer differs from the perl scorer in the printed digits (GNU diff, which "
            "the perl script uses, does not always find the longest common subsequence); the "
            "official figures are the ones reported."
        )
