"""The application floor: what the commands do, below the command line.

`segment` (text and files in, words out), `pieces` (long lines cut at sentence ends),
`precision` (torch threads, fp32 / bf16 / int8), `user_dicts` (dictionary files named on a
command line), `ensemble` (trained pipelines combined into one), `tuning` (decoding weights
chosen on dev), `baselines` (pkuseg retrained on a corpus), `prepare` (a known corpus read,
brought to one annotation, split and written for training) and `corpus` (corpus-scale
segmentation on Ray Data). Everything below it (`pipeline`, `ml`, `decoding`, `data`, ...)
works without it; `cli` sits on top, and only reports.
"""
