#!/bin/bash
# usage: train.sh NAME W BW ITER [extra]
set -e
cd /tmp/mj_default
. /work/main/.venv/bin/activate
N=$1; W=$2; BW=$3; IT=$4; shift 4
export OMP_NUM_THREADS=2
s=$(date +%s)
python -m spacy train /work/main/configs/general.cfg --output training/cand.$N --paths.train corpus/ud_gsd_more/train.spacy --paths.dev corpus/ud_gsd_more/dev.spacy --paths.curve metrics/curves/cand.$N.jsonl --training.max_steps 1500 --gpu-id -1 \
  --components.segmenter.model.embed.width $W --components.segmenter.model.embed.bigram_width $BW --components.segmenter.model.encoder.width $W --components.segmenter.model.scorer.width $W --components.segmenter.model.encoder.iterations $IT "$@"
python -m spacy_gdcws tune-decoding training/cand.$N/model-best corpus/ud_gsd_more/dev.spacy training/cand.$N.tuned/model-best --report metrics/decoding/cand.$N.json --granularity fine
python -m spacy_gdcws evaluate training/cand.$N.tuned/model-best corpus/ud_gsd_more/test_gold.txt corpus/ud_gsd_more/words.txt --raw corpus/ud_gsd_more/test_raw.txt --output metrics/cand.$N.json --pred-output predictions/cand.$N.txt --name cand.$N
echo "seconds $(( $(date +%s) - s ))"
