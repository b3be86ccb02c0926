"""Analysed docs as CoNLL-U, every character of the input kept: the writer of `segment --format conllu`,
`segment-corpus --format conllu` and `evaluate-ud --pred-output`.

One input line is a paragraph (`# newpar`), its sentences blocks (`# sent_id = LINE-K`, `# text`).
Whitespace follows UD's MISC conventions as UDPipe writes them: nothing after a word followed by one
space, `SpaceAfter=No` after a word followed by none, `SpacesAfter=...` after a word followed by
other whitespace (a tab, a run of spaces, a no-break space: `\\s` space, `\\t` tab, `\\r`, `\\n`,
`\\p` for `|`, `\\\\` for a backslash, any other whitespace as `\\uXXXX`, its code point) and `SpacesBefore=...` on a line's
first word where the line starts with whitespace. A line without a word writes no block (CoNLL-U has no
sentence without one): its number is skipped in the sentence ids. The root's relation is UD's `root` whatever the
doc's `dep_` (spaCy's `ROOT`). `readers.conll.conllu_text` reads a line's text back from the columns.

Entities, where the doc has them, go to MISC as `NER=B-TYPE` on an entity's first word and
`NER=I-TYPE` on the others (IOB2, Universal NER's tags; a word outside every entity has no `NER`).
`write_iob2` writes the same blocks in Universal NER's own columns (`ID FORM TAG - -`, tab-separated,
every word, `O` outside), so UNER's tools read them.
"""
from typing import IO, Callable, Iterable, List, Tuple

from spacy.tokens import Doc, Span, Token

#: the MISC key of a word's entity tag
NER_KEY = "NER"


_ESCAPES = {" ": "\\s", "\t": "\\t", "\r": "\\r", "\n": "\\n", "|": "\\p", "\\": "\\\\"}


def escape_spaces(text: str) -> str:
    """Whitespace as a MISC value (`SpacesAfter`): `\\s`, `\\t`, ..., other whitespace as `\\uXXXX`
    (a MISC value holds none: UD's validator refuses it)."""
    return "".join(_ESCAPES.get(ch) or (f"\\u{ord(ch):04X}" if ch.isspace() else ch) for ch in text)


def _misc(after: str, last_of_line: bool) -> str:
    """The MISC field of a word followed by `after` (whitespace; the line's end where `last_of_line`)."""
    if after == " " and not last_of_line:
        return "_"
    if after == "":
        return "_" if last_of_line else "SpaceAfter=No"
    return "SpacesAfter=" + escape_spaces(after)


def entity_tag(token: Token) -> str:
    """A word's IOB2 entity tag (`O` outside every entity, or where the doc has no entities)."""
    iob = token.ent_iob_
    return f"{iob}-{token.ent_type_}" if iob in ("B", "I") and token.ent_type_ else "O"


def sentence_rows(sent: Span, before: str, after: str, last_of_line: bool) -> List[List[str]]:
    """The ten columns of each word of a sentence (whitespace tokens are not words): `before` is
    the whitespace before its first word (the line's leading whitespace), `after` the whitespace
    after its last word."""
    doc = sent.doc
    has_ents = doc.has_annotation("ENT_IOB")
    words = [t for t in sent if not t.is_space]
    ids = {t.i: j for j, t in enumerate(words, 1)}
    rows = []
    for j, t in enumerate(words, 1):
        head = 0 if t.head.i == t.i or t.head.i not in ids else ids[t.head.i]
        if j < len(words):
            following = doc[t.i + 1: words[j].i]
            space = t.whitespace_ + "".join(x.text_with_ws for x in following)
            misc = _misc(space, False)
        else:
            misc = _misc(after, last_of_line)
        if j == 1 and before:
            misc = ("SpacesBefore=" + escape_spaces(before)) + ("" if misc == "_" else "|" + misc)
        tag = entity_tag(t) if has_ents else "O"
        if tag != "O":
            misc = f"{NER_KEY}={tag}" + ("" if misc == "_" else "|" + misc)
        has_dep = doc.has_annotation("DEP")
        deprel = ("root" if head == 0 else (t.dep_ or "_")) if has_dep else "_"
        rows.append([str(j), t.text, "_", t.pos_ or "_", t.tag_ or "_", "_", str(head) if has_dep else "_", deprel,
                     "_", misc])
    return rows


