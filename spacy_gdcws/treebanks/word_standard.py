"""One segmentation standard for the segmenter's training words: the words of further treebanks
brought to the standard of the first training file (#68).

UD Chinese HK, CFL and PUD join words that GSD splits (候选人, 立法会, 地中海: GSD writes 候选 人,
立法 会, 地中 海) and split a few that GSD writes whole. A segmenter trained on their words as
released scored 0.6-0.8 words F lower on held-out GSDSimp dev than one trained on GSD alone, and one
trained on GSD alone lost 1.4 F out of the box on six other corpora
(`research/metrics/main_job/pipeline_design/segmenter_words/`). `WordStandard` keeps their
sentences and changes only the words the first file writes otherwise:

- a word the first file never writes whole, but writes as a run of 2-4 words, is split as the first
  file splits it most often;
- a run of 2-4 words the first file writes whole (twice or more) and never as a run is joined.

Strings are compared after the segmenter's character normalization (t2s and width, length
preserving), so traditional HK and PUD words meet GSD's simplified ones. The parser's data keeps the
treebanks' own words and trees: only the segmenter reads these.
"""
from collections import Counter, defaultdict
from typing import DefaultDict, Iterable, List, Tuple

from spacy_gdcws.data.normalize import get_normalizer
from spacy_gdcws.readers.base import Sentence

#: the longest run of the standard's words a word is matched against
MAX_RUN = 4
#: how often the standard must write a word whole before a run of words is joined into it
MIN_WHOLE = 2


class WordStandard:
    """The word boundaries of a treebank, learnt from its sentences (`learn`), and other
    sentences' words brought to them (`convert`).

    normalize (str): The characters compared (`data.normalize`): by default the segmenter's own
        default, traditional and full-width forms as simplified and half-width; "" the text as written.
    """

    def __init__(self, normalize: str = "t2s+width") -> None:
        self.normalize = get_normalizer(normalize).text
        self.whole: Counter = Counter()
        self.runs: DefaultDict[str, Counter] = defaultdict(Counter)

    def learn(self, sentences: Iterable[Sentence]) -> "WordStandard":
        """Count each word written whole and each run of 2-`MAX_RUN` words (with its split)."""
        for sent in sentences:
            words = [self.normalize(w) for w in sent.words]
            self.whole.update(words)
            for n in range(2, MAX_RUN + 1):
                for i in range(len(words) - n + 1):
                    run = words[i: i + n]
                    self.runs["".join(run)][tuple(len(w) for w in run)] += 1
        return self

    def convert(self, sent: Sentence) -> Sentence:
        """`sent` with its words in the standard's boundaries: the same sentence where no word
        changes; else its words only (tags and trees belong to the old words)."""
        words = self.words(sent.words)
        if words == sent.words:
            return sent
        return Sentence(words=words, line=sent.line, meta=dict(sent.meta))

    def words(self, words: List[str]) -> List[str]:
        """The same characters in the standard's words."""
        normalized = [self.normalize(w) for w in words]
        out: List[str] = []
        i = 0
        while i < len(words):
            n = self._join(normalized, i)
            if n:
                out.append("".join(words[i: i + n]))
                i += n
                continue
            out.extend(self._split(words[i], normalized[i]))
            i += 1
        return out

    def _join(self, normalized: List[str], i: int) -> int:
        """The length of the longest run from word i the standard writes as one word (0: none)."""
        for n in range(min(MAX_RUN, len(normalized) - i), 1, -1):
            joined = "".join(normalized[i: i + n])
            if self.whole[joined] >= MIN_WHOLE and joined not in self.runs:
                return n
        return 0

    def _split(self, word: str, normalized: str) -> List[str]:
        if self.whole[normalized] or normalized not in self.runs or len(normalized) != len(word):
            return [word]
        lengths: Tuple[int, ...] = self.runs[normalized].most_common(1)[0][0]
        parts, start = [], 0
        for length in lengths:
            parts.append(word[start: start + length])
            start += length
        return parts
