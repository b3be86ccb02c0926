"""The general lexicon with parts of speech shipped in the package (`spacy_gdcws/lexicons/jieba_dict.txt`:
jieba 0.42.1's words of frequency >= 5 with their tags, MIT)."""
from pathlib import Path

LEXICON_DIR = Path(__file__).resolve().parents[1] / "lexicons"
JIEBA_DICT = LEXICON_DIR / "jieba_dict.txt"


def shipped_lexicon_path() -> Path:
    """The shipped `word freq tag` file the parser reads by default."""
    return JIEBA_DICT
