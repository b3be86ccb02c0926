"""Treebank conversion: bringing one treebank's annotation to another's conventions before
training, beside the readers (which only read files). `relabel`: UPOS and relations of pre-v2
UD Chinese GSD to UD v2 (a table learned on GSD dev, `gsd_v1_to_v2.json`); `ud_trees`: its heads
moved to UD v2's conventions (punctuation, classifiers, clause chains, names, coordination)."""
