"""The data path of both components: docs to arrays and model features.

`tokenizer` (the linear-time char tokenizer), `char_doc` (character docs that keep their text,
docs built from ORTH ids), `doc_arrays` (a batch of docs as flat arrays, read once), `normalize`
(the length-preserving character map both models read), `features` (the segmenter's character,
n-gram, dictionary and vector features; the parser's hashed word rows, `features.words`, and its
gold aligned to its words, `features.gold`), `sentences` (a doc of words' sentences and where its
whitespace hangs), `key_index` (vectorised membership of 64-bit keys), `bmes` (BMES tags and the
numpy Viterbi of a BMES chain) and `ragged` (numpy helpers for rows laid end to end). `bmes` and
`ragged` are imported by `spacy_gdcws.nn` without spaCy, so this package's `__init__` imports
nothing.
"""
