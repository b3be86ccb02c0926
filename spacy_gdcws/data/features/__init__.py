"""From docs to model inputs, by concern.

- `hashing`: hashed character and bigram rows, character classes;
- `ngrams`: n-gram keys and the n-gram vocabulary with its UNKs;
- `lexicon`: dictionary features, word counts and block leave-out;
- `batch`: a batch's features, units and windows;
- `words`: the parser's word features and batches; `gold`: its training gold, aligned to the
  predicted words once per example.

Everything here is numpy and independent of the model's device, so the same
plan (and so the same segmentation) is produced on CPU and GPU.
"""
from spacy_gdcws.data.features.batch import (  # noqa: F401
    BatchFeatures,
    Placement,
    Window,
    Windows,
    batch_windows,
    doc_features,
    featurize,
    pack_windows,
    plan_windows,
    windows_for_unit,
)
from spacy_gdcws.data.features.hashing import (  # noqa: F401
    BOS,
    EDGE_CLASS,
    EOS,
    HAN_CLASS,
    MASK64,
    N_CLASSES,
    UNK_BIGRAM,
    UNK_CHAR,
    bigram_key,
    char_class,
    char_classes,
    char_classes_from_codes,
    code_keys,
    hash_rows,
)
from spacy_gdcws.data.features.lexicon import (  # noqa: F401
    SOURCE_TEXT_KEY,
    HoldoutFolds,
    LexiconIndex,
    WordCounts,
    lexicon_features,
    source_text,
    text_key,
    window_matches,
)
from spacy_gdcws.data.features.ngrams import (  # noqa: F401
    NgramKeys,
    NgramVocab,
    flat_ngram_keys,
    ngram_keys,
)
