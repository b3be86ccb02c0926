#!/bin/bash
# The NER baselines of docs/ner.md on Universal NER GSDSimp (assets/uner_zh/): spaCy's own `ner`, its CPU
# config (`spacy init config -l zh -p ner -o efficiency`: research/scripts/configs/uner_ner_*.cfg), on one
# token per character and on the words of a trained gdcws_segmenter, trained on UNER GSDSimp train (dev:
# UNER dev) for STEPS steps side by side (one thread each), then scored by `evaluate-ner` on UNER GSDSimp
# dev and test and UNER GSD dev and test (traditional), from raw text and on the gold words.
#   usage: research/scripts/uner_baselines.sh OUT SEGMENTER STEPS [SEED]   (from the repository root;
#   OUT gets corpus/, chars/, words/ and metrics/)
set -eu
out=$1; segmenter=$2; steps=$3; seed=${4:-0}
export OMP_NUM_THREADS=1
mkdir -p "$out/corpus" "$out/metrics"
for part in train dev test; do
  python -m spacy_gdcws convert assets/uner_zh/zh_gsdsimp-ud-$part.iob2 "$out/corpus/$part.spacy"
done
python -m spacy train research/scripts/configs/uner_ner_chars.cfg --output "$out/chars" \
  --paths.train "$out/corpus/train.spacy" --paths.dev "$out/corpus/dev.spacy" \
  --training.max_steps "$steps" --system.seed "$seed" --gpu-id -1 > "$out/chars.log" 2>&1 &
python -m spacy train research/scripts/configs/uner_ner_words.cfg --output "$out/words" \
  --paths.train "$out/corpus/train.spacy" --paths.dev "$out/corpus/dev.spacy" --paths.segmenter "$segmenter" \
  --training.max_steps "$steps" --system.seed "$seed" --gpu-id -1 > "$out/words.log" 2>&1 &
wait
for run in chars words; do
  for gold in zh_gsdsimp-ud-dev zh_gsdsimp-ud-test zh_gsd-ud-dev zh_gsd-ud-test; do
    python -m spacy_gdcws evaluate-ner "$out/$run/model-best" assets/uner_zh/$gold.iob2 \
      --name "spacy_ner_$run" --output "$out/metrics/${run}_$gold.json"
  done
done
