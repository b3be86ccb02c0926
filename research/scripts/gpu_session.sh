#!/usr/bin/env bash
# One GPU call (a loan is 15 minutes of device time, one command at most 10) for issue #41:
# three SXU runs side by side on the one GPU, each bounded by MINUTES of training, then the
# official scorer on the test file for each model-best (selected on dev, the last 10% of the
# training file):
#   gpu_h200        the GD-Transformer at the paper's Table 4 size (configs/gpu.cfg)
#   idcnn300_h200   the ID-CNN-CRF at Strubell et al.'s size (300 filters; configs/idcnn.cfg)
#   bilstm256_h200  the BiLSTM-CRF at width 256 (configs/bilstm.cfg)
# Everything they write (metrics JSON, learning curves, logs, test predictions, GPU use) comes back
# as one archive, $OUT/gpu_results.tar.gz; unpack it into training/gpu_results and copy as
# research/metrics/COMMANDS.md says.
#
#   here:    bash research/scripts/gpu_bundle.sh sxu
#   device:  bash research/scripts/gpu_session.sh     (carry .gpu; timeout_s 590)
set -uo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=/tmp/site TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 PYTHONUNBUFFERED=1
# CPU threads per run: one run alone takes ~5.5 of the 16 cores (features, optimizer); three runs
# with torch's default of 16 threads each oversubscribed the cores and the two CRF runs stalled
# (250 steps in 7 minutes against 1,200 in 100 s alone: research/metrics/gpu_2026-11-26/README.md).
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-5}
W=/tmp/gpuwork
OUT=${OUT:-$W/out}
MINUTES=${MINUTES:-5}
GD_STEPS=${GD_STEPS:-1500}
CNN_STEPS=${CNN_STEPS:-3000}
LSTM_STEPS=${LSTM_STEPS:-3000}
mkdir -p /tmp/site $W/results corpus "$OUT"
tar -xJf .gpu/site.tar.xz -C /tmp/site && python3 -m zipfile -e .gpu/spacy_gdcws-*.whl /tmp/site \
  && tar -xzf .gpu/corpus.tar.gz || exit 1
python3 -c "import spacy, torch, spacy_gdcws; print(spacy.__version__, torch.__version__, torch.cuda.get_device_name(0))" || exit 1
run() {  # NAME CONFIG STEPS [spacy train overrides]: one run in the background
  local name=$1 config=$2 steps=$3
  shift 3
  python3 research/scripts/gpu_train.py sxu --config "$config" --name "$name" --steps "$steps" \
    --minutes "$MINUTES" --eval-every 250 --gpu-id 0 --out $W/results --work $W/train "$@" > $W/results/$name.out 2>&1 &
}
# GD_FROM=path/to/model-last (carried from an earlier loan's results): the GD run continues that run
# for GD_STEPS more steps, its schedule resumed (gpu_train.py --continue-from; docs/configs.md)
if [ -n "${GD_FROM:-}" ]; then
  run gpu_h200 gpu "$GD_STEPS" --continue-from "$GD_FROM" --total-steps "${GD_TOTAL:-20000}"
else
  run gpu_h200 gpu "$GD_STEPS"
fi
run idcnn300_h200 idcnn "$CNN_STEPS" --components.segmenter.model.embed.width 300 \
  --components.segmenter.model.encoder.width 300 --components.segmenter.model.scorer.width 300
run bilstm256_h200 bilstm "$LSTM_STEPS" --components.segmenter.model.embed.width 256 \
  --components.segmenter.model.encoder.width 256 --components.segmenter.model.scorer.width 256
while pgrep -f gpu_train.py > /dev/null; do
  sleep 30
  echo "== $SECONDS s: $(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader)" | tee -a $W/results/gpu_use.log
  for f in $W/results/*.jsonl; do [ -f "$f" ] && echo "$(basename "$f"): $(tail -1 "$f" | cut -c1-160)"; done
done
cat $W/results/*.out
grep -h OOV-R $W/results/*.log
tar -czf "$OUT/gpu_results.tar.gz" -C $W results
ls -la "$OUT"
