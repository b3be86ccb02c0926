"""`ml.transformer`: a pretrained transformer (a tiny local BERT) under the segmenter, with either scorer."""
import subprocess
import sys

import pytest
import spacy

from spacy_gdcws.readers import read_conll
from tests.util import ROOT, block, train_model

TEXTS = ["我爱北京天安门。\n今天 天气很好", "", " ", "ABC公司的iPhone 15售价5,999元", "北京大学" * 150]


@pytest.fixture(scope="module")
def sentences():
    return [s for _, s in zip(range(40), read_conll(ROOT / "assets" / "ud_zh" / "zh_gsdsimp-ud-dev.conllu"))]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory, sentences):
    """A 2-layer BERT of width 32 with a vocabulary of the corpus's characters (no network)."""
    pytest.importorskip("spacy_transformers")
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny_bert")
    chars = sorted({c for s in sentences for w in s.words for c in w} | set("".join(TEXTS)) - {" ", "\n"})
    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + chars + ["##" + c for c in "abcdefghijklmnopqrstuvwxyz0123456789"]
    (folder / "vocab.txt").write_text("\n".join(pieces) + "\n", encoding="utf8")
    tokenizer = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"))
    tokenizer.save_pretrained(folder)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=256)
    BertModel(config).save_pretrained(folder)
    return folder


def trf_model(path, scorer="crf"):
    head = ({"@architectures": "spacy_gdcws.CRFTagger.v1", "width": 32} if scorer == "crf"
            else block("GapScorer.v1", width=32, hidden=16))
    return block("TransformerSegmenter.v1", hidden_width=32, width=32, dropout=0.0,
                 transformer=block("HFTransformer.v1", name=str(path), window=64, stride=48), scorer=head)


def train(model, sentences, steps=8):
    return train_model(model, sentences, steps, 0.005)


@pytest.mark.parametrize("scorer", ["crf", "gap"])
def test_transformer_segmenter_trains_saves_and_keeps_text(tiny_bert, sentences, scorer, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    nlp, losses = train(trf_model(tiny_bert, scorer), sentences)
    assert losses[-1] < 0.7 * losses[0]
    docs = list(nlp.pipe(TEXTS))
    assert [d.text for d in docs] == TEXTS  # the 600-character text runs in strided spans
    words = [[t.text for t in d] for d in docs]
    assert words == [[t.text for t in nlp(text)] for text in TEXTS]
    assert any("5,999" in w for w in words[3]), "|".join(words[3])  # atomic units hold under any encoder
    nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp")
    assert [[t.text for t in d] for d in loaded.pipe(TEXTS)] == words


def test_trf_config_is_valid():
    pytest.importorskip("spacy_transformers")
    cmd = [sys.executable, "-m", "spacy", "debug", "config", str(ROOT / "configs" / "trf.cfg"),
           "--paths.train", "x.spacy", "--paths.dev", "x.spacy"]
    run = subprocess.run(cmd, capture_output=True, text=True, env={"HF_HUB_OFFLINE": "1", "PATH": ""})
    assert "Config is valid" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]


def test_without_spacy_transformers_the_plugin_works_and_the_transformer_says_what_to_install():
    """(CI also runs the whole suite before the extras are installed.)"""
    code = """
import sys
import spacy
nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})
nlp.add_pipe("gdcws_segmenter")  # the default model needs nothing more
sys.modules["spacy_transformers"] = None  # from here on, as if not installed
try:
    spacy.util.registry.resolve({"m": {"@architectures": "spacy_gdcws.HFTransformer.v1", "name": "bert-base-chinese",
                                       "window": 128, "stride": 96, "grad_factor": 1.0, "tokenizer_config": {},
                                       "transformer_config": {}, "mixed_precision": False,
                                       "grad_scaler_config": {}}})
except ImportError as e:
    print(str(e))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "[E067]" in run.stdout and "pip install -e '.[transformers]'" in run.stdout
