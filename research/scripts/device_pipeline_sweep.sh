#!/usr/bin/env bash
# One device call for issue #47: the main job's second stage (configs/ud_pipeline.cfg) in several
# variants side by side on the device's CPU cores (2 threads each; the main job trains on 2 CPU
# cores, so the comparison is on the same kind of hardware, many at once), all on the words of one
# frozen segmenter (the main job's, `training/ud_gsd_more.general.tuned/model-best`), trained on the
# main job's data less GSDSimp dev (GSD train converted to UD v2 by `prepare`, HK, CFL, PUD) and
# scored from raw text by `evaluate-ud` on the 500 GSDSimp dev sentences, held out. GSDSimp test is
# not read. Each run stops at STEPS or when the call's time is nearly up (then its model-best so far
# is scored; the log says which step it reached).
#
#   here:    bash research/scripts/device_pipeline_sweep.sh --bundle CORPUS_DIR SEGMENTER_DIR
#            (writes .gpu/sweep.tar.gz; gpu_bundle.sh writes .gpu/site.tar.xz and the package wheel)
#   device:  bash research/scripts/device_pipeline_sweep.sh      (carry .gpu; timeout_s ~590)
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = "--bundle" ]; then
  tmp=$(mktemp -d)
  mkdir -p "$tmp/corpus" && cp "$2/train_nogsdsimp.spacy" "$2/dev_nogsdsimp.spacy" "$2/gsdsimp_dev.spacy" "$tmp/corpus/"
  cp -r "$3" "$tmp/segmenter"
  tar -czf .gpu/sweep.tar.gz -C "$tmp" corpus segmenter && rm -rf "$tmp"
  du -sh .gpu/*
  exit 0
fi
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2 MKL_NUM_THREADS=2
W=/tmp/sweep
OUT=${OUT:-$W/out}
STEPS=${STEPS:-1500}
STOP_AT=${STOP_AT:-470}  # seconds after the start: stop training, score what each run has
mkdir -p $W/runs "$OUT"
tar -xzf .gpu/sweep.tar.gz -C $W || exit 1
if [ -z "${LOCAL:-}" ]; then  # LOCAL=1: this machine's environment (a dry run of the script)
  export PYTHONPATH=/tmp/site
  mkdir -p /tmp/site && tar -xJf .gpu/site.tar.xz -C /tmp/site && python3 -m zipfile -e .gpu/spacy_gdcws-*.whl /tmp/site || exit 1
fi
python3 -c "import spacy, spacy_gdcws; print('spacy', spacy.__version__)" || exit 1
nproc
train() {  # NAME [overrides]
  local name=$1
  shift
  python3 -m spacy train configs/ud_pipeline.cfg --output $W/runs/$name --paths.train $W/corpus/train_nogsdsimp.spacy \
    --paths.dev $W/corpus/dev_nogsdsimp.spacy --paths.segmenter $W/segmenter --training.max_steps "$STEPS" \
    --gpu-id -1 "$@" > "$OUT/$name.log" 2>&1 &
}
train ref
train averages --training.optimizer.use_averages true
train width256 --components.tok2vec.model.encode.width 256
train depth8 --components.tok2vec.model.encode.depth 8
train rows --components.tok2vec.model.embed.rows "[40000,10000,10000,1000]"
train parser256 --components.parser.model.hidden_width 256
train lr2 --training.optimizer.learn_rate 0.002
while pgrep -f "spacy train" > /dev/null && [ $SECONDS -lt "$STOP_AT" ]; do sleep 10; done
pkill -f "spacy train"
sleep 3
for d in $W/runs/*/; do
  name=$(basename "$d")
  [ -d "$d/model-best" ] && python3 -m spacy_gdcws evaluate-ud "$d/model-best" $W/corpus/gsdsimp_dev.spacy \
    --output "$OUT/$name.json" >> "$OUT/$name.log" 2>&1 &
done
wait
for f in "$OUT"/*.log; do echo "== $(basename "$f"): $(grep -E '^ +[0-9]+ +[0-9]+ ' "$f" | tail -1)"; grep -A1 predicted_seg "$f" | tr -d '\n'; echo; done
echo "seconds $SECONDS"
