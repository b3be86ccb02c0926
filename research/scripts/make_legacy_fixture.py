"""Write tiny pipelines saved by an earlier spacy_gdcws, with the words they gave then, so
that tests show every later version loads them and gives the same words (run with that
version first on PYTHONPATH):

    git worktree add /tmp/old c5cdd2a
    PYTHONPATH=/tmp/old python research/scripts/make_legacy_fixture.py tests/fixtures
    git worktree add /tmp/release db135c0
    PYTHONPATH=/tmp/release python research/scripts/make_legacy_fixture.py tests/fixtures --release

With --parser (e217866, the parser before its output sizes came from the data): `release_parser_v1`,
`release_idcnn`'s segmenter with a `gdcws_parser` of `spacy_gdcws.BiaffineParser.v1` trained on the
same sentences' gold words, and the words, UPOS, XPOS, relations and heads it gives (`.json`); install
that tree (`pip install -e /tmp/parser_old`) to run it, its entry points being the old ones.
Without --release: `legacy_gd_v2`, saved by the uncomposed GDTransformer.v2 (c5cdd2a). With
--release: the folders of the release before the floors (db135c0, save format 2 with
checksums and a model fingerprint): `release_gd_v2` (GDTransformer.v2) and `release_idcnn`
(the main job's kind of model: CharEmbed.v2 reading normalized characters, with a general
lexicon, an ID-CNN and a CRF tagger), trained alike. Each trains on 40 sentences of
UD_Chinese-GSDSimp dev (assets/ud_zh, CC BY-SA 4.0) and records the words it gives for 20
other sentences (`NAME.json`).
"""
import sys
from pathlib import Path

import spacy
import srsly
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from spacy_gdcws.readers import read_conll

ROOT = Path(__file__).resolve().parents[2]
MODEL = {
    "@architectures": "spacy_gdcws.GDTransformer.v2", "width": 16, "depth": 2, "n_heads": 2, "d_ff": 32,
    "dropout": 0.0, "char_rows": 800, "char_seeds": 2, "bigrams": True, "bigram_rows": 1500, "bigram_width": 8,
    "biaffine_width": 16, "layer_norm": "pre", "lexicon_max_len": 4, "ngram_vocab": True, "window": 32,
}


IDCNN_MODEL = {
    "@architectures": "spacy_gdcws.CharSegmenter.v1", "window": 32, "batch_chars": 16384, "mixed_precision": False,
    "embed": {"@architectures": "spacy_gdcws.CharEmbed.v2", "width": 16, "char_rows": 800, "char_seeds": 2,
              "bigrams": True, "bigram_rows": 1500, "bigram_width": 8, "lexicon_max_len": 4, "lexicon_dropout": 0.0,
              "lexicon_holdout": False, "ngram_vocab": True, "ngram_holdout": False, "ngram_dropout": 0.0,
              "holdout_folds": 0, "positions": False, "dropout": 0.0, "vectors_width": 0,
              "normalize": "t2s+width", "general_lexicon": True},
    "encoder": {"@architectures": "spacy_gdcws.IDCNN.v1", "width": 16, "dilations": [1, 2], "iterations": 2,
                "kernel": 3, "dropout": 0.0},
    "scorer": {"@architectures": "spacy_gdcws.CRFTagger.v1", "width": 16},
}
# the general lexicon of release_idcnn (words of jieba's dictionary, MIT: assets/lexicon)
LEXICON = ["北京", "天安门", "学生", "大学", "中国", "人民", "今天", "天气", "电影", "公司"]


def save(out: Path, name: str, model: dict, sents: list, texts: list, **init) -> None:
    """Train a pipeline with `model` on 40 sentences and save it with the words it gives for `texts`."""
    fix_random_seed(0)
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_gdcws.ChineseCharTokenizer.v1"}}})
    nlp.add_pipe("gdcws_segmenter", config={"model": model})
    if init:
        nlp.config["initialize"]["components"]["gdcws_segmenter"] = init
    examples = []
    for sent in sents[:40]:
        ref = Doc(nlp.vocab, words=sent.words, spaces=[False] * len(sent.words))
        examples.append(Example(nlp.make_doc(ref.text), ref))
    nlp.initialize(lambda: examples)
    optimizer = Adam(0.01)
    for _ in range(30):
        nlp.update(examples, sgd=optimizer)
    nlp.to_disk(out / name)
    srsly.write_json(out / f"{name}.json", {"texts": texts, "words": [[t.text for t in d] for d in nlp.pipe(texts)]})


