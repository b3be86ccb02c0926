"""Docs of words -> the parser's arrays: one row of hashed feature ids per word, the rows of its
characters, and (in training) the gold heads, relations, UPOS and XPOS aligned to the words.

Feature columns (`FEATURES`): the word's form; its first and last characters; its lexicon tag
(jieba's part of speech for the word, 1 = not in the lexicon); its length in characters; its
lexicon frequency's octave; and, where the model has a seventh table, the treebank whose
conventions the sentence is parsed in (the sentence's own in training, `TREEBANK_ROW` otherwise:
the component's first treebank). Each word's row is computed once per process and kept by its ORTH id,
each training example's aligned gold once per example (`gold.AlignedGold`). Rows are hashed by
`hashing.text_row`, as the segmenter's are by `hashing.hash_rows`.
"""
import math
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import ORTH
from spacy.strings import StringStore
from spacy.tokens import Doc
from spacy.training import Example

from spacy_gdcws.data.features.gold import AlignedGold, aligned_gold
from spacy_gdcws.data.features.hashing import RESERVED, text_row
from spacy_gdcws.data.normalize import CharNormalizer
from spacy_gdcws.data.sentences import MAX_SENTENCE, SENTENCE_FINAL, split_sentences

FEATURES = ("form", "first_char", "last_char", "lexicon_tag", "length", "frequency", "treebank")
#: the treebank column's row of a sentence parsed without a treebank of its own (in prediction)
TREEBANK_ROW = 1
MAX_CHARS = 8


@dataclass
class WordLexicon:
    """A general lexicon with parts of speech, word -> (frequency, tag): what the parser's lexicon
    features read (`spacy_gdcws.decoding.dictionary_files.tagged_lexicon` reads one)."""

    entries: Dict[str, Tuple[int, str]] = field(default_factory=dict)

    def to_lines(self) -> str:
        """The lexicon as jieba's `word freq tag` lines (how a saved pipeline keeps it)."""
        return "".join(f"{w} {f} {t}\n" for w, (f, t) in self.entries.items())

    def tags(self) -> List[str]:
        """The lexicon's tags, sorted."""
        return sorted({t for _, t in self.entries.values()})


@dataclass
class ParseBatch:
    """The arrays of a batch of sentences (B sentences of at most T words).

    feats: (B, T, F) feature rows (F: the model's feature tables, `FEATURES` or all but the
    treebank); chars: (B, T, C) character rows (0 = padding); lengths: (B,) words per sentence;
    gold (training only): heads (0 = root, k + 1 = word k), label, UPOS, XPOS and entity tag rows,
    each (B, T), IGNORE where unknown. `where[b][k]` is the doc and token index of word k of sentence b.
    """

    feats: numpy.ndarray
    chars: numpy.ndarray
    lengths: numpy.ndarray
    where: List[Tuple[int, List[int]]]
    #: per doc, where its whitespace tokens hang (`sentences.DocSentences.space_heads`)
    space_heads: List[Dict[int, int]]
    gold: Optional[Tuple[numpy.ndarray, ...]] = None


