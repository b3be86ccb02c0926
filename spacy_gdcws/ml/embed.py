"""`spacy_gdcws.CharEmbed.v2`: hashed characters, bigrams, dictionary features, pretrained
vectors, character normalization (v1, without normalization, is in the legacy wing)."""
from typing import Any

from spacy.util import registry

from spacy_gdcws.ml.featurize import feature_settings


@registry.architectures("spacy_gdcws.CharEmbed.v2")
def build_char_embed(
    width: int,
    char_rows: int,
    char_seeds: int,
    bigrams: bool,
    bigram_rows: int,
    bigram_width: int,
    lexicon_max_len: int,
    lexicon_dropout: float,
    lexicon_holdout: bool,
    ngram_vocab: bool,
    ngram_holdout: bool,
    ngram_dropout: float,
    holdout_folds: int,
    positions: bool,
    dropout: float,
    vectors_width: int,
    normalize: str,
    # added after the release of v2: a pipeline saved before it has no value in its config, which
    # spaCy fills from the factory's default config (`pipeline.factory`: false, its behaviour)
    general_lexicon: bool,
) -> Any:
    """The character embedding (`nn.CharEmbedding`) with its featurization settings.

    width (int): Output width (the encoder's width).
    char_rows, char_seeds (int): The hashed character table and hash functions per character.
    bigrams (bool): Hashed embeddings of the bigrams on both sides of each character.
    bigram_rows, bigram_width (int): The bigram table.
    lexicon_max_len (int): Dictionary features from the training vocabulary
        that the `gdcws_segmenter` records in `initialize` (words of
        2..lexicon_max_len characters starting / ending at each character); 0 = off.
    lexicon_dropout (float): Share of dictionary matches hidden in training.
    lexicon_holdout (bool): In training, hide the words whose every training
        occurrence may be in the current text (leave-one-out), so that rare
        words look in training as unknown words look at test time.
    ngram_vocab (bool): Characters and bigrams never seen in training get a
        learned "unknown" embedding of their character class (bigrams: of
        their pair of classes) instead of the hashed rows of unrelated
        training n-grams (the vocabulary is recorded by the
        `gdcws_segmenter`'s `initialize` and saved with the model).
    ngram_holdout (bool): With `ngram_vocab`, leave-one-out for characters
        and bigrams too: in training, one whose every training occurrence may
        be in the current text is unknown.
    ngram_dropout (float): With `ngram_vocab`, the share of the other
        characters and bigrams that training also shows as unknown.
    holdout_folds (int): With `lexicon_holdout` / `ngram_holdout`: 0 =
        leave-one-out over single docs; k >= 2 = block leave-out as well: the
        training docs, in file order, are cut into k contiguous blocks, and
        training hides from a doc every word / n-gram whose training
        occurrences all lie in its block (rare words cluster in articles, so
        this matches the unknown words of new text far better; see
        `features.HoldoutFolds`). An n-gram then needs two blocks to be known.
    positions (bool): Scale by sqrt(width) and add sinusoidal positions (for
        attention encoders).
    dropout (float): Dropout on the embedding.
    vectors_width (int): The width of `nlp.vocab.vectors` (e.g. vectors trained
        with fastText / floret on the training text and loaded with `spacy init
        vectors`): each character's pretrained vector, frozen and projected, is
        added; the table is copied into the model by `initialize`. 0 = off.
    normalize (str): Character normalization for everything the model and the
        decoder read (features, dictionary features, n-gram vocabulary, decoding
        priors, user dictionary matches): OpenCC configurations and "width"
        joined by "+", e.g. "t2s+width" (`data.normalize`); the words and
        `doc.text` keep the input's characters. "" = off.
    general_lexicon (bool): A second block of dictionary features (the same
        2 * (lexicon_max_len - 1) columns) from a general word list given at
        initialize (`[initialize.components.NAME] general_lexicon = "dict.txt"`,
        e.g. jieba's dict.txt) and saved with the pipeline; needs lexicon_max_len.
    RETURNS (nn.CharEmbedding): The torch module (its `features` are read by
        `spacy_gdcws.CharSegmenter.v1`).
    """
    from spacy_gdcws.nn import CharEmbedding
    from spacy_gdcws.nn.config import (
        check_lexicon_max_len,
        check_rate,
        n_lexicon_features,
    )

    features = feature_settings(
        char_rows=char_rows, char_seeds=char_seeds, bigrams=bigrams, bigram_rows=bigram_rows,
        lexicon_max_len=lexicon_max_len, lexicon_holdout=lexicon_holdout, ngram_vocab=ngram_vocab,
        ngram_holdout=ngram_holdout, ngram_dropout=ngram_dropout, holdout_folds=holdout_folds,
        vectors=vectors_width > 0, normalize=normalize, general_lexicon=general_lexicon,
    )
    check_lexicon_max_len(lexicon_max_len)
    check_rate("dropout", dropout)
    check_rate("lexicon_dropout", lexicon_dropout)
    blocks = 2 if general_lexicon else 1
    embed = CharEmbedding(width, char_rows, bigrams, bigram_rows, bigram_width, blocks * n_lexicon_features(lexicon_max_len),
                          lexicon_dropout, positions, dropout, vectors_width)
    embed.features = features
    return embed
