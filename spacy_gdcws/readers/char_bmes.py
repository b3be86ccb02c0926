"""Character-per-line NER files with BMES entity tags (Resume NER, Weibo NER style).

One character and its tag per line (`高 B-NAME`, `O` outside entities), sentences
separated by blank lines. Entities become character offsets (start, end, label), so
they can be scored against any tokenization of the same text; docs made from them
have one token per character, which every entity aligns with.
"""
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Tuple, Union

from spacy.tokens import Doc
from spacy.vocab import Vocab

from spacy_gdcws.errors import Errors
from spacy_gdcws.readers.base import CorpusFormatError, read_lines

Entity = Tuple[int, int, str]

OUTSIDE = "O"
# Begin, Middle, End of a multi-character entity; Single-character entity
PREFIXES = ("B", "M", "E", "S")


@dataclass
class EntitySentence:
    """One sentence of a char BMES file.

    chars: the first column, one item per line (a character); entities:
    (start, end, label) character offsets into `text`, end exclusive, in order;
    line: the 1-based line number where the sentence starts. cut_start / cut_end:
    the first / last entity continues from the previous / into the next sentence
    (a sentence break inside an entity, as Resume NER train has twice); each
    sentence keeps its part as an entity, and the flags give back the original tags.
    """

    chars: List[str]
    entities: List[Entity] = field(default_factory=list)
    line: int = 1
    cut_start: bool = False
    cut_end: bool = False

    @property
    def text(self) -> str:
        return "".join(self.chars)


def _error(code: str, path: Union[str, Path], line: int, **details) -> CorpusFormatError:
    return CorpusFormatError(getattr(Errors, code).format(path=path, line=line, **details))


def parse_tag(tag: str, path: Union[str, Path], line: int) -> Tuple[str, str]:
    """Split `B-ORG` into ("B", "ORG"); `O` gives ("O", ""). Anything else is E072."""
    if tag == OUTSIDE:
        return OUTSIDE, ""
    prefix, _, label = tag.partition("-")
    if prefix not in PREFIXES or not label:
        raise _error("E072", path, line, tag=tag, prefixes="/".join(PREFIXES))
    return prefix, label


class _SentenceBuilder:
    """Collects one sentence's lines and checks its tag sequence as it goes."""

    def __init__(self, path: Union[str, Path], line: int, carried: Optional[Tuple[str, int]] = None) -> None:
        self.path = path
        self.sentence = EntitySentence(chars=[], line=line)
        self.offset = 0
        # the entity being read: (start offset, label, line of its B- tag)
        self.open: Optional[Tuple[int, str, int]] = None
        # (label, line of its B- tag) of an entity the previous sentence left open
        self.carried = carried
        if carried is not None:
            self.open = (0, carried[0], carried[1])
            self.sentence.cut_start = True

    def add(self, char: str, tag: str, line: int) -> None:
        prefix, label = parse_tag(tag, self.path, line)
        start, end = self.offset, self.offset + len(char)
        if self.carried is not None and not self.sentence.chars and (prefix not in ("M", "E") or label != self.carried[0]):
            # the previous sentence ended inside an entity (still open) that this one does not continue
            self.close(line, what=f"'{tag}' (the next sentence does not continue it)")
        if prefix in ("M", "E"):
            if self.open is None or self.open[1] != label:
                opened = f"{self.open[1]} (line {self.open[2]})" if self.open else "none"
                raise _error("E073", self.path, line, tag=tag, label=label, opened=opened)
            if prefix == "E":
                self.sentence.entities.append((self.open[0], end, label))
                self.open = None
        else:
            self.close(line, what=f"'{tag}'")
            if prefix == "B":
                self.open = (start, label, line)
            elif prefix == "S":
                self.sentence.entities.append((start, end, label))
        self.sentence.chars.append(char)
        self.offset = end

    def close(self, line: int, what: str) -> None:
        if self.open is not None:
            raise _error("E074", self.path, line, label=self.open[1], begin=self.open[2], what=what)

    def finish(self) -> Optional[Tuple[str, int]]:
        """End the sentence; RETURNS (label, begin line) of an entity left open
        (the next sentence must continue it), else None."""
        if self.open is None:
            return None
        start, label, begin = self.open
        self.sentence.entities.append((start, self.offset, label))
        self.sentence.cut_end = True
        self.open = None
        return label, begin


