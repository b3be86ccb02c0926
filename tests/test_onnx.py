"""A trained segmenter exported to ONNX Runtime (`ml.onnx`, `export-onnx`): same words in
float32, stated differences in int8, saved and loaded whole, predicts only."""
import subprocess
import sys

import pytest
import spacy

from spacy_gdcws.readers import read_conll

from .test_encoders import ROOT, TEXTS, model_config, train, words

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from spacy_gdcws.ml.onnx import ARCHITECTURE, export_onnx  # noqa: E402


@pytest.fixture(scope="module")
def ud_sentences():
    path = ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"
    return [s for _, s in zip(range(30), read_conll(path))]


@pytest.fixture(scope="module")
def ud_texts(ud_sentences):
    return ["".join(s.words) for s in ud_sentences]


@pytest.fixture(scope="module")
def trained(ud_sentences):
    nlp, _losses = train(model_config("idcnn", "crf"), ud_sentences, steps=15)
    return nlp


def test_fp32_export_gives_the_same_words_and_round_trips(trained, ud_texts, tmp_path):
    result = export_onnx(trained, ud_texts, precision="fp32")
    assert result.changed_lines == 0 and result.lines == len(ud_texts)
    exported = result.nlp
    assert exported.config["components"]["gdcws_segmenter"]["model"]["@architectures"] == ARCHITECTURE
    assert not any(node.shims for node in exported.get_pipe("gdcws_segmenter").model.walk())  # no torch module
    texts = TEXTS + ud_texts
    assert words(exported, texts) == words(trained, texts)
    assert [doc.text for doc in exported.pipe(texts)] == texts
    exported.to_disk(tmp_path / "onnx")
    assert words(spacy.load(tmp_path / "onnx"), texts) == words(trained, texts)


def test_int8_export_states_its_differences(trained, ud_texts):
    result = export_onnx(trained, ud_texts, precision="int8")
    got = words(result.nlp, ud_texts)
    want = words(trained, ud_texts)
    assert result.changed_lines == sum(a != b for a, b in zip(got, want))
    assert [doc.text for doc in result.nlp.pipe(TEXTS)] == TEXTS
    graph = result.nlp.get_pipe("gdcws_segmenter").model.layers[0].attrs["onnx_model"]
    assert b"QuantizeLinear" in graph  # the convolutions run on int8


def test_exported_pipeline_predicts_only_and_errors_are_coded(trained, ud_texts):
    from spacy.training import Example

    exported = export_onnx(trained, ud_texts[:5], precision="fp32").nlp
    doc = exported.make_doc(ud_texts[0])
    with pytest.raises(ValueError, match="E099"):
        exported.update([Example(doc, doc)])
    with pytest.raises(ValueError, match="E094"):
        export_onnx(trained, ud_texts, precision="int4")
    with pytest.raises(ValueError, match="E100"):
        export_onnx(trained, [], precision="fp32")
    with pytest.raises(ValueError, match="E101"):
        export_onnx(exported, ud_texts, precision="fp32")
    blank = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})
    config = exported.config["components"]["gdcws_segmenter"]["model"]
    pipe = blank.add_pipe("gdcws_segmenter", config={"model": config})
    pipe.model.attrs["ngram_vocab"] = exported.get_pipe("gdcws_segmenter").model.attrs["ngram_vocab"]
    pipe.train_words = {"北京"}
    with pytest.raises(ValueError, match="E097"):
        list(blank.pipe(["北京大学"]))


def test_export_cli_reports_the_changed_lines(trained, ud_texts, tmp_path):
    source = tmp_path / "source"
    trained.to_disk(source)
    dev = tmp_path / "dev.txt"
    dev.write_text("\n".join(ud_texts) + "\n", encoding="utf8")
    out = tmp_path / "int8"
    run = subprocess.run([sys.executable, "-m", "spacy_gdcws", "export-onnx", str(source), str(out),
                          "--calibration", str(dev), "--precision", "int8"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert f"of {len(ud_texts)} calibration lines" in run.stdout.replace("\n", " ")
    assert words(spacy.load(out), ud_texts)
    again = subprocess.run([sys.executable, "-m", "spacy_gdcws", "export-onnx", str(source), str(source),
                            "--calibration", str(dev)], capture_output=True, text=True)
    assert again.returncode != 0 and "E077" in again.stdout + again.stderr
