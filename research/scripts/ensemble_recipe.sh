#!/usr/bin/env bash
# The closed-test recipe (docs/closed-test.md): SEEDS members of one config trained on the corpus's
# training file minus dev (each one scored alone by compare_encoders.sh), combined into one pipeline
# that averages their CRF potentials (`python -m spacy_gdcws ensemble`), scored with the official scorer.
#   bash research/scripts/ensemble_recipe.sh CORPUS STEPS CONFIG SEED [SEED ...]
# Members: training/enc/CORPUS.CONFIG_sSEED; a member already there is reused (RETRAIN=1 trains it again),
# so check that its log says the same STEPS.
# Ensemble: training/ens/CORPUS.CONFIG_xN, research/metrics/encoders/CORPUS.CONFIG_xN.json (and, for sxu,
# sxu_to_zx / sxu_to_ud). PARALLEL=2 trains two members at a time (one core each). A variant of CONFIG
# chosen on dev (dev_sweep.sh) is named by VARIANT (e.g. _drop45) with its overrides in EXTRA: members
# training/enc/CORPUS.CONFIG_VARIANT_sSEED, ensemble CORPUS.CONFIG_VARIANT_xN. MODEL=model-last takes
# each member's last model (compare_encoders.sh), for a whole-file corpus whose dev is in its train.
set -euo pipefail
# shellcheck source=research/scripts/jobs.sh
source "$(dirname "$0")/jobs.sh"
corpus=$1
steps=$2
config=$3
shift 3
seeds=("$@")
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
members=()
for seed in "${seeds[@]}"; do
  name=${config}${VARIANT:-}_s$seed
  members+=("training/enc/$corpus.$name/${MODEL:-model-best}")
  if [ -d "training/enc/$corpus.$name/${MODEL:-model-best}" ] && [ "${RETRAIN:-0}" != 1 ]; then
    echo "$corpus.$name: trained already"
    continue
  fi
  SUFFIX=${VARIANT:-}_s$seed EXTRA="--system.seed $seed ${EXTRA:-}" bash research/scripts/compare_encoders.sh "$corpus" "$steps" "$config" &
  throttle
done
wait
n=${#seeds[@]}
system=${config}${VARIANT:-}_x$n
out=training/ens/$corpus.$system
mkdir -p training/ens predictions/encoders
rm -rf "$out"
python -m spacy_gdcws ensemble "$out" "${members[@]}"
targets=("$corpus")
case $corpus in sxu | sxu_full) targets+=(zx ud) ;; esac
for target in "${targets[@]}"; do
  prefix=$corpus
  if [ "$target" != "$corpus" ]; then prefix=${corpus}_to_$target; fi
  python -m spacy_gdcws evaluate "$out" corpus/$target/test_gold.txt corpus/$corpus/words.txt \
    --raw corpus/$target/test_raw.txt --output research/metrics/encoders/$prefix.$system.json \
    --pred-output predictions/encoders/$prefix.$system.txt --perl-script spacy_gdcws/eval/sighan_score/score \
    --name $prefix.$system
done
