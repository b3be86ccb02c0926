#!/usr/bin/env bash
# Dev-only sweep for the closed-test recipe (docs/closed-test.md): train CONFIG on CORPUS once per
# variant (a name and its `spacy train` overrides) and record the learning curve on dev (the last
# 10% of the training file). Nothing is scored on the test file here: the variant is chosen on dev,
# then trained and scored by ensemble_recipe.sh / compare_encoders.sh.
#   bash research/scripts/dev_sweep.sh CORPUS CONFIG STEPS NAME "OVERRIDES" [NAME "OVERRIDES" ...]
#   e.g. bash research/scripts/dev_sweep.sh sxu fast 4000 drop45 "--components.segmenter.model.embed.dropout 0.45"
# Writes training/sweep/CORPUS.CONFIG_NAME/ (model-best, train.log) and
# research/metrics/closed_test/sweep/CORPUS.CONFIG_NAME.jsonl (the curve), then prints each variant's
# best dev F. PARALLEL=2 trains two variants at a time (OMP_NUM_THREADS=1 each).
set -euo pipefail
# shellcheck source=research/scripts/jobs.sh
source "$(dirname "$0")/jobs.sh"
corpus=$1
config=$2
steps=$3
shift 3
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
curves=research/metrics/closed_test/sweep
mkdir -p "$curves" training/sweep
names=()
while [ $# -ge 2 ]; do
  name=${config}_$1
  overrides=$2
  shift 2
  names+=("$name")
  out=training/sweep/$corpus.$name
  mkdir -p "$out"
  (
    start=$(date +%s)
    # shellcheck disable=SC2086  # the overrides are words on purpose
    python -m spacy train configs/$config.cfg --paths.train corpus/$corpus/train.spacy --paths.dev corpus/$corpus/dev.spacy \
      --output "$out" --training.max_steps "$steps" --training.optimizer.learn_rate.total_steps "$steps" \
      --training.eval_frequency 250 --paths.curve "$curves/$corpus.$name.jsonl" $overrides > "$out/train.log" 2>&1
    echo "# $corpus.$name: --training.max_steps $steps, then the overrides: $overrides; trained in $(( $(date +%s) - start )) s" >> "$out/train.log"
  ) &
  throttle
done
wait
for name in "${names[@]}"; do
  python - "$curves/$corpus.$name.jsonl" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf8") if line.strip()]
best = max(rows, key=lambda r: r["score"])
print(f"{sys.argv[1]}: best dev F {100 * best['score']:.2f} @ {best['step']} (last {100 * rows[-1]['score']:.2f} @ {rows[-1]['step']})")
EOF
done
