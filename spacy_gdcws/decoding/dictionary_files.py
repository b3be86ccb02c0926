"""User dictionary files, in the formats users have, read whole before anything is loaded.

One entry a line (fields separated by spaces or tabs):

- `WORD`: the word, with the mode the file is loaded with;
- `WORD MODE`: a mode of `user_dict.WORD_MODES` (`force`, `prefer`, `combine`, in any case:
  `Prefer`, `PREFER`); a mode may also follow a word and its frequency, or precede the
  frequency (`北京 prefer 5`, `北京 5 prefer`), and a pkuseg line may give it as its tag
  (`北京<TAB>prefer`);
- jieba's `WORD [FREQ] [TAG]` (jieba's own grammar, `^(.+?)( [0-9]+)?( [a-z]+)?$`:
  `云计算 5 n`, `凱特琳 nz`); a tag without a frequency must be one of jieba's tags
  (`JIEBA_TAGS`), so that a misspelt mode (`上海 prefered`) is not taken for one;
- HanLP's `WORD TAG FREQ [TAG FREQ ...]` (`印象笔记 nz 1024`; the frequencies are summed);
- pkuseg's `WORD<TAB>TAG`: a tag only after a tab.

Frequencies are whole numbers (jieba writes some as `3.0`). Empty lines and lines that
start with `#` are skipped; a byte-order mark may start any line (files concatenated);
CRLF is fine. A line that jieba's grammar reads as a word with spaces (`Edu Trust认证 2000`, `New
York`) gives that phrase (`user_dict`: kept as one token where the text has it). Anything else is a
bad line (`   12 北京`, a frequency too large for 64 bits): as jieba does, it is left out and the
rest loads, with a warning naming file and line (W002) and a count (W003); `strict=True` refuses the
file at it (E015). A line is never half read. A word listed twice takes its last line's mode and
frequency. Files are UTF-8
unless `encoding` says otherwise (GBK, GB18030, ...); a UTF-16 file with its byte-order
mark is read as UTF-16.
"""
import codecs
import re
import warnings
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Tuple, Union

from spacy_gdcws.decoding.user_dict import (
    MAX_FREQ,
    WORD_MODES,
    UserDictionary,
    check_mode,
    check_word,
)
from spacy_gdcws.errors import Errors, Warnings

Entry = Tuple[str, str, Optional[int]]
# the bad lines of one file named in a warning each (the rest are counted in the summary)
MAX_LINE_WARNINGS = 20


class DictLine(NamedTuple):
    """One line of a dictionary file: the word, its mode, its frequency and its part of speech
    (None where the line gives none); `other_reading`: jieba's grammar would read the line as a phrase
    (a HanLP line, `印象笔记 nz 1024`: jieba's phrase `印象笔记 nz`, frequency 1024)."""

    word: str
    mode: str
    freq: Optional[int]
    tag: Optional[str]
    other_reading: bool = False
# jieba's part-of-speech tags (those of its dict.txt, and `eng` of its sample user dictionary)
JIEBA_TAGS = frozenset(
    "a ad ag an b c d df dg e eng f g h i j k l m mg mq n ng nr nrfg nrt ns nt nz o p q r rg rr rz s t tg u "
    "ud ug uj ul uv uz v vd vg vi vn vq x y z zg".split())
# HanLP's parts of speech (HanLP 1.x `Nature`: the ICTCLAS set and its extensions), which a HanLP line's
# tags must be: a lowercase word that is none (`小米 note 3`, `hello kitty 5`) is part of a jieba phrase
HANLP_TAGS = JIEBA_TAGS | frozenset(
    "al begin bg bl cc dl en end gb gbc gc gg gi gm gp mg nb nba nbc nbp nf nh nhd nhm ni nic nis nit nl nm "
    "nmc nn nnd nnt nr1 nr2 nrf nrj nsf nth ntc ntcb ntcf ntch nto nts ntu nx pba pbei qg qt qv rys ryt ryv ry "
    "rzs rzt rzv ude1 ude2 ude3 udeng udh uguo ule ulian uls usuo uyy uzhe uzhi vf vg vi vl vshi vx vyou w "
    "wb wd wf wh wj wky wkz wm wn wp ws wt ww wyy wyz xu xx yg".split())
# a tag as jieba writes one after a frequency, and as HanLP and pkuseg write theirs (ASCII; HanLP's
# and jieba's start lowercase: `New York 20` is a phrase and its frequency, not a word, a tag and a count)
_JIEBA_TAG = re.compile(r"[a-z]+")
_TAG = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# jieba's grammar of a dictionary line (jieba/__init__.py `re_userdict`)
_JIEBA_LINE = re.compile(r"^(.+?)( [0-9]+)?( [a-z]+)?$")
# jieba's dict.txt line, `word freq tag` with single spaces
_WORD_FREQ_TAG = re.compile(r"(\S+) ([0-9]+) ([a-z]+)")


