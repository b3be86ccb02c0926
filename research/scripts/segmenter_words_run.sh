#!/bin/bash
# usage: segmenter_words_run.sh OUT NAME SEED   (after segmenter_words_variants.py HELDOUT OUT)
# Trains configs/general.cfg (the main job's segmenter, 1,500 steps) on OUT/NAME, then scores its words
# on the 500 held-out GSDSimp dev sentences (evaluate-ud, raw text). THREADS (default 1) torch threads.
set -eu
out=$1; name=$2; seed=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)
export OMP_NUM_THREADS=${THREADS:-1}
run=$out/runs/${name}_s$seed
mkdir -p "$run"
cd "$repo"
python -m spacy train configs/general.cfg --output "$run/train" --paths.train "$out/$name/train.spacy" \
  --paths.dev "$out/$name/dev.spacy" --paths.curve "$run/curve.jsonl" --training.max_steps 1500 \
  --system.seed "$seed" > "$run/train.log" 2>&1
python -m spacy_gdcws evaluate-ud "$run/train/model-best" "${HELDOUT:-$out}/gsdsimp_dev.spacy" \
  --output "$run/dev.json" > "$run/eval.log" 2>&1
python -c "import json, sys; d = json.load(open(sys.argv[1])); print(sys.argv[2], d['predicted_segmentation']['words'])" \
  "$run/dev.json" "${name}_s$seed"
