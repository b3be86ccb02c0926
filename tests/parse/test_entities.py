"""#78: entities from `gdcws_parser`'s entity tagger: PER, LOC, ORG as `doc.ents` with `ent_iob_` and
`ent_type_` on every token, never across a sentence's end or a whitespace token, the same through
`pipe` and the call, after a save and a load, and no entity tagger where the data has none."""
import numpy
import pytest
import spacy

from spacy_gdcws.decoding.entities import entity_tags
from spacy_gdcws.parse.component import sentence_entities
from tests.util import ROOT

# three of the fixture's training sentences (it has learnt their entities), and others
TEXTS = ["五月二十一日，努尔哈赤出城迎接前来沈阳的科尔沁部奥巴贝勒。", "他花费了许多时间来比较加拿大地质调查局博物馆中的恐龙化石。",
         "劳特塔瓦尔湖是印度尼西亚的湖泊，位于苏门答腊岛北部。", "习近平在北京会见了联合国秘书长古特雷斯。",
         "他说：“美国总统在纽约。”我们去上海！", "北京  大学 在\n北京", "", "   ", "中华民国总统府"]


def _ents(doc):
    return [(e.start, e.end, e.label_) for e in doc.ents]


@pytest.fixture(scope="module")
def nlp(tagged_model):
    return spacy.load(tagged_model)


def test_every_token_has_an_iob_tag_and_the_types_are_unners(nlp):
    parser = nlp.get_pipe("parser")
    assert parser.entity_types == ("LOC", "ORG", "PER")
    assert parser.label_data["ents"] == entity_tags(["LOC", "ORG", "PER"])
    docs = list(nlp.pipe(TEXTS * 4))
    assert sum(len(doc.ents) for doc in docs) > 0
    for doc in docs:
        assert doc.text in TEXTS
        if len(doc):
            assert doc.has_annotation("ENT_IOB")
            assert all(t.ent_iob_ in ("B", "I", "O") for t in doc)
        assert {e.label_ for e in doc.ents} <= {"PER", "LOC", "ORG"}
        for t in doc:
            assert (t.ent_type_ != "") == (t.ent_iob_ in ("B", "I"))


def test_no_entity_crosses_a_sentence_end_or_a_whitespace_token(nlp):
    spaced = [text[:6] + "  " + text[6:9] + "\u3000" + text[9:] for text in TEXTS[:3]]
    for doc in nlp.pipe(TEXTS * 2 + spaced + ["北京 \u3000 大学。上海交通  大学"] * 2):
        sents = [(s.start, s.end) for s in doc.sents] if len(doc) else []
        for ent in doc.ents:
            assert any(a <= ent.start and ent.end <= b for a, b in sents), (doc.text, ent)
            assert not any(t.is_space for t in ent), (doc.text, ent)


def test_a_sentences_chunks_are_cut_at_a_gap_between_its_words():
    """A sentence's words leave its whitespace tokens out: an entity tagged across one becomes two."""
    tags = entity_tags(["LOC"])
    rows = numpy.array([1, 2, 2, 0, 1])  # B I I O B over the words at tokens 0, 1, 3, 4, 5
    tokens = numpy.array([0, 1, 3, 4, 5])
    assert sentence_entities(rows, tokens, tags) == [(0, 2, "LOC"), (3, 4, "LOC"), (5, 6, "LOC")]


def test_pipe_equals_the_call_at_batch_sizes_1_and_256(nlp):
    texts = TEXTS * 3
    one_by_one = [_ents(nlp(text)) for text in texts]
    for batch_size in (1, 256):
        assert [_ents(doc) for doc in nlp.pipe(texts, batch_size=batch_size)] == one_by_one


def test_entities_survive_a_save_and_a_load_as_folders_and_bytes(nlp, tmp_path):
    expected = [_ents(doc) for doc in nlp.pipe(TEXTS)]
    nlp.to_disk(tmp_path / "p")
    again = spacy.load(tmp_path / "p")
    assert [_ents(doc) for doc in again.pipe(TEXTS)] == expected
    parser = again.get_pipe("parser")
    parser.from_bytes(nlp.get_pipe("parser").to_bytes())
    assert [_ents(doc) for doc in again.pipe(TEXTS)] == expected


def test_the_words_alone_run_without_the_parser(tagged_model):
    words = spacy.load(tagged_model, enable=["segmenter"])
    doc = words(TEXTS[0])
    assert not doc.has_annotation("ENT_IOB") and not doc.has_annotation("DEP")


def test_a_parser_saved_before_entities_loads_and_sets_none():
    """`release_parser_v1` (BiaffineParser.v1, saved at e217866): it loads, parses as it did, and
    leaves `doc.ents` unset (no entity tagger)."""
    nlp = spacy.load(ROOT / "tests" / "fixtures" / "release_parser_v1")
    parser = next(p for _, p in nlp.pipeline if type(p).__name__ == "BiaffineParser")
    assert parser.entity_types == ()
    doc = nlp("我爱北京天安门。")
    assert doc.has_annotation("DEP") and not doc.has_annotation("ENT_IOB")