PARSER_V1 = {"@architectures": "spacy_gdcws.BiaffineParser.v1", "feature_rows": [500, 200, 200, 64, 12, 24],
             "feature_widths": [16, 8, 8, 4, 4, 4], "char_rows": 200, "char_width": 8, "word_dropout": 0.0,
             "encoder": "lstm", "lstm_width": 16, "lstm_depth": 1, "arc_width": 16, "label_width": 8,
             "n_upos": 24, "n_xpos": 64, "n_labels": 48, "dropout": 0.0}
# the parser's lexicon of release_parser_v1 (jieba's dict.txt lines, MIT)
TAGGED = ["北京 34488 ns", "天安门 5678 ns", "学生 28932 n", "大学 20025 n", "中国 193694 ns", "人民 57373 n",
          "今天 23496 t", "天气 4193 n", "电影 20263 n", "公司 34036 n", "的 318825 uj", "是 796991 v"]


def save_parser(out: Path, sents: list, texts: list) -> None:
    """`release_idcnn`'s segmenter, then a v1 parser trained on the gold words of the same sentences."""
    from spacy_gdcws.readers.corpus import sentence_to_doc

    lexicon = out / "release_parser_v1.lexicon.txt"
    lexicon.write_text("".join(f"{w}\n" for w in LEXICON), encoding="utf8")
    tagged = out / "release_parser_v1.tagged.txt"
    tagged.write_text("".join(f"{line}\n" for line in TAGGED), encoding="utf8")
    save(out, "release_parser_v1", IDCNN_MODEL, sents, texts, general_lexicon=str(lexicon))
    fix_random_seed(0)
    nlp = spacy.load(out / "release_parser_v1")
    nlp.add_pipe("gdcws_parser", name="parser", config={"model": PARSER_V1})
    golds = [sentence_to_doc(nlp.vocab, s) for s in sents[:40]]
    examples = [Example(Doc(nlp.vocab, words=[t.text for t in g], spaces=[bool(t.whitespace_) for t in g]), g)
                for g in golds]
    nlp.get_pipe("parser").initialize(lambda: examples, nlp=nlp, lexicon=tagged)
    optimizer = Adam(0.01)
    for _ in range(40):
        nlp.update(examples, sgd=optimizer, exclude=["gdcws_segmenter"])
    nlp.to_disk(out / "release_parser_v1")
    srsly.write_json(out / "release_parser_v1.json", {"texts": texts, "analyses": [
        [(t.text, t.pos_, t.tag_, t.dep_, t.head.i) for t in doc] for doc in nlp.pipe(texts)]})
    lexicon.unlink()
    tagged.unlink()


def main(out_dir: str, release: bool = False, parser: bool = False) -> None:
    sents = [s for _, s in zip(range(60), read_conll(ROOT / "assets/ud_zh/zh_gsdsimp-ud-dev.conllu"))]
    texts = ["".join(sent.words) for sent in sents[40:]] + ["我爱北京天安门。\n今天 天气很好", ""]
    out = Path(out_dir)
    if parser:
        save_parser(out, sents, texts + ["臺灣的電視臺，ＡＢＣ公司２０１９年。", "https://example.com/a?b=1 和 café 3.5%"])
        return
    if not release:
        save(out, "legacy_gd_v2", MODEL, sents, texts)
        return
    texts += ["臺灣的電視臺，ＡＢＣ公司２０１９年。", "https://example.com/a?b=1 和 café 3.5%"]
    save(out, "release_gd_v2", MODEL, sents, texts)
    lexicon = out / "release_idcnn.lexicon.txt"
    lexicon.write_text("".join(f"{w}\n" for w in LEXICON), encoding="utf8")
    save(out, "release_idcnn", IDCNN_MODEL, sents, texts, general_lexicon=str(lexicon))
    lexicon.unlink()


if __name__ == "__main__":
    main(sys.argv[1], "--release" in sys.argv[2:], "--parser" in sys.argv[2:])
