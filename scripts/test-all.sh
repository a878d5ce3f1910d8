#!/usr/bin/env bash
# Every test: set up, run the CTest suite (GPU-labelled tests skip themselves without a GPU),
# then a short libFuzzer smoke run of every parser with the kept regression inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
ctest --preset release -j"$(nproc)"
./scripts/fuzz-smoke.sh "${DLREADY_FUZZ_SECONDS:-10}"
