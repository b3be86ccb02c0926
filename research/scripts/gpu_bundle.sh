#!/usr/bin/env bash
# Build .gpu/: what a GPU machine with torch but no spaCy and no network needs to run
# research/scripts/gpu_train.py: the spaCy stack as one pruned archive (Python 3.12 x86-64 wheels,
# unpacked, without spaCy's tests, C sources and debug symbols: ~12 MB
# instead of 58 MB), this package as a wheel, and the prepared corpora named.
#
#   bash research/scripts/gpu_bundle.sh sxu ud zx
#   then on the GPU machine, in the repo root with .gpu/ copied along:
#   mkdir -p /tmp/site && tar -xJf .gpu/site.tar.xz -C /tmp/site \
#     && python3 -m zipfile -e .gpu/spacy_gdcws-*.whl /tmp/site && export PYTHONPATH=/tmp/site \
#     && mkdir -p corpus && tar -xzf .gpu/corpus.tar.gz
set -euo pipefail
cd "$(dirname "$0")/../.."
here=$PWD
mkdir -p .gpu .whl
[ -f .gpu/site.tar.xz ] || {
  bash ../shared/tools/device-wheels.sh .whl
  site=$(mktemp -d)
  for w in .whl/*.whl; do python -m zipfile -e "$w" "$site"; done
  rm -rf "$site/spacy/tests" "$site/thinc/tests"
  find "$site" \( -name '*.cpp' -o -name '*.pyx' -o -name '*.pxd' -o -name '*.c' \) -delete
  find "$site" -name '*.so' -exec strip --strip-unneeded {} \;
  tar -cJf .gpu/site.tar.xz -C "$site" .
  rm -rf "$site"
}
rm -f .gpu/spacy_gdcws-*.whl
python -m pip wheel -q --no-deps --no-build-isolation -w .gpu "$here"
tar -czf .gpu/corpus.tar.gz "${@/#/corpus/}"
du -sh .gpu/*
