#!/usr/bin/env bash
# One GPU loan, three device calls (each under the 10-minute limit), for issues #40/#41:
# the GD-Transformer at the paper's size (configs/gpu.cfg) and the ID-CNN-CRF at Strubell et
# al.'s size (300 filters) trained side by side on SXU in the background (setsid keeps them
# alive between calls while the machine stays warm), then the speed benchmark on the GPU.
#
#   here:    bash research/scripts/gpu_bundle.sh sxu
#   device:  bash research/scripts/gpu_session.sh start   (unpacks .gpu/, starts both runs, watches 9 min)
#            bash research/scripts/gpu_session.sh watch   (watches 9 more minutes)
#            bash research/scripts/gpu_session.sh finish  (waits for both, speed on the GPU, copies to $OUT)
set -uo pipefail
cd "$(dirname "$0")/../.."
export PYTHONPATH=/tmp/site TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 PYTHONUNBUFFERED=1
W=/tmp/gpuwork
OUT=${OUT:-$W/out}
GD_STEPS=${GD_STEPS:-4000}
CNN_STEPS=${CNN_STEPS:-6000}
MINUTES=${MINUTES:-12.8}
watch() {  # print the runs' progress every minute for $1 seconds
  local end=$((SECONDS + $1))
  while [ $SECONDS -lt $end ]; do
    sleep 60
    for f in $W/results/*.log; do echo "== $f"; grep -E '^ +[0-9]+ +[0-9]+ ' "$f" | tail -2; grep OOV-R "$f"; done
    nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
    [ -z "$(pgrep -f gpu_train.py)" ] && break
  done
}
case "${1:-}" in
  start)
    mkdir -p /tmp/site $W/results corpus
    tar -xJf .gpu/site.tar.xz -C /tmp/site && python3 -m zipfile -e .gpu/spacy_gdcws-*.whl /tmp/site \
      && tar -xzf .gpu/corpus.tar.gz || exit 1
    python3 -c "import spacy, torch; print(spacy.__version__, torch.__version__, torch.cuda.get_device_name(0))"
    setsid nohup python3 research/scripts/gpu_train.py sxu --config gpu --name gpu_long --steps "$GD_STEPS" \
      --minutes "$MINUTES" --eval-every 500 --gpu-id 0 --out $W/results --work $W/train > $W/gd.out 2>&1 &
    setsid nohup python3 research/scripts/gpu_train.py sxu --config idcnn --name idcnn_gpu300 --steps "$CNN_STEPS" \
      --minutes "$MINUTES" --eval-every 500 --gpu-id 0 --out $W/results --work $W/train \
      --components.segmenter.model.embed.width 300 --components.segmenter.model.encoder.width 300 \
      --components.segmenter.model.scorer.width 300 > $W/cnn.out 2>&1 &
    watch 500
    ;;
  watch)
    watch "${2:-540}"
    ;;
  finish)
    while pgrep -f gpu_train.py > /dev/null; do sleep 10; done
    cat $W/gd.out $W/cnn.out
    mkdir -p "$OUT"
    python3 research/benchmarks/speed.py --model $W/train/sxu.idcnn_gpu300/model-best --baseline-model $W/train/sxu.gpu_long/model-best \
      --contenders gdcws_pipe gdcws_pipe_bf16 gdcws_pipe_baseline --inputs sxu_test --runs 3 \
      --sxu-test corpus/sxu/test_gold.txt --batch-size 1024 --gpu-id 0 --output "$OUT/gpu_speed.json"
    cp $W/results/*.json $W/results/*.jsonl $W/results/*.log "$OUT"/ 2>/dev/null
    ls -la "$OUT"
    ;;
  *) echo "usage: $0 start|watch|finish" >&2; exit 2 ;;
esac
