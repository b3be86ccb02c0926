"""The second stage: tagging (UPOS, XPOS) and dependency parsing on the segmenter's words with one
biaffine model (`gdcws_parser`)."""
