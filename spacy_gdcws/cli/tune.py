"""`tune-decoding`: choose a trained segmenter's decoding weights on dev and save the pipeline."""
from pathlib import Path
from typing import List, Optional

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app
from spacy_gdcws.io import check_outputs

# the grids' defaults (those of `app.tuning`, kept here so that `--help` needs no import of it;
# tests/cli/test_cli.py checks they are the same)
DEFAULT_TRANSITION_WEIGHTS = (0.0, 0.5, 1.0)
DEFAULT_TAG_PRIOR_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)
DEFAULT_BIGRAM_PRIOR_WEIGHTS = (0.0, 0.5, 1.0, 2.0)


def _weights(text: str) -> List[float]:

    return [float(part) for part in text.split(",") if part.strip()]


@app.command("tune-decoding")
def tune_decoding_cli(
    model: str = typer.Argument(..., help="Pipeline name or path (trained gdcws_segmenter)"),
    dev: Path = typer.Argument(..., exists=True, help="Dev docs with gold words (.spacy), not the test set"),
    output: Path = typer.Argument(..., help="Where to save the pipeline with the chosen weights"),
    transition_weights: str = typer.Option(
        ",".join(map(str, DEFAULT_TRANSITION_WEIGHTS)), "--transition-weights", help="Comma-separated grid"
    ),
    tag_prior_weights: str = typer.Option(
        ",".join(map(str, DEFAULT_TAG_PRIOR_WEIGHTS)), "--tag-prior-weights", help="Comma-separated grid"
    ),
    bigram_prior_weights: str = typer.Option(
        ",".join(map(str, DEFAULT_BIGRAM_PRIOR_WEIGHTS)), "--bigram-prior-weights",
        help="Comma-separated grid of the character pairs' boundary prior"
    ),
    train: Optional[Path] = typer.Option(
        None, "--train", exists=True, help="Training docs (.spacy) to record the counts from (pipelines trained before initialize recorded them)"
    ),
    report: Optional[Path] = typer.Option(None, "--report", help="JSON with the dev scores of every combination of weights"),
    segmenter: Optional[str] = typer.Option(None, "--segmenter", help="Name of the segmenter (default: the first gdcws_segmenter)"),
    granularity: Optional[str] = typer.Option(None, "--granularity", help="fine or coarse: the granularity saved with the pipeline (the weights are chosen on the model's own words); default: the pipeline's"),
) -> None:
    """Try every combination of decoding weights (`transition_weight`, `tag_prior_weight`,
    `bigram_prior_weight`) on the dev docs, keep the one with the best dev token F (greedy
    decoding, all 0, wins ties when listed first) and save the pipeline with it, so that
    `spacy.load(OUTPUT)` decodes that way."""
    import srsly
    from spacy.tokens import DocBin
    from spacy.training import Example

    from spacy_gdcws.app.segment import load_pipeline, save_pipeline, set_granularity
    from spacy_gdcws.app.tuning import (
        tune_decoding,
    )
    from spacy_gdcws.decoding.decoder import check_granularity

    check_outputs({"OUTPUT": output, "--report": report}, {"MODEL": model, "DEV": dev, "--train": train}, folders=("OUTPUT",))
    if granularity is not None:
        check_granularity(granularity)
    nlp = load_pipeline(model)
    golds = list(DocBin().from_disk(dev).get_docs(nlp.vocab))
    examples = None
    if train is not None:
        examples = (Example(nlp.make_doc(doc.text), doc) for doc in DocBin().from_disk(train).get_docs(nlp.vocab))
    result = tune_decoding(nlp, golds, _weights(transition_weights), _weights(tag_prior_weights), segmenter, examples,
                           bigram_prior_weights=_weights(bigram_prior_weights))
    for row in result["grid"]:
        msg.text(f"transition {row['transition_weight']:<5} tag prior {row['tag_prior_weight']:<5} "
                 f"bigram prior {row['bigram_prior_weight']:<5} "
                 f"F {row['token_f']:.2f} OOV-R {row['token_oov_r']} IV-R {row['token_iv_r']}")
    set_granularity(nlp, granularity)
    save_pipeline(nlp, output)
    if report is not None:
        report.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(report, {"model": model, "dev": str(dev), "output": str(output), **result})
    best = result["best"]
    msg.good(f"transition_weight {best['transition_weight']}, tag_prior_weight {best['tag_prior_weight']}, "
             f"bigram_prior_weight {best['bigram_prior_weight']} "
             f"(dev F {best['token_f']:.2f}, OOV-R {best['token_oov_r']}) -> {output}")
