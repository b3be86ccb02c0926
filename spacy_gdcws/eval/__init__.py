"""Scoring: the registered segmentation scorer, the SIGHAN scorer (perl and a
Python port), evaluation of a pipeline on a gold file, and downstream (UD,
NER) evaluation on predicted words."""
