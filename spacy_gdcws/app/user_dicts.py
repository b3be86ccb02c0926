"""User dictionary files named on a command line (`--user-dict PATH[:MODE]`), loaded into a pipeline."""
from pathlib import Path
from typing import Optional, Sequence, Tuple, Union

from spacy.language import Language

from spacy_gdcws.decoding.user_dict import WORD_MODES
from spacy_gdcws.pipeline.names import find_segmenter


def split_dict_spec(spec: Union[str, Path], default_mode: str = "force") -> Tuple[str, str]:
    """`PATH` or `PATH:MODE` (a `--user-dict` value) -> (path, mode)."""
    head, sep, tail = str(spec).rpartition(":")
    if sep and head and tail in WORD_MODES:
        return head, tail
    return str(spec), default_mode


def load_user_dicts(nlp: Language, specs: Sequence[Union[str, Path]], default_mode: str = "force",
                    encoding: Optional[str] = None, strict: bool = False) -> int:
    """Load user dictionary files (`PATH` or `PATH:MODE`, any format of
    `decoding.dictionary_files`, in `encoding`) into the pipeline's segmenter, each
    file whole in one table build (a bad line left out with a warning, or, `strict`, the file
    refused). RETURNS the number of entries."""
    segmenter = nlp.get_pipe(find_segmenter(nlp))
    return sum(segmenter.load_user_dict(*split_dict_spec(spec, default_mode), encoding, strict) for spec in specs)
