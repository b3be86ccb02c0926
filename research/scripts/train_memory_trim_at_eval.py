"""Experiment: the main job's segmenter training with glibc's malloc_trim(0) before each evaluation's RSS sample."""
import ctypes
import sys

from spacy_gdcws.training import loggers

libc = ctypes.CDLL("libc.so.6")
inner = loggers.LearningCurveWriter.log_step


def log_step(self, info):
    if info is not None:
        libc.malloc_trim(0)
    return inner(self, info)


loggers.LearningCurveWriter.log_step = log_step
from spacy.cli.train import train  # noqa: E402

train(sys.argv[1], sys.argv[2], use_gpu=-1, overrides={
    "paths.train": "/tmp/mj_final/corpus/ud_gsd_more/train.spacy", "paths.dev": "/tmp/mj_final/corpus/ud_gsd_more/dev.spacy",
    "paths.curve": sys.argv[3], "training.max_steps": 1500})
