"""The application floor: what uses a loaded pipeline.

`segment` (text and files in, words out), `precision` (torch threads, fp32 /
bf16 / int8), `user_dicts` (dictionary files named on a command line),
`ensemble` (trained pipelines combined into one), `tuning` (decoding weights
chosen on dev), `baselines` (pkuseg retrained on a corpus) and `corpus`
(corpus-scale segmentation on Ray Data). Everything below it (`pipeline`,
`ml`, `decoding`, `data`, ...) works without it; `cli` sits on top.
"""
