"""Where each known corpus lives inside a corpora folder, and its format.

The layout is that of the official releases (and of `spacy project assets`):
a folder holding `sighan2005/`, `sxu/`, `ud_zh/`, `zhuxian/`.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

from spacy_gdcws.errors import Errors


@dataclass(frozen=True)
class CorpusSpec:
    """Files of one corpus, relative to the corpora folder.

    train: training file (dev = its last 10% by default).
    test: gold test file.
    fmt: reader format of train and test.
    raw: raw test text, where the release has one (else gold without spaces).
    dictionary: official training vocabulary, where the release has one
        (else built from the training file).
    more_train: further training files, each split into train and dev the
        same way, concatenated after the first (in `more_fmt`, default `fmt`).
    relabel: the relabelling the first training file's annotation needs to
        match the others' (`"gsd_v1_to_v2"`: pre-v2.5 GSD's labels to GSDSimp's UD v2;
        `"gsd_v1_to_v2_trees"`: its labels, trees and punctuation forms).
    dev: a dev file of its own: the first training file is then not split (the more_train files
        still are, their last 10% joining the dev file's sentences).
    train_blob: the training file's git blob id (`git hash-object`), checked by `prepare` for a
        file fetched by `spacy project assets`.
    more_relabel: the relabelling of each more_train file that needs one, as (file, relabelling)
        pairs (`"to_gsdsimp"`: HK, CFL and PUD in GSDSimp's conventions).
    segmenter_standard: more_train files whose words the segmenter learns in the first training
        file's segmentation standard (`treebanks.word_standard`; `prepare` writes them to
        `segmenter_train.spacy` and `segmenter_dev.spacy`, the parser reads them as released).
    entities: the training files that get entities, each with an IOB2 file of the same sentences in
        the same order (Universal NER's: `treebanks.entities` brings its entities to the training
        file's words); the others have none (no entity annotation, not "no entity").
    parse_in: the training file whose treebank the parser parses in (each sentence names its
        treebank, which the parser reads: one convention per treebank); `prepare` marks its
        sentences (`app.prepare.mark_parse_in`), which `gdcws_parser`'s initialize reads. Default:
        none marked, the first training file's.
    """

    train: str
    test: str
    fmt: str
    raw: Optional[str] = None
    dictionary: Optional[str] = None
    # format of the test file where it differs from the training file's
    test_fmt: Optional[str] = None
    # more training files, each split as the first (its last 10% to dev)
    more_train: Tuple[str, ...] = ()
    # a relabelling of the training file's UPOS and relations (spacy_gdcws.treebanks.relabel)
    relabel: Optional[str] = None
    # format of the more_train files where it differs from the training file's
    more_fmt: Optional[str] = None
    dev: Optional[str] = None
    train_blob: Optional[str] = None
    more_relabel: Tuple[Tuple[str, str], ...] = ()
    segmenter_standard: Tuple[str, ...] = ()
    parse_in: Optional[str] = None
    entities: Tuple[Tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.parse_in is not None and self.parse_in not in (self.train, *self.more_train):
            raise ValueError(Errors.E139.format(parse_in=self.parse_in, options=[self.train, *self.more_train]))

    @property
    def test_format(self) -> str:
        return self.test_fmt or self.fmt

    @property
    def more_format(self) -> str:
        return self.more_fmt or self.fmt

    def format_of(self, relative: str) -> str:
        """The reader format of a more_train file: an IOB2 file's by its suffix, else `more_format`."""
        return "iob2" if relative.endswith(".iob2") else self.more_format


def _sighan(name: str, gold: Optional[str] = None) -> CorpusSpec:
    return CorpusSpec(
        train=f"sighan2005/training/{name}_training.utf8",
        test=gold or f"sighan2005/gold/{name}_test_gold.utf8",
        fmt="sighan",
        raw=f"sighan2005/testing/{name}_test.utf8",
        dictionary=f"sighan2005/gold/{name}_training_words.utf8",
    )


_GSDSIMP_DEV_AND_MORE = ("ud_zh/zh_gsdsimp-ud-dev.conllu", "ud_zh_more/zh_hk-ud-test.conllu",
                         "ud_zh_more/zh_cfl-ud-test.conllu", "ud_zh_more/zh_pud-ud-test.conllu")
# HK, CFL and PUD in GSDSimp's conventions (`treebanks.conventions`; chosen on held-out dev: #68)
_TO_GSDSIMP = tuple((path, "to_gsdsimp") for path in _GSDSIMP_DEV_AND_MORE[1:])
# and, for the segmenter, their words in GSD's segmentation standard (`treebanks.word_standard`; #68)
_GSD_WORDS = _GSDSIMP_DEV_AND_MORE[1:]
# Universal NER's entities (CC BY-SA 4.0, shipped): GSDSimp train's are GSD train's sentences, brought
# to the words of the pre-v2.5 copy (`treebanks.entities`), GSDSimp dev's are GSDSimp dev's own words
_UNER_TRAIN, _UNER_DEV = "uner_zh/zh_gsdsimp-ud-train.iob2", "uner_zh/zh_gsdsimp-ud-dev.iob2"
_GSD_ENTITIES = (("ud_zh/train.conll", _UNER_TRAIN), (_GSDSIMP_DEV_AND_MORE[0], _UNER_DEV))

CORPORA: Dict[str, CorpusSpec] = {
    # UD Chinese GSD train (CC BY-NC-SA 4.0, shipped in assets/), tested on UD_Chinese-GSDSimp
    # test (CC BY-SA 4.0, shipped)
    "ud_gsd": CorpusSpec("ud_zh/train.conll", "ud_zh/zh_gsdsimp-ud-test.conllu", "conll", relabel="gsd_v1_to_v2_trees"),
    # the main job's data: GSD train (UD v1 labels and trees converted to UD v2), GSDSimp dev and UD
    # Chinese HK, CFL and PUD (traditional speech, learner essays, traditional news; CC BY-SA),
    # all shipped in assets/ with words, UPOS and dependencies; the parser parses in GSDSimp dev's
    # treebank (the test's own trees as a treebank of their own: two folds of GSDSimp dev, two seeds,
    # +0.25 LAS from raw text and +0.11 on gold words, within noise: research/metrics/main_job/
    # pipeline_design/gsdsimp_row/)
    "ud_gsd_more": CorpusSpec("ud_zh/train.conll", "ud_zh/zh_gsdsimp-ud-test.conllu", "conll", relabel="gsd_v1_to_v2_trees",
                              more_train=_GSDSIMP_DEV_AND_MORE, more_relabel=_TO_GSDSIMP,
                              segmenter_standard=_GSD_WORDS, parse_in=_GSDSIMP_DEV_AND_MORE[0],
                              entities=_GSD_ENTITIES),
    # the main job's data under CC BY-SA alone (a model a commercial user can take): the 500
    # GSDSimp dev sentences (CC BY-SA 4.0) and UD Chinese HK, CFL (CC BY-SA 4.0) and PUD
    # (CC BY-SA 3.0), all shipped; and Universal NER's GSDSimp train (CC BY-SA 4.0, shipped): GSD
    # train's 3,997 sentences in UD v2's words, with their entities but no trees (the segmenter learns
    # their words, the entity tagger their entities, the parser nothing from them); entities of
    # GSDSimp dev from UNER dev; tested on GSDSimp test as the default. The segmenter reads HK's, CFL's
    # and PUD's words as released
    "ud_by_sa": CorpusSpec(_GSDSIMP_DEV_AND_MORE[0], "ud_zh/zh_gsdsimp-ud-test.conllu", "conll",
                           more_train=_GSDSIMP_DEV_AND_MORE[1:] + (_UNER_TRAIN,),
                           entities=((_GSDSIMP_DEV_AND_MORE[0], _UNER_DEV),)),
    # UD_Chinese-GSDSimp's own training file (CC BY-SA 4.0, UD v2 trees: no conversion; not shipped:
    # `spacy project assets --extra` fetches it at eb3aed3, checked against its git blob id) with HK,
    # CFL and PUD, GSDSimp dev as dev: a model that is CC BY-SA throughout (GSD's words, so the
    # segmenter reads HK's, CFL's and PUD's in their standard as for ud_gsd_more)
    "ud_gsdsimp_v2": CorpusSpec("ud_zh/zh_gsdsimp-ud-train.conllu", "ud_zh/zh_gsdsimp-ud-test.conllu", "conll",
                                more_train=_GSDSIMP_DEV_AND_MORE[1:], dev=_GSDSIMP_DEV_AND_MORE[0],
                                train_blob="920b17964ee245a508b9de0f69330f3dca6b1749", segmenter_standard=_GSD_WORDS),
    # openly licensed (CC BY-SA 4.0), shipped in assets/: trains on the 500 dev sentences
    "ud_gsdsimp": CorpusSpec("ud_zh/zh_gsdsimp-ud-dev.conllu", "ud_zh/zh_gsdsimp-ud-test.conllu", "conll"),
    "sxu": CorpusSpec("sxu/train.txt", "sxu/test.txt", "sighan"),
    "ud": CorpusSpec("ud_zh/train.conll", "ud_zh/test.conll", "conll"),
    "zx": CorpusSpec("zhuxian/train.zhuxian.wordpos", "zhuxian/test.zhuxian.wordpos", "wordpos"),
    "pku": _sighan("pku"),
    "msr": _sighan("msr"),
    "as": _sighan("as", "sighan2005/gold/as_testing_gold.utf8"),
    "cityu": _sighan("cityu"),
}


def get_corpus(name: str) -> CorpusSpec:
    if name not in CORPORA:
        raise ValueError(Errors.E017.format(fmt=name, options=sorted(CORPORA)))
    return CORPORA[name]


def resolve(corpora_dir: Path, relative: str) -> Path:
    return Path(corpora_dir) / relative
