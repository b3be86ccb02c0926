"""From scores to word boundaries and trees.

`units` and `user_dict` (gap rules: atomic units and the user dictionary),
`priors` (the training data's decoding priors and the Viterbi chain they
make), `crf` (a BMES CRF tagger's decoding), `trees` (arc scores -> trees and
their relations). Arrays in numpy: neither torch nor the model code is imported
here (a contract), so decoding runs the same after any model on any device.
"""