def read_user_dict(path: Union[str, Path], default_mode: str = "force",
                   encoding: Optional[str] = None, strict: bool = False) -> List[Entry]:
    """Entries (word, mode, freq) of a dictionary file, each word once (its last line).

    path (Union[str, Path]): The file.
    default_mode (str): The mode of words given without one.
    encoding (Optional[str]): The file's encoding (None: UTF-8, or UTF-16 by its BOM).
    strict (bool): Refuse the whole file at its first bad line (E015), instead of leaving the
        line out with a warning naming file and line (W002) and a summary (W003), as jieba does.
    RETURNS (List[Entry]): In the order of each word's last line.
    """
    check_mode(default_mode)
    entries: Dict[str, Entry] = {}
    for entry in read_entries(path, default_mode, encoding, strict):
        entries.pop(entry.word, None)  # the last line of a word wins
        entries[entry.word] = (entry.word, entry.mode, entry.freq)
    return list(entries.values())


def read_entries(path: Union[str, Path], default_mode: str = "force", encoding: Optional[str] = None,
               strict: bool = True) -> Iterator[DictLine]:
    """Every entry line of a dictionary file, in order (`parse_line`); a bad line is E015 (`strict`) or
    left out with a warning (`text_lines`)."""
    path = Path(path)
    return text_lines(_read(path, encoding), str(path), default_mode, strict)


def text_lines(text: str, source: str, default_mode: str = "force", strict: bool = True) -> Iterator[DictLine]:
    """Every entry line of a dictionary's text, in order. A bad line: with `strict`, E015 naming
    `source` and the line (nothing is loaded); else the line is left out with a warning naming them
    (W002; the first `MAX_LINE_WARNINGS` lines), and a summary counts what was left out (W003)."""
    skipped = n = other = 0
    first_other: Tuple[int, str, DictLine] = (0, "", DictLine("", default_mode, None, None))
    # lines end at LF (CRLF too), as jieba reads them: str.splitlines would also cut a line at a form
    # feed, a vertical tab, FS/GS/RS, NEL or U+2028/2029 inside it (`上\x0c海`), and number the rest wrong
    for number, line in enumerate(text.split("\n"), 1):
        line = line[:-1] if line.endswith("\r") else line
        line = line.lstrip("\ufeff")
        # trailing whitespace is no field (`北京<TAB>`, `北京 5<TAB>`: jieba strips it too)
        line = line.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        n += 1
        try:
            entry = parse_line(line, default_mode)
            if entry.other_reading:
                other += 1
                if other == 1:
                    first_other = (number, line, entry)
            yield entry
        except ValueError as err:
            if strict:
                raise ValueError(Errors.E015.format(path=source, line=number, message=err)) from None
            skipped += 1
            if skipped <= MAX_LINE_WARNINGS:
                warnings.warn(Warnings.W002.format(path=source, line=number, message=err), stacklevel=2)
    if skipped:
        warnings.warn(Warnings.W003.format(path=source, skipped=skipped, n=n), stacklevel=2)
    if other:
        number, line, entry = first_other
        warnings.warn(Warnings.W005.format(path=source, n=other, line=number, text=line, word=entry.word,
                                           tag=entry.tag, freq=entry.freq), stacklevel=2)


def tagged_lexicon(lines: Iterable[DictLine]) -> Dict[str, Tuple[int, str]]:
    """A lexicon with parts of speech, word -> (frequency, tag), from a dictionary's lines that give
    both (jieba's `dict.txt`, `word freq tag`; HanLP's `word tag freq`): what the parser's lexicon
    features read (`read_entries(path)` or `text_lines(text, source)`). A line without a frequency
    counts 0, without a tag "" (a word listed twice: its last line)."""
    return {e.word: (e.freq or 0, e.tag or "") for e in lines}


