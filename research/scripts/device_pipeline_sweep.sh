#!/usr/bin/env bash
# One device call for issue #47 (and, through device_biaffine_sweep.sh, #60): a second stage
# (CONFIG, default configs/ud_pipeline.cfg) in several
# variants side by side on the device's CPU cores (2 threads each; the main job trains on 2 CPU
# cores, so the comparison is on the same kind of hardware, many at once), all on the words of one
# frozen segmenter (the main job's, `training/ud_gsd_more.general.tuned/model-best`), trained on the
# main job's data less GSDSimp dev (GSD train converted to UD v2 by `prepare`, HK, CFL, PUD) and
# scored from raw text by `evaluate-ud` on the 500 GSDSimp dev sentences, held out. GSDSimp test is
# not read. Each run stops at STEPS or when the call's time is nearly up (then its model-best so far
# is scored; the log says which step it reached). The runs are the lines of a sweep file
# (research/scripts/pipeline_sweeps/: NAME TRAIN_DOCBIN [spacy train overrides]).
#
#   here:    bash research/scripts/device_pipeline_sweep.sh --bundle CORPUS_DIR SEGMENTER_DIR
#            (writes .gpu/sweep.tar.gz; gpu_bundle.sh writes .gpu/site.tar.xz and the package wheel;
#            CORPUS_DIR holds heldout_gsdsimp_dev.py's DocBins)
#   device:  THREADS=1 bash research/scripts/device_pipeline_sweep.sh SWEEP_FILE   (carry .gpu; timeout_s ~590)
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = "--bundle" ]; then
  tmp=$(mktemp -d)
  mkdir -p "$tmp/corpus" && cp "$2"/train_nogsdsimp*.spacy "$2/dev_nogsdsimp.spacy" "$2/gsdsimp_dev.spacy" "$tmp/corpus/"
  cp -r "$3" "$tmp/segmenter"
  tar -czf .gpu/sweep.tar.gz -C "$tmp" corpus segmenter && rm -rf "$tmp"
  du -sh .gpu/*
  exit 0
fi
SWEEP=${1:-research/scripts/pipeline_sweeps/2026-11-27-configs.txt}
CONFIG=${CONFIG:-configs/ud_pipeline.cfg}
THREADS=${THREADS:-2}
export PYTHONUNBUFFERED=1
W=/tmp/sweep
OUT=${OUT:-$W/out}
STEPS=${STEPS-1500}  # empty: each line's own --training.max_steps (or the config's)
STOP_AT=${STOP_AT:-470}  # seconds after the start: stop training, score what each run has
mkdir -p $W/runs "$OUT"
tar -xzf .gpu/sweep.tar.gz -C $W || exit 1
if [ -z "${LOCAL:-}" ]; then  # LOCAL=1: this machine's environment (a dry run of the script)
  export PYTHONPATH=/tmp/site
  mkdir -p /tmp/site && tar -xJf .gpu/site.tar.xz -C /tmp/site && python3 -m zipfile -e .gpu/spacy_gdcws-*.whl /tmp/site || exit 1
fi
python3 -c "import spacy, spacy_gdcws, torch; print('spacy', spacy.__version__, 'torch', torch.__version__, torch.cuda.is_available())" || exit 1
nproc
train() {  # NAME TRAIN_DOCBIN [overrides]; a NAME starting with gpu_ trains on the GPU (2 threads)
  local name=$1 docbin=$2 gpu=-1 threads=$THREADS
  shift 2
  case "$name" in gpu_*) gpu=0; threads=2 ;; esac
  OMP_NUM_THREADS=$threads MKL_NUM_THREADS=$threads python3 -m spacy train "$CONFIG" --output $W/runs/$name \
    --paths.train "$W/corpus/$docbin" --paths.dev $W/corpus/dev_nogsdsimp.spacy --paths.segmenter $W/segmenter \
    ${STEPS:+--training.max_steps "$STEPS"} --gpu-id $gpu "$@" > "$OUT/$name.log" 2>&1 &
}
while read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086  # the line's words are the arguments
  train $line
done < "$SWEEP"
# only this sweep's runs: another job on the machine (the main job on the GPU) may train beside it
while pgrep -f "spacy train.*$W/runs" > /dev/null && [ $SECONDS -lt "$STOP_AT" ]; do sleep 5; done
pkill -f "spacy train.*$W/runs"
sleep 3
for d in $W/runs/*/; do
  name=$(basename "$d")
  [ -d "$d/model-best" ] && OMP_NUM_THREADS=$THREADS python3 -m spacy_gdcws evaluate-ud "$d/model-best" \
    $W/corpus/gsdsimp_dev.spacy --output "$OUT/$name.json" >> "$OUT/$name.log" 2>&1 &
done
wait
for f in "$OUT"/*.log; do echo "== $(basename "$f"): $(grep -E '^ +[0-9]+ +[0-9]+ ' "$f" | tail -1)"; grep -A1 predicted_seg "$f" | tr -d '\n'; echo; done
tar -czf "$OUT/logs.tar.gz" -C "$OUT" --exclude logs.tar.gz . 2>/dev/null
echo "seconds $SECONDS"
