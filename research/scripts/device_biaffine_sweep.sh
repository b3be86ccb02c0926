#!/usr/bin/env bash
# One device call for issue #60: the graph-based second stage (configs/ud_biaffine.cfg) in several
# variants side by side, on the words of one frozen segmenter (the main job's), trained on the main
# job's data less GSDSimp dev and scored from raw text by `evaluate-ud` on the 500 GSDSimp dev
# sentences, held out (the protocol of research/metrics/main_job/pipeline_design/). GSDSimp test is
# not read. CPU runs get THREADS threads each (the main job trains on 2 CPU cores); a run whose name
# starts with `gpu_` trains on the GPU (--gpu-id 0). Each run stops at its line's --training.max_steps
# or when STOP_AT seconds have passed; then its model-best is scored. The runs are the lines of a sweep
# file (research/scripts/pipeline_sweeps/: NAME TRAIN_DOCBIN [spacy train overrides]).
#
#   here:    bash research/scripts/gpu_bundle.sh              (.gpu/site.tar.xz, the package wheel)
#            bash research/scripts/device_pipeline_sweep.sh --bundle CORPUS_DIR SEGMENTER_DIR
#   device:  THREADS=1 STOP_AT=420 bash research/scripts/device_biaffine_sweep.sh SWEEP_FILE  (carry .gpu)
set -uo pipefail
cd "$(dirname "$0")/../.."
SWEEP=${1:?a sweep file}
CONFIG=${CONFIG:-configs/ud_biaffine.cfg}
THREADS=${THREADS:-1}
W=/tmp/sweep
OUT=${OUT:-$W/out}
STOP_AT=${STOP_AT:-420}
mkdir -p $W/runs "$OUT"
tar -xzf .gpu/sweep.tar.gz -C $W || exit 1
if [ -z "${LOCAL:-}" ]; then  # LOCAL=1: this machine's environment (a dry run of the script)
  export PYTHONPATH=/tmp/site
  mkdir -p /tmp/site && tar -xJf .gpu/site.tar.xz -C /tmp/site && python3 -m zipfile -e .gpu/spacy_gdcws-*.whl /tmp/site || exit 1
fi
export PYTHONUNBUFFERED=1
python3 -c "import spacy, spacy_gdcws, torch; print('spacy', spacy.__version__, 'torch', torch.__version__, torch.cuda.is_available())" || exit 1
nproc
train() {  # NAME TRAIN_DOCBIN [overrides]
  local name=$1 docbin=$2 gpu=-1 threads=$THREADS
  shift 2
  case "$name" in gpu_*) gpu=0; threads=2 ;; esac
  OMP_NUM_THREADS=$threads MKL_NUM_THREADS=$threads python3 -m spacy train "$CONFIG" --output $W/runs/$name \
    --paths.train "$W/corpus/$docbin" --paths.dev $W/corpus/dev_nogsdsimp.spacy --paths.segmenter $W/segmenter \
    --gpu-id $gpu "$@" > "$OUT/$name.log" 2>&1 &
}
while read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086  # the line's words are the arguments
  train $line
done < "$SWEEP"
while pgrep -f "spacy train.*$W/runs" > /dev/null && [ $SECONDS -lt "$STOP_AT" ]; do sleep 5; done
pkill -f "spacy train.*$W/runs"
sleep 3
for d in $W/runs/*/; do
  name=$(basename "$d")
  [ -d "$d/model-best" ] && OMP_NUM_THREADS=1 python3 -m spacy_gdcws evaluate-ud "$d/model-best" $W/corpus/gsdsimp_dev.spacy \
    --output "$OUT/$name.json" >> "$OUT/$name.log" 2>&1 &
done
wait
for f in "$OUT"/*.log; do echo "== $(basename "$f"): $(grep -E '^ +[0-9]+ +[0-9]+ ' "$f" | tail -1)"; grep -A1 predicted_seg "$f" | tr -d '\n'; echo; done
tar -czf "$OUT/logs.tar.gz" -C "$OUT" --exclude logs.tar.gz . 2>/dev/null
echo "seconds $SECONDS"
