"""Coded error and warning messages, in the style of spacy.errors."""


class ErrorsWithCodes(type):
    """Prefix every message with its code: `Errors.E011` -> "[E011] ..."."""

    def __getattribute__(self, code: str) -> str:
        msg = super().__getattribute__(code)
        if code.startswith("__"):
            return msg
        return f"[{code}] {msg}"


class Warnings(metaclass=ErrorsWithCodes):
    W001 = ("Skipping an example whose reference doc has unknown spaces: its characters cannot be "
            "aligned to gold words. Build reference docs with explicit `spaces`.")


class Errors(metaclass=ErrorsWithCodes):
    # E001-E010 and E051-E062 are raised inline by spacy_gdcws.nn (torch only); docs/errors.md lists every code
    E011 = "window must be at least 2 characters, got {window}"
    E012 = ("The gdcws_segmenter has no labels: it predicts word boundaries. "
            "add_label('{label}') is not supported.")
    E013 = "threshold must be between 0 and 1, got {threshold}"
    E014 = ("The gdcws_segmenter expects the character pretokenizer ({hint}); got a doc whose "
            "token '{token}' has {n} characters: on words it would do nothing. Set [nlp.tokenizer] "
            "@tokenizers = \"spacy_gdcws.ChineseCharTokenizer.v1\" (or spacy.zh.ChineseTokenizer with segmenter \"char\").")
    E015 = "{path}:{line}: {message}"
    E016 = "Cannot read {path}: {message}"
    E017 = "Unknown corpus format {fmt!r}; expected one of {options}"
    E018 = "dev_fraction must be in [0, 1), got {value}"
    E019 = "No training examples with gold segmentation were found: cannot initialize the segmenter."
    E020 = "The segmentation {test} has {n_pred} lines but the gold file {gold} has {n_gold}: they must be line-aligned ({shorter} ends before line {line})."
    E021 = "warmup must be a positive number of steps, got {warmup}"
    # E022 (lexicon_max_len) is raised inline by spacy_gdcws.nn.GDConfig and CharEmbed.v1
    E023 = "Document {i}: the predicted and the gold text differ (beyond whitespace); they cannot be aligned on characters."
    E025 = "The segmenter {name!r} is int8-quantised (spacy_gdcws.quantize): it can predict but cannot be updated or saved. Load the float pipeline again for that."
    E026 = "The model uses dictionary features (lexicon_max_len > 0) but has no dictionary: initialize the gdcws_segmenter (it records the training words) or load a trained one."
    E024 = "The pipeline has no gdcws_segmenter named {name!r} (components: {names})."
    E027 = "ngram_holdout and ngram_dropout need ngram_vocab = true: there is nothing to hide without an n-gram vocabulary."
    E028 = "The model has an n-gram vocabulary (ngram_vocab = true) but it is empty: initialize the gdcws_segmenter (it records the training characters and bigrams) or load a trained one."
    E029 = "holdout_folds must be 0 (leave-one-out over single docs) or at least 2 blocks, got {value}"
    E030 = "{name} must be >= 0 (0 = off; all decoding weights 0 = greedy decoding), got {value}"
    E031 = "The segmenter {name!r} has no {key!r} counts for its decoding priors (pipelines trained before they were recorded): set transition_weight, tag_prior_weight and bigram_prior_weight to 0, or record them with `GDSegmenter.record_transitions(examples)` (`tune-decoding --train TRAIN.spacy`)."
    E032 = "No dev docs to choose the decoding on: give gold docs (a .spacy file with the gold words)."
    E033 = "Empty grid of decoding weights: give at least one transition weight, one tag prior weight and one bigram prior weight."
    E034 = "Unknown segmenter loss {loss!r}; expected one of {options}"
    E035 = "An ensemble needs at least 2 members (trained pipelines), got {n}."
    E036 = "An ensemble of segmenters (spacy_gdcws.GDEnsemble.v1) predicts only: train its members one by one (`spacy train` with other seeds) and combine them with `python -m spacy_gdcws ensemble`."
    E037 = "Pipeline {i} of the ensemble was trained on other words than pipeline 0: members must be trained on the same data (their training vocabulary is the ensemble's dictionary)."
    E038 = "Pipeline {i} is an ensemble already: give the trained member pipelines."
    E039 = "pseudo_words must be in [0, 1) (the share of rare two-character words replaced in training; 0 = off), got {value}"
    E040 = "pseudo_chars must be in [0, 1) (the share of rare single-character words replaced in training; 0 = off), got {value}"
    E041 = "The embedding has no featurization settings: build it with a registered embedding (spacy_gdcws.CharEmbed.v1)."
    E042 = "Pretrained vectors in {mode!r} mode are not supported by the segmenter's embedding (it looks characters up by key): use a vectors table in 'default' mode (`spacy init vectors` without --mode floret)."
    E043 = "The segmenter's model uses pretrained vectors (vectors_width = {width}) but the pipeline's vocab has no vectors: load them first (`spacy init vectors`, then `[initialize] vectors`)."
    E044 = "The segmenter's model has a CRF tagger (scores BMES tags): {what} applies to gap scorers only; set it to {default}."
    E045 = "Unknown user dictionary mode {mode!r}; expected one of {options}"
    E046 = "A user dictionary word must be a non-empty string without whitespace, got {word!r}"
    E047 = "{name} must be at least 1, got {value}"
    E048 = "{test}:{line}: the characters differ from the gold file {gold} at this line (beyond the spaces between words): the files are not line-aligned or the text was changed."
    E049 = "Nothing to score: the gold file has {n_gold} words and the segmentation {n_pred}."
    E050 = "--digits must be between 1 and 10, got {value}"
    E063 = "{path} is missing: the saved segmenter is incomplete (its checksums.json lists it). Save the pipeline again."
    E064 = "{path} does not match the checksum it was saved with: the file is corrupt or was changed. Save the pipeline again."
    E065 = "{path} is missing or empty, but the segmenter's model uses dictionary features from its training words: the saved segmenter is incomplete."
    E066 = "The text is not valid Unicode: a lone surrogate ({char}) near character {position}. Decode the input with errors='replace' or fix it."
    E067 = "The transformer encoder needs spacy-transformers and transformers: pip install 'spacy-gdcws[transformers]' ({error})"
    E068 = "The transformer's hidden size is {found} but the segmenter's model says hidden_width = {hidden_width}: set hidden_width to {found}."
    E069 = "{path}: chunk {chunk} of its lines arrived {what}: the output would lose or repeat lines, so nothing was written for it."
    E070 = "segment-corpus runs on Ray: pip install 'spacy-gdcws[ray]' ({error})"
    E071 = "{path}:{line}: expected a character and its tag separated by a space ('高 B-NAME' or '， O'), got {n} field(s): {text!r}"
    E072 = "{path}:{line}: unknown entity tag {tag!r}: expected O or {prefixes} followed by '-' and a type (B-ORG)"
    E073 = "{path}:{line}: {tag!r} continues an entity of type {label} that was not begun (open entity: {opened}): an M-/E- tag needs a B- tag of the same type before it"
    E074 = "{path}:{line}: the {label} entity begun at line {begin} is not closed by an E- tag before {what}"
    E075 = "{path}: document {i}'s text differs from the gold text: the pipeline changed the text, so its entities cannot be scored on character offsets"
    E076 = "The pkuseg baseline needs spacy-pkuseg: pip install 'spacy-gdcws[baselines]' ({error})"
