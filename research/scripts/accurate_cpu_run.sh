#!/bin/bash
# accurate (3 x 400) on CPU at the main job's 1,500 steps, on seed 0's segmenter and corpus, today's code
set -e
S0=/work/fresh/s0; OUT=/work/exp/acc
cd /work/main
start=$(date +%s)
OMP_NUM_THREADS=2 python -m spacy train configs/ud_biaffine_accurate.cfg --output $OUT/pipeline \
  --paths.train $S0/corpus/ud_gsd_more/train.spacy --paths.dev $S0/corpus/ud_gsd_more/dev.spacy \
  --paths.segmenter $S0/training/ud_gsd_more.general.tuned/model-best --training.max_steps 1500 --system.seed 0 --gpu-id -1 > $OUT/train.log 2>&1
echo "train seconds $(( $(date +%s) - start ))" > $OUT/times.txt
start=$(date +%s)
OMP_NUM_THREADS=2 python -m spacy_gdcws evaluate-ud $OUT/pipeline/model-best $S0/corpus/ud_gsd_more/test.conllu \
  --output $OUT/ud_gsd_more_pipeline_accurate.json > $OUT/eval.log 2>&1
echo "evaluate seconds $(( $(date +%s) - start ))" >> $OUT/times.txt
