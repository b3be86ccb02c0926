#!/bin/bash
cd /tmp/mj_new && . /work/main/.venv/bin/activate
export OMP_NUM_THREADS=2
N=$1; shift
s=$(date +%s)
python -m spacy train configs/ud_pipeline.cfg --output training/exp.$N --paths.train corpus/ud_gsd_more/train$TRAIN_SUFFIX.spacy --paths.dev corpus/ud_gsd_more/dev$TRAIN_SUFFIX.spacy --paths.segmenter training/ud_gsd_more.general.tuned/model-best --gpu-id -1 "$@"
python -m spacy_gdcws evaluate-ud training/exp.$N/model-best corpus/ud_gsd_more/test.spacy --output metrics/exp.$N.json
echo "seconds $(( $(date +%s) - s ))"
