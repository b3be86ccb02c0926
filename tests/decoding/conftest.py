"""Fixtures of the decoding tests."""
import pytest
import spacy
from spacy.language import Language

from tests.util import LEGACY_FIXTURE


@pytest.fixture()
def nlp() -> Language:
    """A fresh copy of the legacy fixture pipeline (a test may change its dictionary and settings)."""
    return spacy.load(LEGACY_FIXTURE)
