__title__ = "spacy-gdcws"
__version__ = "0.2.0"
