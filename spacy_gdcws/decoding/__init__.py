"""From scores to word boundaries.

`units` and `user_dict` (gap rules: atomic units and the user dictionary),
`priors` (the training data's decoding priors and the Viterbi chain they
make), `crf` (a BMES CRF tagger's decoding). numpy only: no torch here.
"""
