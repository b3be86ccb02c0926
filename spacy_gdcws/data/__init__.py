"""The data path: character docs to arrays and model features.

`tokenizer` (the linear-time char tokenizer), `doc_arrays` (a batch of docs as
flat arrays, read once), `features` (character, n-gram, dictionary and vector
features), `key_index` (vectorised membership of 64-bit keys), `bmes` (BMES
tags and the numpy Viterbi of a BMES chain) and `ragged` (numpy helpers for
rows laid end to end). `bmes` and `ragged` are imported by `spacy_gdcws.nn`
without spaCy, so this package's `__init__` imports nothing.
"""
