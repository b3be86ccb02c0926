#!/bin/bash
# README command 1 as a new user runs it: a fresh clone of this repository (no ../shared beside it) in a
# fresh venv, for seeds 0, 1, 2 one after another, nothing else on the CPU; the wall time includes the
# installs. Then: python research/scripts/main_job_seeds.py $WORK/s0 $WORK/s1 $WORK/s2
#   usage: research/scripts/main_job_seeds.sh REPO WORK [SEEDS]   (WORK gets s0..s2, their logs and summary.txt;
#   SEEDS: default "0 1 2"; VARS: more --vars for `spacy project run all`)
set -u
repo=$(cd "$1" && pwd); work=$2
mkdir -p "$work"
for seed in ${3:-0 1 2}; do
  rm -rf "$work/s$seed" "$work/venv$seed"
  git clone -q "$repo" "$work/s$seed"
  python -m venv "$work/venv$seed"
  cd "$work/s$seed"
  start=$(date +%s)
  ( . "$work/venv$seed/bin/activate" && export OMP_NUM_THREADS=2 && python -m pip install -q torch==2.13.0 \
    && python -m pip install -q -e ".[train]" && python -m spacy project run all . --vars.seed $seed ${VARS:-} ) > "$work/s$seed.log" 2>&1
  rc=$?
  echo "seed $seed rc $rc seconds $(( $(date +%s) - start ))" >> "$work/summary.txt"
done
