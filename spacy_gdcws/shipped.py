"""The files shipped inside the package that more than one component reads: the general
lexicons (`spacy_gdcws/lexicons/`, with their licences and `README.md`)."""
from pathlib import Path

LEXICON_DIR = Path(__file__).resolve().parent / "lexicons"
# the words of two or more characters with frequency >= 5 in jieba 0.42.1's dict.txt (MIT): the
# segmenter's general lexicon and the words granularity "coarse" merges into
JIEBA_WORDS = LEXICON_DIR / "jieba_words.txt"
# jieba 0.42.1's dict.txt lines of frequency >= 5, words of every length, `word freq tag`: what
# `gdcws_parser` reads for its words' jieba part of speech and frequency (MIT)
JIEBA_DICT = LEXICON_DIR / "jieba_dict.txt"
