#!/bin/bash
# usage: tb_run.sh NAME SEED [extra overrides]  (the treebank-embedding hack in /work/tbexp)
name=$1; seed=$2; shift 2
cd /work/tbexp
export OMP_NUM_THREADS=1 TB_MAP=/work/exp/tb_map.json PYTHONPATH=/work/tbexp
out=/work/exp/runs/$name; mkdir -p $out
start=$(date +%s)
python -m spacy train configs/ud_biaffine.cfg --output $out/train --paths.train /work/exp/B/train_nogsdsimp.spacy --paths.dev /work/exp/B/dev_nogsdsimp.spacy --paths.segmenter /work/before/segmenter --training.max_steps 2000 --system.seed $seed "$@" > $out/train.log 2>&1
end=$(date +%s)
python -m spacy_gdcws evaluate-ud $out/train/model-best /work/exp/B/gsdsimp_dev.spacy --output $out/dev.json > $out/eval.log 2>&1
echo "$name train_s=$((end-start))" >> $out/eval.log
python /work/exp/show.py $out/dev.json >> $out/eval.log