def parse_line(line: str, default_mode: str) -> DictLine:
    """The word, mode, frequency and tag of one line (see the module docstring); ValueError if in
    no format."""
    match = _WORD_FREQ_TAG.fullmatch(line)
    if match is not None and match.group(1) not in WORD_MODES and match.group(3) not in WORD_MODES:
        # jieba's dict.txt line: the common case, read at once
        return DictLine(check_word(match.group(1)), default_mode, _count(match.group(2)), match.group(3))
    parts = line.split("\t")
    if len(parts) == 2 and not _is_count(parts[1].strip()):
        head, tag = (part.strip() for part in parts)  # pkuseg: a tag (or a mode) after a tab
        if _mode(tag):
            return DictLine(check_word(head), _mode(tag), None, None)
        if not _TAG.fullmatch(tag):
            raise ValueError(Errors.E097.format(line=line))
        return DictLine(check_word(head), default_mode, None, tag)
    fields = line.split()
    word, rest = fields[0], fields[1:]
    modes = [_mode(field) for field in rest if _mode(field)]
    # a mode is one of the last two fields (`WORD MODE`, `WORD MODE FREQ`, `WORD FREQ MODE`, and so for a phrase)
    if len(modes) > 1 or (modes and not any(_mode(f) for f in fields[-2:])):
        raise ValueError(Errors.E097.format(line=line))
    mode = modes[0] if modes else default_mode
    rest = [field for field in rest if not _mode(field)]
    if not rest:
        return DictLine(check_word(word), mode, None, None)
    if _is_count(rest[0]) and (len(rest) == 1 or (len(rest) == 2 and _JIEBA_TAG.fullmatch(rest[1]))):
        return DictLine(check_word(word), mode, _count(rest[0]), rest[1] if len(rest) == 2 else None)  # jieba: WORD FREQ [TAG]
    if len(rest) == 1 and rest[0] in JIEBA_TAGS and not modes:
        return DictLine(check_word(word), mode, None, rest[0])  # jieba: WORD TAG
    if len(rest) % 2 == 0 and all(t in HANLP_TAGS and _is_count(f) for t, f in zip(rest[::2], rest[1::2])):
        # HanLP: parts of speech and frequencies; jieba's grammar would read a phrase here (W005, once a file)
        return DictLine(check_word(word), mode, min(sum(_count(f) for f in rest[1::2]), MAX_FREQ), rest[0],
                        other_reading=not modes and len(rest) == 2 and _JIEBA_LINE.match(line) is not None)
    # jieba's own grammar, the line's mode (if any) left out: the fields before FREQ and TAG are one word,
    # a phrase (`Edu Trust认证 2000`, `小米 note 3`, `Edu Trust认证 prefer`)
    unmoded = " ".join(f for f in fields if not _mode(f)) if modes else line.strip()
    jieba = _JIEBA_LINE.match(unmoded)
    if jieba is not None and " " in jieba.group(1) and not line[:1].isspace() \
            and not any(_is_count(p) or p in JIEBA_TAGS or _mode(p) for p in jieba.group(1).split(" ")[1:]):
        # not where a part of the phrase is a number, a tag or a mode (`北京 ns ns`), nor on an indented
        # line: mistakes
        freq, tag = jieba.group(2), jieba.group(3)
        return DictLine(check_word(jieba.group(1)), mode, _count(freq.strip()) if freq else None,
                        tag.strip() if tag else None)
    raise ValueError(Errors.E097.format(line=line))


def _mode(field: str) -> Optional[str]:
    """The mode a field names, in any case (`Prefer`, `PREFER`: prefer), or None."""
    lowered = field.lower()
    return lowered if lowered in WORD_MODES else None


def load_user_dict(user_dict: UserDictionary, path: Union[str, Path], mode: str = "force",
                   encoding: Optional[str] = None, strict: bool = False) -> int:
    """Read a dictionary file (`read_user_dict`: a bad line left out with a warning, or, `strict`,
    the file refused) and add its words at once, by mode, with their frequencies. RETURNS the
    number of entries."""
    entries = read_user_dict(path, mode, encoding, strict)
    by_mode: Dict[str, List[str]] = {}
    freqs = {word: freq for word, _, freq in entries if freq is not None}
    for word, word_mode, _ in entries:
        by_mode.setdefault(word_mode, []).append(word)
    for word_mode, words in by_mode.items():
        user_dict.add(words, word_mode, freqs)
    return len(entries)


def _read(path: Path, encoding: Optional[str]) -> str:
    """The file's text (E016 if it cannot be read or decoded; E015 names the first bad line)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ValueError(Errors.E016.format(path=path, message=err)) from None
    if encoding is None and data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    encoding = encoding or "utf-8-sig"
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise ValueError(Errors.E016.format(path=path, message=f"unknown encoding {encoding!r}")) from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data[: err.start].decode(encoding, errors="replace").count("\n") + 1
        raise ValueError(Errors.E015.format(path=path, line=line, message=(
            f"not valid {encoding} ({err.reason}): give the file's encoding (--encoding, encoding=)"))) from None


def _is_count(text: str) -> bool:
    """A frequency: digits, with at most one decimal point (jieba writes `3.0`)."""
    return text.replace(".", "", 1).isdigit()


def _count(text: str) -> int:
    """A frequency as a whole number (E096 beyond 64 bits: a saved dictionary could not hold it)."""
    value = int(text.split(".", 1)[0])
    if value > MAX_FREQ:
        raise ValueError(Errors.E096.format(max=MAX_FREQ, freq=text, word="this line's word"))
    return value
