"""`spacy_gdcws.CharEmbed.v2` (and v1, the same without character normalization): hashed
characters, bigrams, dictionary features, pretrained vectors."""
from typing import Any

from spacy.util import registry

from spacy_gdcws.ml.forward import feature_settings


@registry.architectures("spacy_gdcws.CharEmbed.v1")
def build_char_embed_v1(
    width: int,
    char_rows: int = 20000,
    char_seeds: int = 2,
    bigrams: bool = True,
    bigram_rows: int = 100000,
    bigram_width: int = 64,
    lexicon_max_len: int = 0,
    lexicon_dropout: float = 0.0,
    lexicon_holdout: bool = False,
    ngram_vocab: bool = False,
    ngram_holdout: bool = False,
    ngram_dropout: float = 0.0,
    holdout_folds: int = 0,
    positions: bool = False,
    dropout: float = 0.0,
    vectors_width: int = 0,
) -> Any:
    """`spacy_gdcws.CharEmbed.v2` without character normalization (configs written before it)."""
    return build_char_embed(normalize="", **locals())


@registry.architectures("spacy_gdcws.CharEmbed.v2")
def build_char_embed(
    width: int,
    char_rows: int = 20000,
    char_seeds: int = 2,
    bigrams: bool = True,
    bigram_rows: int = 100000,
    bigram_width: int = 64,
    lexicon_max_len: int = 0,
    lexicon_dropout: float = 0.0,
    lexicon_holdout: bool = False,
    ngram_vocab: bool = False,
    ngram_holdout: bool = False,
    ngram_dropout: float = 0.0,
    holdout_folds: int = 0,
    positions: bool = False,
    dropout: float = 0.0,
    vectors_width: int = 0,
    normalize: str = "",
    general_lexicon: bool = False,
) -> Any:
    """The character embedding (`nn.CharEmbedding`) with its featurization settings.

    width (int): Output width (the encoder's width).
    char_rows, char_seeds (int): The hashed character table and hash functions per character.
    bigrams (bool): Hashed embeddings of the bigrams on both sides of each character.
    bigram_rows, bigram_width (int): The bigram table.
    lexicon_max_len (int): Dictionary features from the training vocabulary
        (words of 2..lexicon_max_len characters starting / ending at each
        character); 0 = off. `lexicon_dropout`, `lexicon_holdout`: as in
        `spacy_gdcws.GDTransformer.v2`.
    ngram_vocab, ngram_holdout, ngram_dropout, holdout_folds: the n-gram
        vocabulary and leave-out in training, as in `spacy_gdcws.GDTransformer.v2`.
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
