#!/bin/bash
# One held-out dev run of #78's entity tagger in gdcws_parser: configs/ud_biaffine.cfg (with overrides)
# trained on the main job's data less GSDSimp dev (`heldout_gsdsimp_dev.py`; UNER train's entities on
# GSD train's words), 2,000 steps, one thread, on the words of a segmenter trained without GSDSimp dev;
# scored on GSDSimp dev (evaluate-ud: the parse) and on UNER GSDSimp and GSD dev (evaluate-ner: the
# entities, from raw text and on gold words). UNER dev = GSDSimp dev: never trained on here.
#   usage: research/scripts/ner_dev_run.sh NAME SEED CORPUS SEGMENTER OUT [overrides]
set -eu
name=$1; seed=$2; corpus=$3; segmenter=$4; out=$5/$1; shift 5
mkdir -p "$out"
export OMP_NUM_THREADS=${THREADS:-1}
start=$(date +%s)
python -m spacy train configs/ud_biaffine.cfg --output "$out/train" --paths.train "$corpus/train_nogsdsimp.spacy" \
  --paths.dev "$corpus/dev_nogsdsimp.spacy" --paths.segmenter "$segmenter" --training.max_steps 2000 \
  --system.seed "$seed" --gpu-id -1 "$@" > "$out/train.log" 2>&1
echo "train_seconds $(( $(date +%s) - start ))" > "$out/times.txt"
python -m spacy_gdcws evaluate-ud "$out/train/model-best" assets/ud_zh/zh_gsdsimp-ud-dev.conllu --output "$out/ud_dev.json" > "$out/eval.log" 2>&1
for gold in zh_gsdsimp-ud-dev zh_gsd-ud-dev; do
  python -m spacy_gdcws evaluate-ner "$out/train/model-best" assets/uner_zh/$gold.iob2 --name "$name" --output "$out/ner_$gold.json" >> "$out/eval.log" 2>&1
done
grep "✔" "$out/eval.log" | sed "s/^/$name /"
