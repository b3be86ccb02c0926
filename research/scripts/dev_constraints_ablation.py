"""Each relation constraint of `dev_constraints.py` alone (R_d2s2000 on held-out GSDSimp dev)."""
import sys, numpy, spacy
from spacy.tokens import DocBin
import spacy_gdcws.decoding.constraints as C
import spacy_gdcws.parse.component as PC
from spacy_gdcws.eval.ud_eval import evaluate_pipeline
nlp = spacy.load("/work/exp/runs/R_d2s2000/train/model-best")
comp = nlp.get_pipe("parser")
comp.cfg["tag_pairs"] = []
golds = list(DocBin().from_disk("/work/exp/B/gsdsimp_dev.spacy").get_docs(nlp.vocab))
orig = C.relation_masks
def no_subj(labels):
    l, s = orig(labels); return l, numpy.zeros_like(s)
def no_dir(labels):
    l, s = orig(labels); return numpy.zeros_like(l), s
for name, f in (("dir_only", no_subj), ("subj_only", no_dir)):
    PC.relation_masks = f
    r = evaluate_pipeline(nlp, golds)
    print(name, {w: round(100*r[w]["las"]["f"], 2) for w in ("predicted_segmentation", "gold_segmentation")}, flush=True)
