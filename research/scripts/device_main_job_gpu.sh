#!/usr/bin/env bash
# The main job (README command 1's workflow `all`) with --vars.gpu_id 0 on a GPU machine whose Python
# has torch and CuPy but no spaCy and no network: each step's wall time and the metrics it writes.
# `package` and `check` are left out (they pip-install the packaged model, which needs the package
# registries); they take seconds on any machine. Runs in a copy of the project in /tmp/mjg.
#
#   here:    bash research/scripts/gpu_bundle.sh; python3 -m pip download --no-deps --only-binary=:all: \
#              --python-version 3.12 --implementation cp --platform manylinux2014_x86_64 -d .gpu opencc
#   device:  PIPELINE_CONFIG=ud_biaffine bash research/scripts/device_main_job_gpu.sh   (carry .gpu)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/mjg_out}
mkdir -p "$OUT" /tmp/site
if [ ! -d /tmp/site/spacy ]; then
  tar -xJf .gpu/site.tar.xz -C /tmp/site && python3 -m zipfile -e .gpu/spacy_gdcws-*.whl /tmp/site || exit 1
fi
python3 -m zipfile -e .gpu/opencc-*.whl /tmp/site || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 OMP_NUM_THREADS=${THREADS:-2} MKL_NUM_THREADS=${THREADS:-2}
rm -rf /tmp/mjg && mkdir -p /tmp/mjg && cp -rL assets configs project.yml /tmp/mjg/ || exit 1
cd /tmp/mjg
for step in convert train tune-decoding evaluate train-pipeline evaluate-pipeline; do
  start=$SECONDS
  python3 -m spacy project run "$step" . --vars.gpu_id 0 --vars.pipeline_config "${PIPELINE_CONFIG:-ud_biaffine}" \
    > "$OUT/gpu_main_job_$step.log" 2>&1
  echo "step $step rc $? $((SECONDS - start)) s" | tee -a "$OUT/gpu_main_job_steps.txt"
done
cp metrics/*.json "$OUT/" 2>/dev/null
nvidia-smi --query-gpu=name,memory.used --format=csv | tee -a "$OUT/gpu_main_job_steps.txt"