def read_char_bmes(path: Union[str, Path]) -> Iterator[EntitySentence]:
    """Yield the sentences of a char BMES file. A line that is not `CHAR TAG`
    (E071), an unknown tag (E072), an M-/E- tag without its B- (E073) and an
    entity left open (E074) are errors naming the file and line. An entity that
    a sentence break cuts (B-/M- up to the break, M-/E- of the same type right
    after it) is read as one entity per sentence, flagged `cut_end` / `cut_start`."""
    builder: Optional[_SentenceBuilder] = None
    carried: Optional[Tuple[str, int]] = None
    last = 0
    for number, text in read_lines(path):
        last = number
        if not text.strip():
            if builder is not None:
                carried = builder.finish()
                yield builder.sentence
                builder = None
            continue
        fields = text.split()
        if len(fields) != 2:
            raise _error("E071", path, number, n=len(fields), text=text)
        if builder is None:
            builder = _SentenceBuilder(path, number, carried)
            carried = None
        builder.add(fields[0], fields[1], number)
    if builder is not None:
        carried = builder.finish()
        yield builder.sentence
    if carried is not None:
        raise _error("E074", path, last + 1, label=carried[0], begin=carried[1], what="the end of the file")


def sentence_tags(sentence: EntitySentence) -> List[str]:
    """The BMES tag of every item of `sentence.chars`, from its entity offsets."""
    starts, offset = [], 0
    for char in sentence.chars:
        starts.append(offset)
        offset += len(char)
    index = {start: i for i, start in enumerate(starts)}
    ends = {start + len(char): i for i, (start, char) in enumerate(zip(starts, sentence.chars))}
    tags = [OUTSIDE] * len(sentence.chars)
    for n, (start, end, label) in enumerate(sentence.entities):
        first, last = index[start], ends[end]
        # an entity cut by a sentence break has no B- (continued) or no E- (continues)
        continued = sentence.cut_start and n == 0
        continues = sentence.cut_end and n == len(sentence.entities) - 1
        for i in range(first, last + 1):
            tags[i] = f"M-{label}"
        if first == last and not (continued or continues):
            tags[first] = f"S-{label}"
            continue
        if not continued:
            tags[first] = f"B-{label}"
        if not continues:
            tags[last] = f"E-{label}"
    return tags


def write_char_bmes(sentences: Iterable[EntitySentence]) -> str:
    """The text of a char BMES file: `CHAR TAG` lines, a blank line after each sentence."""
    out = []
    for sentence in sentences:
        out.extend(f"{char} {tag}\n" for char, tag in zip(sentence.chars, sentence_tags(sentence)))
        out.append("\n")
    return "".join(out)


# doc.user_data key of the cut flags (kept by DocBin(store_user_data=True))
CUT_KEY = "gdcws_cut_entity"


def sentence_to_ner_doc(vocab: Vocab, sentence: EntitySentence) -> Doc:
    """A reference doc: one token per item of `chars` (no spaces), the entities as
    `doc.ents`, the cut flags in `doc.user_data` when set."""
    doc = Doc(vocab, words=sentence.chars, spaces=[False] * len(sentence.chars))
    doc.ents = [doc.char_span(start, end, label=label) for start, end, label in sentence.entities]
    if sentence.cut_start or sentence.cut_end:
        doc.user_data[CUT_KEY] = [sentence.cut_start, sentence.cut_end]
    return doc


def doc_to_sentence(doc: Doc, line: int = 1) -> EntitySentence:
    """The inverse of `sentence_to_ner_doc`, for a doc with one token per character item."""
    cut_start, cut_end = doc.user_data.get(CUT_KEY, (False, False))
    return EntitySentence(
        chars=[t.text for t in doc],
        entities=[(e.start_char, e.end_char, e.label_) for e in doc.ents],
        line=line,
        cut_start=bool(cut_start),
        cut_end=bool(cut_end),
    )