def iob2_rows(sent: Span, before: str, after: str, last_of_line: bool) -> List[List[str]]:
    """Universal NER's five columns of each word of a sentence: its number, form, IOB2 tag and two
    `-` (UNER's annotator columns)."""
    return [[str(j), t.text, entity_tag(t), "-", "-"] for j, t in enumerate((t for t in sent if not t.is_space), 1)]


Rows = Callable[[Span, str, str, bool], List[List[str]]]


#: where a doc read from a CoNLL-U sentence keeps that sentence's comment lines (`doc.user_data`)
COMMENTS_KEY = ("spacy_gdcws", "conllu_comments")


def piece_blocks(doc: Doc, line_number: int, first_k: int = 1, starts_line: bool = True,
                 line_ends: bool = True, rows_of: Rows = sentence_rows) -> List[str]:
    """The CoNLL-U blocks of one doc: a whole line, or one piece of a long line (`segment` cuts those:
    `app.pieces`), whose sentences are numbered from `first_k`, whose first block opens the paragraph
    where it `starts_line`, and whose last word runs on into the next piece unless it `line_ends`
    (`rows_of`: each sentence's columns, CoNLL-U's or UNER's). A doc read from a CoNLL-U sentence
    (`COMMENTS_KEY`) writes one block: that sentence's comment lines, then its words' rows."""
    if COMMENTS_KEY in doc.user_data:
        words = [t for t in doc if not t.is_space]
        return ["\n".join(list(doc.user_data[COMMENTS_KEY]) + ["\t".join(r) for r in rows_of(doc[:], "", "", True)])
                + "\n\n"] if words else []
    annotated = doc.has_annotation("DEP") or doc.has_annotation("SENT_START")
    sents = [s for s in (doc.sents if annotated else [doc[:]]) if any(not t.is_space for t in s)]
    text = doc.text
    firsts = [next(t for t in sent if not t.is_space) for sent in sents]
    blocks = []
    for k, sent in enumerate(sents):
        words = [t for t in sent if not t.is_space]
        start, end = words[0].idx, words[-1].idx + len(words[-1].text)
        next_start = firsts[k + 1].idx if k + 1 < len(sents) else len(text)
        # a line's leading whitespace, or a piece's (the whitespace where `segment` cut the line)
        before = text[:start] if k == 0 else ""
        comments = ["# newpar"] if k == 0 and starts_line else []
        comments += [f"# sent_id = {line_number}-{first_k + k}", f"# text = {text[start:end]}"]
        rows = rows_of(sent, before, text[end:next_start], k + 1 == len(sents) and line_ends)
        blocks.append("\n".join(comments + ["\t".join(r) for r in rows]) + "\n\n")
    return blocks


def write_conllu(pieces: Iterable[Tuple[Doc, bool]], out: IO[str], first_line: int = 1,
                 rows_of: Rows = sentence_rows) -> int:
    """Write each line's pieces (doc, whether it ends its line) as CoNLL-U (`piece_blocks`); a line
    without a word writes no block (its number is skipped in the sentence ids). `first_line`: the
    number of the first line (a chunk of a file: where it starts). RETURNS the number of lines read."""
    n, k, starts_line = 0, 1, True
    for doc, line_ends in pieces:
        blocks = piece_blocks(doc, first_line + n, k, starts_line, line_ends, rows_of)
        for block in blocks:
            out.write(block)
        k += len(blocks)
        # a piece without a word leaves the paragraph to the next piece of the line
        starts_line = line_ends or (starts_line and not blocks)
        if line_ends:
            n, k = n + 1, 1
    return n


def write_iob2(pieces: Iterable[Tuple[Doc, bool]], out: IO[str], first_line: int = 1) -> int:
    """`write_conllu`'s blocks (`# newpar`, `# sent_id`, `# text`) in Universal NER's columns
    (`iob2_rows`); RETURNS the number of lines read."""
    return write_conllu(pieces, out, first_line, rows_of=iob2_rows)
