#!/usr/bin/env bash
# Installs everything dlready needs on Debian 12 (idempotent) and builds it:
#  1. Debian packages (only the missing ones are installed);
#  2. the pinned PyTorch venv from PyPI, cached outside the clone (LibTorch for later targets and
#     the Python peers for benchmarks): ~/.cache/dlready/venv-torch<ver>-tv<ver>;
#  3. the release build (build/release): everything, or with --program only `dlready` and its
#     LibTorch module (what the main job runs; the test command builds the rest).
# usage: scripts/setup.sh [--program]
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
[ "${1:-}" = --program ] && targets=(--target dlready dlready_train_module)
if [ ! -f build/release/dlready ]; then
  echo "setup: first run: the Debian packages, the pinned PyTorch wheel (~3 GB download, once, cached"
  echo "setup: under ~/.cache/dlready) and a compile of dlready against its LibTorch: about 15-25 minutes"
  echo "setup: on 2 cores, most of it compiling; later runs take seconds."
fi

TORCH_VERSION=2.11.0
TORCHVISION_VERSION=0.26.0
SAFETENSORS_VERSION=0.7.0
export DLREADY_VENV=${DLREADY_VENV:-$HOME/.cache/dlready/venv-torch$TORCH_VERSION-tv$TORCHVISION_VERSION}

packages=(build-essential cmake g++ ccache clang libclang-rt-14-dev libcli11-dev nlohmann-json3-dev
  zlib1g-dev libsodium-dev libgtest-dev pci.ids dataset-fashion-mnist
  g++-mingw-w64-x86-64-posix wine64  # dlready.exe, the Windows doctor, and its scenarios under wine
  qemu-user libc6-arm64-cross)  # the aarch64 wheel's executable run for real (tests/wheel/check_wheels.sh)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

if [ ! -f "$DLREADY_VENV/.dlready-complete" ]; then
  echo "setup: creating $DLREADY_VENV (torch==$TORCH_VERSION, torchvision==$TORCHVISION_VERSION; a few GB, once)"
  rm -rf "$DLREADY_VENV"
  mkdir -p "$(dirname "$DLREADY_VENV")"
  python3 -m venv "$DLREADY_VENV"
  "$DLREADY_VENV/bin/pip" install -q --upgrade pip
  "$DLREADY_VENV/bin/pip" install -q "torch==$TORCH_VERSION" "torchvision==$TORCHVISION_VERSION" tensorboard \
    "safetensors==$SAFETENSORS_VERSION"
  touch "$DLREADY_VENV/.dlready-complete"
else
  echo "setup: venv present: $DLREADY_VENV"
fi
# Added after the venv was first made (the export-model interop tests read .safetensors with it).
if ! "$DLREADY_VENV/bin/python" -c "import safetensors" 2>/dev/null; then
  echo "setup: adding safetensors==$SAFETENSORS_VERSION to the venv"
  "$DLREADY_VENV/bin/pip" install -q "safetensors==$SAFETENSORS_VERSION"
fi

# uv: `dlready setup --tool uv` is tested with it (the tests find it in this venv; it is not put on PATH).
UV_VERSION=0.13.9
if [ ! -x "$DLREADY_VENV/bin/uv" ]; then
  echo "setup: adding uv==$UV_VERSION to the venv"
  "$DLREADY_VENV/bin/pip" install -q "uv==$UV_VERSION"
fi

# check-jsonschema: the release workflow is checked against GitHub's workflow schema (its copy is in
# the package; actionlint's PyPI package fetches its binary from GitHub at install, which this
# project's machines cannot reach).
CHECK_JSONSCHEMA_VERSION=0.39.0
if [ ! -x "$DLREADY_VENV/bin/check-jsonschema" ]; then
  echo "setup: adding check-jsonschema==$CHECK_JSONSCHEMA_VERSION to the venv"
  "$DLREADY_VENV/bin/pip" install -q "check-jsonschema==$CHECK_JSONSCHEMA_VERSION"
fi

cmake --preset release
cmake --build --preset release -j"$(nproc)" "${targets[@]}"
