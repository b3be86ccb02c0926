"""`convert-ner` and `evaluate-ner`: char BMES NER files to DocBin, and entities
scored on character offsets for any tokenization."""
from collections import Counter
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from spacy_gdcws.cli._app import app, use_gpu
from spacy_gdcws.io import atomic_write_bytes, atomic_write_text, check_outputs


@app.command("convert-ner")
def convert_ner_cli(
    input_path: Path = typer.Argument(..., exists=True, dir_okay=False, help="Char BMES file (`高 B-NAME` per line)"),
    output_path: Path = typer.Argument(..., dir_okay=False, help="Output .spacy file"),
) -> None:
    """Convert a character-per-line BMES NER file (Resume NER) to DocBin: one
    token per character, entities as doc.ents (character offsets). Bad lines
    stop the conversion with file and line; nothing is written then."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_gdcws.readers.char_bmes import read_char_bmes, sentence_to_ner_doc

    check_outputs({"OUTPUT_PATH": output_path}, {"INPUT_PATH": input_path})
    nlp = spacy.blank("zh")
    db = DocBin(store_user_data=True)
    labels: Counter = Counter()
    n_sents = n_chars = n_cut = 0
    for sentence in read_char_bmes(input_path):
        db.add(sentence_to_ner_doc(nlp.vocab, sentence))
        labels.update(label for _, _, label in sentence.entities)
        n_sents += 1
        n_chars += len(sentence.text)
        n_cut += sentence.cut_end
    atomic_write_bytes(output_path, db.to_bytes())
    msg.good(f"{n_sents} sentences, {n_chars} characters, {sum(labels.values())} entities -> {output_path}")
    msg.text("entities: " + ", ".join(f"{label} {n}" for label, n in sorted(labels.items())))
    if n_cut:
        msg.warn(f"{n_cut} entities run across a sentence break: each part is an entity of its sentence")


@app.command("evaluate-ner")
def evaluate_ner_cli(
    model: str = typer.Argument(..., help="Pipeline name or path (tokenizer or segmenter, then ner or gdcws_parser)"),
    gold: Path = typer.Argument(..., exists=True, dir_okay=False,
                                help="Gold entities: an IOB2 file (.iob2, Universal NER's) or docs with entities (.spacy)"),
    output: Path = typer.Option(..., "--output", "-o", help="Metrics JSON"),
    name: Optional[str] = typer.Option(None, "--name", help="Name of the run in the JSON (default: the model)"),
    train: Optional[Path] = typer.Option(None, "--train", exists=True, dir_okay=False,
                                         help="Also count the training entities the tokenization cannot reach (.spacy)"),
    gpu_id: int = typer.Option(-1, "--gpu-id", "-g"),
) -> None:
    """Entity P, R, F (micro and per type). An IOB2 file is scored two ways: from raw text (each
    sentence's # text; an entity counts when its character span and type match) and on its gold
    words (exact word spans, as seqeval and Universal NER count). Docs (.spacy) are scored from raw
    text on character offsets, so pipelines with different tokenizations meet one gold; the share
    of gold entities whose edges fall inside a token (unreachable) is reported beside."""
    import srsly
    from spacy.tokens import DocBin

    from spacy_gdcws.app.segment import load_pipeline
    from spacy_gdcws.eval.ner_eval import evaluate_iob2, evaluate_ner, reachability

    check_outputs({"--output": output}, {"MODEL": model, "GOLD": gold, "--train": train})
    use_gpu(gpu_id)
    nlp = load_pipeline(model)
    result = {"name": name or model, "model": model, "gold": str(gold), "pipeline": nlp.pipe_names,
              "tokenizer": nlp.config["nlp"]["tokenizer"]}
    if gold.suffix == ".iob2":
        from spacy_gdcws.readers.iob2 import read_iob2

        result.update(evaluate_iob2(nlp, list(read_iob2(gold))))
        modes = {"raw text": result["raw_text"], "gold words": result["gold_words"]}
    else:
        golds = list(DocBin().from_disk(gold).get_docs(nlp.vocab))
        result.update({"docs": len(golds), **evaluate_ner(nlp, golds, source=gold)})
        modes = {"raw text": result}
    if train is not None:
        result["train_unreachable"] = reachability(nlp, list(DocBin().from_disk(train).get_docs(nlp.vocab)))
    atomic_write_text(output, srsly.json_dumps(result, indent=2) + "\n")
    for mode, scores in modes.items():
        overall, lost = scores["overall"], scores.get("unreachable")
        lost_text = f"; unreachable {lost['unreachable']} of {lost['gold']} ({lost['share'] * 100:.2f}%)" if lost else ""
        msg.good(f"{result['name']}, {mode}: P {overall['p'] * 100:.2f} R {overall['r'] * 100:.2f} "
                 f"F {overall['f'] * 100:.2f}{lost_text} -> {output}")
