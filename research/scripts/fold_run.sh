#!/bin/bash
# One second-stage run of the two-fold question on GSDSimp dev (heldout_gsdsimp_dev.py --folds):
#   research/scripts/fold_run.sh NAME CORPUSDIR FOLD VARIANT [overrides...]
# trains configs/ud_biaffine.cfg (the main job's 2,000 steps, one thread) on
# CORPUSDIR/train_nogsdsimp_FOLD_VARIANT.spacy with the frozen segmenter $SEG, selects on
# dev_nogsdsimp.spacy, and scores the other half of GSDSimp dev (gsdsimp_dev_not_FOLD.spacy)
# with evaluate-ud into $RUNS/NAME/dev.json.
name=$1; corpus=$2; fold=$3; variant=$4; shift 4
cd "$(dirname "$0")/../.."
export OMP_NUM_THREADS=${THREADS:-1}
out=${RUNS:-/work/exp/runs}/$name
mkdir -p "$out"
start=$(date +%s)
python -m spacy train configs/ud_biaffine.cfg --output "$out/train" --paths.train "$corpus/train_nogsdsimp_${fold}_${variant}.spacy" \
  --paths.dev "$corpus/dev_nogsdsimp.spacy" --paths.segmenter "${SEG:-/work/before/segmenter}" --training.max_steps ${STEPS:-2000} "$@" > "$out/train.log" 2>&1
end=$(date +%s)
python -m spacy_gdcws evaluate-ud "$out/train/model-best" "$corpus/gsdsimp_dev_not_${fold}.spacy" --output "$out/dev.json" > "$out/eval.log" 2>&1
echo "$name train_s=$((end-start))" >> "$out/eval.log"
