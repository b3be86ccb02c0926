"""`evaluate-ud`: a tagging/parsing pipeline on raw text and on gold words."""
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app, use_gpu
from spacy_gdcws.io import check_outputs


@app.command("evaluate-ud", hidden=True)
def evaluate_ud_cli(
    model: str = typer.Argument(..., help="Pipeline name or path (segmenter + tagger/parser)"),
    gold: Path = typer.Argument(..., exists=True, help="Gold docs (.spacy) with POS and dependencies"),
    output: Path = typer.Option(..., "--output", "-o", help="Metrics JSON"),
    segmenter: Optional[str] = typer.Option(None, "--segmenter", help="Name of the segmenter (default: the first gdcws_segmenter)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", "-g"),
) -> None:
    """Word, UPOS, XPOS, UAS and LAS precision/recall/F aligned on characters (CoNLL
    2018 style), from raw text and, for contrast, from the gold words. MODEL may also be a
    system's CoNLL-U file for the gold docs' texts (e.g. `segment --format conllu` on them, one
    text a line): then its analyses are scored (from raw text only)."""
    import srsly
    from spacy.tokens import DocBin

    from spacy_gdcws.app.segment import load_pipeline
    from spacy_gdcws.eval.ud_eval import evaluate_pipeline

    check_outputs({"--output": output}, {"MODEL": model, "GOLD": gold})
    if model.endswith(".conllu") and Path(model).exists():
        import spacy

        from spacy_gdcws.eval.ud_eval import docs_from_sentences, score_ud
        from spacy_gdcws.readers.conll import read_conll

        vocab = spacy.blank("zh").vocab
        golds = list(DocBin().from_disk(gold).get_docs(vocab))
        predicted = docs_from_sentences(vocab, list(read_conll(model)), golds)
        scores = {"predicted_segmentation": score_ud(zip(predicted, golds))}
        srsly.write_json(output, {"predicted": model, "gold": str(gold), "docs": len(golds), **scores})
        msg.good("predicted_segmentation: " + "  ".join(f"{k} F {v['f'] * 100:.2f}"
                                                     for k, v in scores["predicted_segmentation"].items()))
        return
    use_gpu(gpu_id)
    nlp = load_pipeline(model)
    golds = list(DocBin().from_disk(gold).get_docs(nlp.vocab))
    scores = evaluate_pipeline(nlp, golds, segmenter=segmenter)
    result = {"model": model, "gold": str(gold), "docs": len(golds), "pipeline": nlp.pipe_names, **scores}
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, result)
    for setting, table in scores.items():  # predicted and gold segmentation; sentences
        msg.good(f"{setting}: " + "  ".join(f"{k} F {v['f'] * 100:.2f}" for k, v in table.items()))
