#!/usr/bin/env bash
# One device call for issue #60: the graph-based second stage (configs/ud_biaffine.cfg) in several
# variants side by side, on the words of one frozen segmenter (the main job's), trained on the main
# job's data less GSDSimp dev and scored from raw text by `evaluate-ud` on the 500 GSDSimp dev
# sentences, held out (the protocol of research/metrics/main_job/pipeline_design/). GSDSimp test is
# not read. device_pipeline_sweep.sh's loop with this config: CPU runs get THREADS threads each (the
# main job trains on 2 CPU cores), a run whose name starts with `gpu_` trains on the GPU; each run stops
# at its line's --training.max_steps or when STOP_AT seconds have passed, then its model-best is scored.
#
#   here:    bash research/scripts/gpu_bundle.sh              (.gpu/site.tar.xz, the package wheel)
#            bash research/scripts/device_pipeline_sweep.sh --bundle CORPUS_DIR SEGMENTER_DIR
#   device:  THREADS=1 STOP_AT=420 bash research/scripts/device_biaffine_sweep.sh SWEEP_FILE  (carry .gpu)
set -uo pipefail
cd "$(dirname "$0")/../.."
CONFIG=configs/ud_biaffine.cfg THREADS=${THREADS:-1} STOP_AT=${STOP_AT:-420} STEPS="" \
  exec bash research/scripts/device_pipeline_sweep.sh "${1:?a sweep file}"
