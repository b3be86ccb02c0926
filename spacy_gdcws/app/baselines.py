"""Baseline segmenters that users compare against: pkuseg retrained on a corpus's
training split (the same sentences our models train on)."""
import tempfile
import time
from pathlib import Path
from typing import List, Union

import srsly
from spacy.tokens import DocBin
from spacy.vocab import Vocab

from spacy_gdcws.errors import Errors
from spacy_gdcws.io import current_umask, replace_dir
from spacy_gdcws.pipeline.words import doc_words


def docbin_gold_lines(path: Union[str, Path]) -> List[str]:
    """The reference docs of a .spacy file as SIGHAN lines (words two spaces apart)."""
    docs = DocBin().from_disk(path).get_docs(Vocab())
    return ["  ".join(doc_words(doc)) for doc in docs]


def train_pkuseg(train: Union[str, Path], dev: Union[str, Path], output: Union[str, Path],
                 iterations: int = 20) -> float:
    """Train spacy-pkuseg on the gold words of `train` (.spacy), with `dev` as its
    monitoring file, into the folder `output` (replaced only once training ends).
    RETURNS the training time in seconds (also in `output/training.json`)."""
    try:
        import spacy_pkuseg
    except ImportError as err:
        raise ImportError(Errors.E076.format(error=err)) from None
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}.", dir=str(output.parent)))
    work.chmod(0o777 & ~current_umask())  # mkdtemp makes it 0700; the output folder gets the usual mode
    for name, source in (("train", train), ("dev", dev)):
        (work / f"{name}.txt").write_text("".join(f"{line}\n" for line in docbin_gold_lines(source)), encoding="utf8")
    start = time.perf_counter()
    spacy_pkuseg.train(str(work / "train.txt"), str(work / "dev.txt"), str(work), train_iter=iterations)
    seconds = time.perf_counter() - start
    srsly.write_json(work / "training.json", {"seconds": round(seconds, 1), "train_iter": iterations, "threads": 1,
                                              "train": str(train), "dev": str(dev)})
    replace_dir(work, output)
    return seconds
