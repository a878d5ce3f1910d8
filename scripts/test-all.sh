#!/usr/bin/env bash
# Every test: set up, build the wheels, run the CTest suite (GPU-labelled tests skip themselves
# without a GPU; the "wheel" test installs and runs the wheels), then a short libFuzzer smoke run of
# every parser with the kept regression inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build-wheels.sh  # dist/: the wheels tests/wheel/check_wheels.sh installs and runs
ctest --preset release -j"$(nproc)"
./scripts/fuzz-smoke.sh "${DLREADY_FUZZ_SECONDS:-10}"
