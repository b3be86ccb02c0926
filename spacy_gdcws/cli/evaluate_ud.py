"""`evaluate-ud`: a tagging/parsing pipeline (or a system's CoNLL-U file) on raw text and on gold words,
scored as the CoNLL 2018 shared task scores it."""
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app, use_gpu
from spacy_gdcws.io import check_outputs

SHOWN = ("words", "upos", "xpos", "uas", "las", "las_subtypes")


@app.command("evaluate-ud")
def evaluate_ud_cli(
    model: str = typer.Argument(..., help="Pipeline name or path (segmenter + tagger/parser), or a system's CoNLL-U file"),
    gold: Path = typer.Argument(..., exists=True, help="Gold CoNLL-U (each sentence's # text is the input) or .spacy"),
    output: Path = typer.Option(..., "--output", "-o", help="Metrics JSON"),
    pred_output: Optional[Path] = typer.Option(None, "--pred-output", help="Write the analyses scored from raw text as CoNLL-U (a system file's: as read)"),
    segmenter: Optional[str] = typer.Option(None, "--segmenter", help="Name of the segmenter (default: the first gdcws_segmenter)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", "-g"),
) -> None:
    """Words, UPOS, XPOS, UAS and LAS precision, recall and F aligned on characters, as the CoNLL 2018
    scorer counts them (LAS: the universal relation; `las_subtypes` the full one; each relation's LAS
    in the JSON), from raw text (each gold sentence's `# text`) and, for contrast, from the gold words.
    MODEL may be a system's CoNLL-U file for the gold texts (e.g. `segment --format conllu` on them,
    one text a line): its analyses are scored from raw text; every sentence must be a tree."""
    from spacy_gdcws.eval.ud_eval import evaluate_pipeline, read_gold

    check_outputs({"--output": output, "--pred-output": pred_output}, {"MODEL": model, "GOLD": gold})
    if Path(model).is_file():
        import spacy

        from spacy_gdcws.eval.ud_eval import docs_from_sentences, score_ud
        from spacy_gdcws.readers.conll import read_conll

        vocab = spacy.blank("zh").vocab
        golds, _ = read_gold(gold, vocab)
        predicted = docs_from_sentences(vocab, list(read_conll(model)), golds, Path(model))
        scores = {"predicted_segmentation": score_ud(zip(predicted, golds), relations=True)}
        _write_json(output, {"predicted": model, "gold": str(gold), "docs": len(golds), **scores})
        _write_predictions(pred_output, predicted)
        _report(scores)
        return
    from spacy_gdcws.app.segment import load_pipeline

    use_gpu(gpu_id)
    nlp = load_pipeline(model)
    golds, texts = read_gold(gold, nlp.vocab)
    predicted: list = []
    scores = evaluate_pipeline(nlp, golds, segmenter=segmenter, texts=texts, predicted=predicted)
    result = {"model": model, "gold": str(gold), "docs": len(golds), "pipeline": nlp.pipe_names,
              "scoring": "CoNLL 2018 (LAS: universal relations; las_subtypes: full relations)", **scores}
    _write_json(output, result)
    _write_predictions(pred_output, predicted)
    _report(scores)


def _write_predictions(path: Optional[Path], predicted: list) -> None:
    """The analyses scored (the pipeline's from raw text, or a system file's, as read), as CoNLL-U."""
    if path is None:
        return
    from spacy_gdcws.eval.conllu import write_conllu
    from spacy_gdcws.io import atomic_writer

    with atomic_writer(path) as out:
        write_conllu(((doc, True) for doc in predicted), out)


def _write_json(path: Path, data: dict) -> None:
    """The report, written whole (E103 where it cannot be: a full disk, no permission)."""
    import srsly

    from spacy_gdcws.io import atomic_write_text

    atomic_write_text(path, srsly.json_dumps(data, indent=2) + "\n")


def _report(scores: dict) -> None:
    for setting, table in scores.items():  # predicted and gold segmentation; sentences
        msg.good(f"{setting}: " + "  ".join(f"{k} F {v['f'] * 100:.2f}" for k, v in table.items()
                                            if k in SHOWN or setting == "sentences"))
