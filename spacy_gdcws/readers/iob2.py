"""Word-per-line NER files with IOB2 tags over words: Universal NER's (`ID<TAB>FORM<TAB>TAG<TAB>...`,
`# text = ...` per sentence, sentences separated by blank lines), and `segment --format iob2`'s.

Entities are read as conlleval and seqeval read them: a chunk begins at a `B-` tag, or at an `I-`
tag that does not continue a chunk of its type (IOB2 allows no such tag; `Sentence.meta["repaired"]`
counts them, so a reader can say how many a file has). Each sentence's entities are word spans
(`meta["entities"]`: (first word, end word, label), end exclusive) and, where the sentence has a
`# text`, character spans of that text (`entity_chars`), the words found in it in order.
"""
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple, Union

from spacy_gdcws.errors import Errors
from spacy_gdcws.readers.base import Sentence, fail, read_lines

#: an entity over words or characters: (start, end, label), end exclusive
Span = Tuple[int, int, str]
OUTSIDE = "O"


def read_iob2(path: Union[str, Path]) -> Iterator[Sentence]:
    """The sentences of an IOB2 file, in order: words, `meta["text"]` (its `# text`, else the words
    joined), `meta["sent_id"]` where it has one, `meta["tags"]` (the IOB2 tags as written),
    `meta["entities"]` (word spans) and `meta["repaired"]` (I- tags that begin a chunk). A line
    that is not `ID<TAB>FORM<TAB>TAG...` or a tag that is not IOB2 is E015 with file and line."""
    words: List[str] = []
    tags: List[str] = []
    comments: dict = {}
    start = None
    for number, text in read_lines(path):
        if not text.strip():
            if words:
                yield _sentence(words, tags, comments, start or number, path)
            words, tags, comments, start = [], [], {}, None
            continue
        if start is None:
            start = number
        if text.startswith("#"):
            key, sep, value = text[1:].partition("=")
            if sep:  # `# key = value`; the text keeps its own spaces, but the one after "="
                comments[key.strip()] = value[1:] if key.strip() == "text" and value.startswith(" ") else value.strip()
            continue
        cols = text.split("\t")
        if len(cols) < 3 or not cols[1]:
            raise fail(path, number, f"expected ID<TAB>FORM<TAB>TAG, got {len(cols)} field(s): {text!r}")
        tag = cols[2]
        if tag != OUTSIDE and (tag[:2] not in ("B-", "I-") or len(tag) < 3):
            raise fail(path, number, f"{tag!r} is not an IOB2 tag: O, B-TYPE or I-TYPE")
        words.append(cols[1])
        tags.append(tag)
    if words:
        yield _sentence(words, tags, comments, start or 1, path)


def _sentence(words: List[str], tags: List[str], comments: dict, line: int, path: Union[str, Path]) -> Sentence:
    entities, repaired = iob2_spans(tags)
    meta = {"text": comments.get("text", "".join(words)), "tags": list(tags), "entities": entities,
            "repaired": repaired, "source": str(path)}
    if "sent_id" in comments:
        meta["sent_id"] = comments["sent_id"]
    return Sentence(words=list(words), line=line, meta=meta)


def iob2_spans(tags: Sequence[str]) -> Tuple[List[Span], int]:
    """The chunks of IOB2 tags, as conlleval reads them: (first, end, label) word spans, and how many
    `I-` tags began a chunk (after `O`, at the start, or after another type)."""
    spans: List[Span] = []
    begin, label, repaired = -1, "", 0
    for i, tag in enumerate(list(tags) + [OUTSIDE]):
        prefix, kind = (tag[0], tag[2:]) if tag != OUTSIDE else (OUTSIDE, "")
        continues = prefix == "I" and begin >= 0 and kind == label
        if begin >= 0 and not continues:
            spans.append((begin, i, label))
            begin, label = -1, ""
        if prefix == "B" or (prefix == "I" and not continues):
            repaired += prefix == "I"
            begin, label = i, kind
    return spans, repaired


def word_offsets(words: Sequence[str], text: str) -> Optional[List[int]]:
    """Where each word starts in `text`, the words found in order with only whitespace between them;
    None where the text does not spell the words."""
    offsets, pos = [], 0
    for word in words:
        while pos < len(text) and text[pos].isspace() and not word[:1].isspace():
            pos += 1
        if text[pos: pos + len(word)] != word:
            return None
        offsets.append(pos)
        pos += len(word)
    return offsets if not text[pos:].strip() else None


def text_spaces(words: Sequence[str], text: str) -> Optional[List[bool]]:
    """Whether whitespace follows each word in `text` (None where the text does not spell the words)."""
    offsets = word_offsets(words, text)
    return None if offsets is None else _spaces_after(words, text, offsets)


def _spaces_after(words: Sequence[str], text: str, offsets: Sequence[int]) -> List[bool]:
    """Whether whitespace follows each word in `text`, the words starting at `offsets`."""
    ends = [o + len(w) for o, w in zip(offsets, words)]
    return [end < len(text) and text[end].isspace() for end in ends]


def sentence_offsets(sent: Sentence) -> List[int]:
    """Where each of a sentence's words starts in its `meta["text"]` (E142 where the text does not
    spell its words)."""
    offsets = word_offsets(sent.words, sent.meta["text"])
    if offsets is None:
        raise ValueError(Errors.E142.format(path=sent.meta.get("source", "<sentences>"), line=sent.line,
                                            text=sent.meta["text"]))
    return offsets


def sentence_spaces(sent: Sentence) -> List[bool]:
    """Whether whitespace follows each of a sentence's words in its `meta["text"]` (E142 as `sentence_offsets`)."""
    return _spaces_after(sent.words, sent.meta["text"], sentence_offsets(sent))


def entity_chars(sent: Sentence) -> List[Span]:
    """A sentence's entities as character spans of its `meta["text"]` (E142 where the text does not
    spell its words)."""
    offsets = sentence_offsets(sent)
    return [(offsets[a], offsets[b - 1] + len(sent.words[b - 1]), label) for a, b, label in sent.meta["entities"]]


def iob2_tags(n_words: int, spans: Sequence[Span]) -> List[str]:
    """IOB2 tags of `n_words` words with the entity word spans `spans` (no two overlapping)."""
    tags = [OUTSIDE] * n_words
    for a, b, label in spans:
        tags[a] = f"B-{label}"
        for k in range(a + 1, b):
            tags[k] = f"I-{label}"
    return tags
