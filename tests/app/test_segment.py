"""`app.segment`: raw segmentation (text in, words out) gives the pipeline's words."""
def words(doc):
    return [t.text for t in doc if not t.is_space]


def test_segment_texts_gives_the_pipeline_words(trained_nlp, sxu_sentences):
    from spacy_gdcws.app.segment import segment_texts
    from spacy_gdcws.pipeline.words import doc_words

    texts = ["".join(s.words) for s in sxu_sentences[:5]] + ["", "  ", "今天 天气\n很好！abc  def", "一"]
    expected = [doc_words(doc) for doc in trained_nlp.pipe(texts)]
    assert list(segment_texts(trained_nlp, texts, batch_size=3)) == expected


def test_words_only_disables_what_follows_the_segmenter(trained_nlp, tmp_path):
    """#47: the main job's package is segmenter + tagger + parser; `segment`, `evaluate` and
    `segment-corpus` load it words-only (what `spacy.load(..., enable=["segmenter"])` gives),
    with the same words."""
    from spacy_gdcws.app.segment import keep_words_only, load_pipeline

    trained_nlp.to_disk(tmp_path / "p")
    import spacy

    full = spacy.load(tmp_path / "p")
    full.add_pipe("sentencizer")  # a component after the segmenter, as the tagger and parser are
    full.to_disk(tmp_path / "full")
    nlp = load_pipeline(str(tmp_path / "full"), words_only=True)
    assert nlp.pipe_names == ["gdcws_segmenter"] and "sentencizer" not in nlp.component_names
    text = "今天天气很好。我们去公园。"
    assert words(nlp(text)) == words(trained_nlp(text))
    assert not nlp(text).has_annotation("SENT_START") and full(text).has_annotation("SENT_START")
    assert keep_words_only(spacy.blank("zh")) == []  # no segmenter: nothing to disable
