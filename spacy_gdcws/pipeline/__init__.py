"""The segmenter's floor: the `gdcws_segmenter` component (`segmenter.py`, coordinating), its factory
and the one home of its values (`factory.py`, with `gdcws_subwords`), boundaries -> words
(`words.py`), its loss (`loss.py`), what initialize reads off the data (`counts.py`), the general
lexicon and coarse granularity (`lexicons.py`), saving and loading (`serialize.py`) and the
sub-words of search granularity (`subwords.py`). The parser is its sibling, `spacy_gdcws.parse`."""
