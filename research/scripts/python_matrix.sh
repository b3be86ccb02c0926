#!/usr/bin/env bash
# The main suite under each Python 3.10-3.13 of this machine's pyenv, each in a venv of its own with
# README command 2's install (CPU torch, then the [test] extra); one JSON line per Python in
# research/metrics/python_matrix/results.jsonl, the pytest output beside it.
#   research/scripts/python_matrix.sh                     # the whole suite
#   research/scripts/python_matrix.sh -m "not slow"       # the quick part
#   VERSIONS="3.10 3.13" research/scripts/python_matrix.sh -m "not slow"
set -uo pipefail
cd "$(dirname "$0")/../.."
out=research/metrics/python_matrix
mkdir -p "$out"
root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
for version in ${VERSIONS:-3.10 3.11 3.12 3.13}; do
    python=$(ls -d "$root"/versions/"$version".*/bin/python 2>/dev/null | sort -V | tail -1)
    if [ -z "$python" ]; then
        echo "{\"python\": \"$version\", \"rc\": null, \"note\": \"not installed\"}" >> "$out/results.jsonl"
        continue
    fi
    tmp=$(mktemp -d)
    "$python" -m venv "$tmp/venv"
    start=$(date +%s)
    "$tmp/venv/bin/python" -m pip install -q torch==2.13.0 \
        && "$tmp/venv/bin/python" -m pip install -q -e ".[test]" \
        && OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} HF_HUB_OFFLINE=1 "$tmp/venv/bin/python" -m pytest -q \
            -p no:cacheprovider "$@" tests research/tests > "$out/$version.log" 2>&1
    rc=$?
    summary=$(tail -1 "$out/$version.log" 2>/dev/null | tr -d '"')
    echo "{\"python\": \"$($python -c 'import platform; print(platform.python_version())')\", \"rc\": $rc, \"seconds\": $(( $(date +%s) - start )), \"pytest_args\": \"$*\", \"summary\": \"$summary\", \"date\": \"$(date -u +%FT%TZ)\", \"commit\": \"$(git rev-parse --short HEAD)\"}" >> "$out/results.jsonl"
    rm -rf "$tmp"
done
