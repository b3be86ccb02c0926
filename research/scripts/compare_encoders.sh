#!/usr/bin/env bash
# Train the four encoders on one corpus with one budget and score each with the official scorer.
#   bash research/scripts/compare_encoders.sh CORPUS STEPS [CONFIGS...]
# CORPUS: a folder of corpus/ written by `python -m spacy_gdcws prepare` (sxu, ud, zx).
# With EVAL_ONLY=1, models already trained are evaluated again, not retrained. SUFFIX (e.g. _5000)
# is appended to CONFIG in every output name, for runs beside the equal-budget ones. EXTRA holds more
# `spacy train` overrides (e.g. pretrained vectors: docs/encoders.md). MODEL=model-last scores the last
# model instead of the one best on dev (for a corpus whose dev file is part of its training file).
# Writes training/enc/CORPUS.CONFIG/ (model-best, train.log), research/metrics/encoders/CORPUS.CONFIG.json,
# research/metrics/encoders/curves/CORPUS.CONFIG.jsonl; greedy decoding (no tune-decoding), so every encoder
# is compared on its model alone. With CORPUS = sxu, the SXU models are also scored on the ZX and UD
# test files (cross-domain: research/metrics/encoders/sxu_to_zx.CONFIG.json, sxu_to_ud.CONFIG.json).
set -euo pipefail
corpus=$1
steps=$2
shift 2
configs=${*:-idcnn bilstm san default}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p research/metrics/encoders/curves predictions/encoders training/enc
suffix=${SUFFIX:-}
for cfg in $configs; do
  name=$cfg$suffix
  out=training/enc/$corpus.$name
  mkdir -p "$out"
  start=$(date +%s)
  if [ "${EVAL_ONLY:-0}" = 1 ] && [ -d "$out/model-best" ]; then
    echo "$corpus.$name: evaluating the trained model again"
  else
  python -m spacy train configs/$cfg.cfg --paths.train corpus/$corpus/train.spacy --paths.dev corpus/$corpus/dev.spacy \
    --output "$out" --training.max_steps "$steps" --training.optimizer.learn_rate.total_steps "$steps" \
    --training.eval_frequency 250 --paths.curve research/metrics/encoders/curves/$corpus.$name.jsonl ${EXTRA:-} > "$out/train.log" 2>&1
  echo "$corpus.$name trained in $(( $(date +%s) - start )) s" >> "$out/train.log"
  fi
  python -m spacy_gdcws evaluate "$out/${MODEL:-model-best}" corpus/$corpus/test_gold.txt corpus/$corpus/words.txt \
    --raw corpus/$corpus/test_raw.txt --output research/metrics/encoders/$corpus.$name.json \
    --pred-output predictions/encoders/$corpus.$name.txt --perl-script spacy_gdcws/eval/sighan_score/score --name $corpus.$name
  if [ "$corpus" = sxu ]; then
    for target in zx ud; do
      python -m spacy_gdcws evaluate "$out/${MODEL:-model-best}" corpus/$target/test_gold.txt corpus/sxu/words.txt \
        --raw corpus/$target/test_raw.txt --output research/metrics/encoders/sxu_to_$target.$name.json \
        --pred-output predictions/encoders/sxu_to_$target.$name.txt --perl-script spacy_gdcws/eval/sighan_score/score \
        --name sxu_to_$target.$name
    done
  fi
done
