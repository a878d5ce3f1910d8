#!/usr/bin/env bash
# The main job: set up, ask the doctor about this machine (with the pinned venv active, as a user
# who installed PyTorch would have it), then a short `dlready train` on the default data
# (Fashion-MNIST from Debian's dataset-fashion-mnist).
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --program || exit $?
export VIRTUAL_ENV=${DLREADY_VENV:-$HOME/.cache/dlready/venv-torch2.11.0-tv0.26.0}
./build/release/dlready doctor
rc=$?
# Exit 1 means "this machine cannot run PyTorch on a GPU" (expected on a CPU-only machine).
[ "$rc" -le 1 ] || exit "$rc"
echo "dlready doctor exit status: $rc (0 = GPU ready, 1 = see the findings above)"
echo
./build/release/dlready train --epochs 1 --overwrite --out runs/main-job
