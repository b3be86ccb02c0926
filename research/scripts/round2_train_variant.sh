#!/bin/bash
# usage: run.sh NAME CORPUSDIR STEPS [extra overrides...]
name=$1; corpus=$2; steps=$3; shift 3
cd /work/main
export OMP_NUM_THREADS=${THREADS:-1}
out=/work/exp/runs/$name
mkdir -p $out
start=$(date +%s)
python -m spacy train ${CONFIG:-configs/ud_biaffine.cfg} --output $out/train --paths.train $corpus/train_nogsdsimp.spacy --paths.dev $corpus/dev_nogsdsimp.spacy --paths.segmenter ${SEG:-/work/before/segmenter} --training.max_steps $steps "$@" > $out/train.log 2>&1
end=$(date +%s)
python -m spacy_gdcws evaluate-ud $out/train/model-best $corpus/gsdsimp_dev.spacy --output $out/dev.json > $out/eval.log 2>&1
echo "$name train_s=$((end-start))" >> $out/eval.log
python /work/exp/show.py $out/dev.json
: <<PY
import json; d=json.load(open("$out/dev.json"))
r={k:round(v["f"]*100,2) for k,v in d["predicted_segmentation"].items()}; g={k:round(v["f"]*100,2) for k,v in d["gold_segmentation"].items()}
print("$name", "raw", r, "gold", {k:g[k] for k in ("upos","uas","las")})
PY
