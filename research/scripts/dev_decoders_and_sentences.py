"""The main job's gdcws_parser on its dev set (corpus/ud_gsd_more/dev.spacy): Eisner (projective) against
Chu-Liu-Edmonds trees, and sentence F (ten dev sentences joined per text) with split_at empty, 。！？ and
。！？；. Paths are the fresh-clone main job's (/tmp/mjf at b40748c)."""
import spacy, json, time, torch
from spacy.tokens import DocBin
from spacy_gdcws.eval.ud_eval import evaluate_pipeline, score_sentences
torch.set_num_threads(1)
out = {}
for proj in (True, False):
    nlp = spacy.load("/tmp/mjf/training/ud_gsd_more.general.pipeline/model-best", config={"components": {"parser": {"projective": proj}}})
    golds = list(DocBin().from_disk("/tmp/mjf/corpus/ud_gsd_more/dev.spacy").get_docs(nlp.vocab))
    t = time.perf_counter(); r = evaluate_pipeline(nlp, golds); dt = time.perf_counter() - t
    out[f"projective={proj}"] = {k: {m: round(v["f"] * 100, 2) for m, v in r[k].items()} for k in ("predicted_segmentation", "gold_segmentation")}
    out[f"projective={proj}"]["seconds"] = round(dt, 1)
    for split in ([], ["。", "！", "？", "!", "?", "…", "……"], ["。", "！", "？", "!", "?", "…", "……", "；", ";"]):
        nlp2 = spacy.load("/tmp/mjf/training/ud_gsd_more.general.pipeline/model-best", config={"components": {"parser": {"projective": proj, "split_at": split}}})
        out[f"projective={proj}"][f"sentences split_at={len(split)}"] = {k: round(v * 100, 2) for k, v in score_sentences(nlp2, golds).items()}
print(json.dumps(out, indent=1, ensure_ascii=False))
