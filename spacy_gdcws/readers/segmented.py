"""`spacy_gdcws.SegmentedCorpus.v1`: a DocBin's examples with the frozen segmenter's words as the
predicted docs, segmented once and kept (the segmenter does not change while the second stage
trains), instead of re-segmenting every batch as an annotating component would. The reader of the
parser's training, beside `corpus.py`'s of the segmenter's."""
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.util import registry

from spacy_gdcws.errors import Errors


@registry.readers("spacy_gdcws.SegmentedCorpus.v1")
def create_segmented_corpus(path: Path, segmenter: str = "segmenter", limit: int = 0,
                            batch_size: int = 256) -> Callable[[Language], Iterator[Example]]:
    """Examples of the DocBin at `path` whose predicted docs are the words the pipeline's
    `segmenter` gives their text (computed on the first pass, then reused).

    path (Path): A DocBin of gold docs (words, tags, trees).
    segmenter (str): The name of the pipeline's gdcws_segmenter (frozen in the config).
    limit (int): Use at most this many docs (0 = all).
    batch_size (int): Docs per segmenter batch on the first pass.
    """
    return _SegmentedCorpus(Path(path), segmenter, limit, batch_size)


class _SegmentedCorpus:
    """Picklable reader behind `spacy_gdcws.SegmentedCorpus.v1`."""

    def __init__(self, path: Path, segmenter: str, limit: int, batch_size: int) -> None:
        self.path, self.segmenter, self.limit, self.batch_size = path, segmenter, limit, batch_size
        self._words: Optional[List[Tuple[List[str], List[bool]]]] = None

    def __call__(self, nlp: Language) -> Iterator[Example]:
        if not self.path.exists():
            raise ValueError(Errors.E016.format(path=self.path, message="no such file"))
        refs = list(DocBin().from_disk(self.path).get_docs(nlp.vocab))
        if self.limit:
            refs = refs[: self.limit]
        if self._words is None or len(self._words) != len(refs):
            pipe = nlp.get_pipe(self.segmenter)
            segmented = pipe.pipe((nlp.make_doc(ref.text) for ref in refs), batch_size=self.batch_size)
            self._words = [([t.text for t in doc], [bool(t.whitespace_) for t in doc]) for doc in segmented]
        for ref, (words, spaces) in zip(refs, self._words):
            yield Example(Doc(nlp.vocab, words=words, spaces=spaces), ref)