class WordFeaturizer:
    """Hashes words into the parser's feature rows (one row per word, cached by ORTH id).

    rows (Sequence[int]): Rows of each column's table (`FEATURES` order; without the treebank's
        table, no treebank column).
    char_rows (int): Rows of the character table.
    lexicon (WordLexicon): The general lexicon (tags and frequencies).
    lexicon_tags (Sequence[str]): The lexicon's tags in row order (saved with the model).
    split_at (Iterable[str]): Words that end a sentence (besides line breaks).
    max_words (int): A longer run of words without a sentence end is cut (`split_sentences`).
    normalizer (Optional[CharNormalizer]): The characters the features read (the word's form,
        characters and lexicon entry); None: the text as written.
    """

    def __init__(self, rows: Sequence[int], char_rows: int, lexicon: WordLexicon, lexicon_tags: Sequence[str],
                 split_at: Iterable[str] = SENTENCE_FINAL, max_words: int = MAX_SENTENCE,
                 normalizer: Optional[CharNormalizer] = None) -> None:
        self.rows = list(rows)
        self.char_rows = char_rows
        self.lexicon = lexicon
        self.tag_rows = {t: RESERVED + i for i, t in enumerate(lexicon_tags)}
        self.split_at = frozenset(split_at)
        self.max_words = max_words
        self.normalizer = normalizer
        self._cache: Dict[int, Tuple[numpy.ndarray, numpy.ndarray]] = {}
        self._gold = AlignedGold()

    def word_rows(self, orth: int, strings: StringStore) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """The feature row and the character rows of the word `orth` (its text is looked up in
        `strings` the first time only)."""
        cached = self._cache.get(orth)
        if cached is not None:
            return cached
        text = strings[orth]
        if self.normalizer is not None:
            text = self.normalizer.text(text)
        rows = self.rows
        freq, tag = self.lexicon.entries.get(text, (0, ""))
        feats = numpy.array([
            text_row(text, rows[0]),
            text_row(text[:1], rows[1]),
            text_row(text[-1:], rows[2]),
            min(self.tag_rows.get(tag, 1), rows[3] - 1),
            min(RESERVED + len(text), rows[4] - 1),
            min(RESERVED + (int(math.log2(freq)) + 1 if freq > 0 else 0), rows[5] - 1),
            TREEBANK_ROW,  # a sentence's own row is set in `arrays`
        ][: len(rows)], dtype=numpy.int64)
        chars = numpy.array([text_row(c, self.char_rows) for c in text[:MAX_CHARS]], dtype=numpy.int64)
        self._cache[orth] = (feats, chars)
        return feats, chars

    def split(self, docs: Sequence[Doc]) -> Tuple[List[Tuple[int, List[int]]], List[Dict[int, int]]]:
        """Every sentence of `docs` as (doc index, token indices), and where each doc's
        whitespace tokens hang."""
        where: List[Tuple[int, List[int]]] = []
        space_heads: List[Dict[int, int]] = []
        for d, doc in enumerate(docs):
            split = split_sentences(doc, self.split_at, self.max_words)
            where.extend((d, sent) for sent in split.sentences)
            space_heads.append(split.space_heads)
        return where, space_heads

    def arrays(self, docs: Sequence[Doc], where: List[Tuple[int, List[int]]],
               treebanks: Optional[Sequence[int]] = None) -> Tuple[numpy.ndarray, ...]:
        """feats, chars and lengths of the sentences `where` names (with `treebanks`, each doc's
        treebank row: the treebank column of its sentences)."""
        n_sents = len(where)
        max_len = max((len(s) for _, s in where), default=0)
        feats = numpy.zeros((n_sents, max_len, len(self.rows)), dtype=numpy.int64)
        chars = numpy.zeros((n_sents, max_len, MAX_CHARS), dtype=numpy.int64)
        lengths = numpy.zeros((n_sents,), dtype=numpy.int64)
        word_rows = self.word_rows
        orths: Dict[int, List[int]] = {}
        for b, (d, sent) in enumerate(where):
            if d not in orths:  # ORTH ids, not Token objects: the parser reads every word
                orths[d] = docs[d].to_array(ORTH).tolist()
            strings, doc_orths = docs[d].vocab.strings, orths[d]
            lengths[b] = len(sent)
            rows = [word_rows(doc_orths[i], strings) for i in sent]
            feats[b, : len(sent)] = numpy.stack([f for f, _ in rows])
            if treebanks is not None and len(self.rows) == len(FEATURES):
                feats[b, : len(sent), -1] = treebanks[d]  # within the table: `initialize` checks (E138)
            for k, (_, c) in enumerate(rows):
                chars[b, k, : len(c)] = c
        return feats, chars, lengths

    def batch(self, docs: Sequence[Doc], examples: Optional[Sequence[Example]] = None,
              labels: Optional[Dict[str, Dict[str, int]]] = None,
              treebanks: Optional[Sequence[int]] = None) -> ParseBatch:
        """The arrays of every sentence of `docs` (with the aligned gold of `examples`, whose
        predicted docs are `docs`, mapped to rows by `labels` {"upos"|"xpos"|"deps": row}; with
        `treebanks`, each doc's treebank row)."""
        where, space_heads = self.split(docs)
        feats, chars, lengths = self.arrays(docs, where, treebanks)
        gold = None
        if examples is not None:
            gold = aligned_gold(examples, where, feats.shape[1], labels or {}, self._gold)
        return ParseBatch(feats, chars, lengths, where, space_heads, gold)

    def batches(self, docs: Sequence[Doc], max_padded: int = 4096) -> Tuple[List[ParseBatch], List[Dict[int, int]]]:
        """Prediction batches: the sentences of `docs` sorted by length and grouped so that no
        batch pads to more than `max_padded` words (a long sentence alone in its batch), and
        where each doc's whitespace tokens hang."""
        where, space_heads = self.split(docs)
        order = sorted(range(len(where)), key=lambda b: len(where[b][1]))
        batches: List[ParseBatch] = []
        group: List[Tuple[int, List[int]]] = []
        for b in order:
            longest = len(where[b][1])
            if group and (len(group) + 1) * longest > max_padded:
                batches.append(ParseBatch(*self.arrays(docs, group), group, space_heads))
                group = []
            group.append(where[b])
        if group:
            batches.append(ParseBatch(*self.arrays(docs, group), group, space_heads))
        return batches, space_heads

