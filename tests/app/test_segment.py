"""`app.segment`: raw segmentation (text in, words out) gives the pipeline's words."""
def words(doc):
    return [t.text for t in doc if not t.is_space]


def test_segment_texts_gives_the_pipeline_words(trained_nlp, sxu_sentences):
    from spacy_gdcws.app.segment import segment_texts
    from spacy_gdcws.pipeline.words import doc_words

    texts = ["".join(s.words) for s in sxu_sentences[:5]] + ["", "  ", "今天 天气\n很好！abc  def", "一"]
    expected = [doc_words(doc) for doc in trained_nlp.pipe(texts)]
    assert list(segment_texts(trained_nlp, texts, batch_size=3)) == expected
