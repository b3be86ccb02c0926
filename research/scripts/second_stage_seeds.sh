#!/usr/bin/env bash
# More random seeds of the main job's second stage on its own frozen segmenter and data, each scored
# from raw text on GSDSimp test with evaluate-ud (the main job itself is seed 0). Run in the main
# job's folder after `spacy project run all`; one thread per run, the runs side by side.
#
#   bash research/scripts/second_stage_seeds.sh MAIN_JOB_DIR OUT_DIR 1 2
set -euo pipefail
dir=$1 out=$2
shift 2
mkdir -p "$out"
for seed in "$@"; do
  (cd "$dir" && OMP_NUM_THREADS=1 python -m spacy train configs/ud_biaffine.cfg --output "training/seed$seed" \
     --paths.train corpus/ud_gsd_more/train.spacy --paths.dev corpus/ud_gsd_more/dev.spacy \
     --paths.segmenter training/ud_gsd_more.general.tuned/model-best --training.max_steps 1500 \
     --system.seed "$seed" > "$out/seed$seed.log" 2>&1 \
   && OMP_NUM_THREADS=1 python -m spacy_gdcws evaluate-ud "training/seed$seed/model-best" corpus/ud_gsd_more/test.spacy \
     --output "$out/seed$seed.json" >> "$out/seed$seed.log" 2>&1) &
done
wait
