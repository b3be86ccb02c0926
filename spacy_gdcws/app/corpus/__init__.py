"""Corpus-scale segmentation on Ray Data (`python -m spacy_gdcws segment-corpus`), streaming.

By role: `files` (the inputs and where their outputs go), `manifest` (what is done, for
resume), `lock` (one driver per output folder), `workers` (read, segment and write parts on the
workers), `run` (the driver: check, plan, run, record), `session` (the Ray a run starts or joins,
quiet on a normal run), `summary` (what a run did; which files may
be committed).

The driver only plans and commits; the corpus never passes through it:

1. Driver, before Ray starts: the inputs are listed (a file, a folder, a glob; local paths or
   any pyarrow filesystem URI: `s3://`, `gs://`, `hdfs://`), the model is loaded once to check
   it (and hashed: its identity), the output folder is checked (not an input, not inside the
   input folder, by real path; made now). Links to folders are not followed; a link to
   nothing, or a codec that cannot be written back (snappy), fails alone. A file whose entry
   in the output folder's manifest matches its size, mtime and the SHA-256 of its bytes,
   the model's identity and the settings is done: skipped (resume).
2. Workers: `LineChunks`, a Ray Data file datasource, streams each file (gzip, bz2, zstd, lz4 by its
   extension) as rows of `batch_size` lines, numbered per file, then one end row with the
   file's number of chunks (or the coded error of a line that is not UTF-8: that file fails,
   the others go on). `map_batches` runs `SegmentActor` in an actor pool (`ActorPoolStrategy`,
   `num_gpus` per actor), each actor loading the pipeline once. `PartsSink` (a `Datasink`)
   writes each chunk's output lines as an ordered part file under a staging folder, on the
   worker, each part atomically (a retried or restarted task rewrites the same part).
3. Commit: a file whose input changed or went while it was read fails alone (E130); one Ray
   task per finished file concatenates its parts in order, streaming, into a temporary file
   beside the target and renames it (compressed with the input's codec); the driver then
   records the file in the manifest and removes the staging folder. The driver holds the output
   folder's lock throughout (`lock`: a second driver is E129; a killed one's parts are cleared by
   the next run).

The output of each file is `segment`'s, byte for byte: one line per input line, empty lines
kept. Needs the `[ray]` extra (E070 without it).
"""
from spacy_gdcws.app.corpus.run import segment_corpus
from spacy_gdcws.app.corpus.summary import Summary

__all__ = ["Summary", "segment_corpus"]
