#!/usr/bin/env bash
# Gathers into gpu-bundle/ (git-ignored) what scripts/gpu-check.sh needs on a bare, offline GPU
# machine that gets only the working tree: the .deb files of the build dependencies that machine
# lacks (headers and libraries; unpacked there with dpkg -x into a private prefix, never into /),
# the Fashion-MNIST files, the tutorial's training script (the peer of bench/train.sh), and this
# machine's build of the three programs the run needs, stripped, as a fallback for a build that
# fails there (gpu-check.sh then says so and runs them against that machine's torch).
# The GPU run carries it with the working tree: run(..., carry=["gpu-bundle"]) — see
# docs/gpu-validation.md. Refuses to leave a bundle over 60 MiB (the working tree's limit is 64).
# usage: scripts/gpu-bundle.sh            (needs Debian's package lists; no root needed)
set -euo pipefail
cd "$(dirname "$0")/.."
dest=gpu-bundle
limit_mib=60
# Build dependencies by their CMake names: CLI11, nlohmann_json, ZLIB (headers + libz.so and its
# target), libsodium (headers + libsodium.so + the runtime it links), GoogleTest as sources (built
# there by the machine's own compiler, so no C++ ABI of ours is assumed).
packages=(libcli11-dev nlohmann-json3-dev zlib1g-dev zlib1g libsodium-dev libsodium23 googletest)
data_dir=${DLREADY_DATA:-/usr/share/datasets/fashion-mnist}
peer=${DLREADY_PEER:-../shared/peers/train_seed.py}

tmp=$dest.tmp
rm -rf "$tmp"
mkdir -p "$tmp/debs" "$tmp/fashion-mnist" "$tmp/peer"
trap 'rm -rf "$tmp"' EXIT
echo "gpu-bundle: downloading ${packages[*]}"
(cd "$tmp/debs" && apt-get -qq -o APT::Sandbox::User="$(id -un)" download "${packages[@]}") || {
  echo "gpu-bundle: apt-get download failed (package lists missing? run: sudo apt-get update)" >&2; exit 1; }

stems=(train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)
if [ -f "$data_dir/${stems[0]}.gz" ]; then
  for s in "${stems[@]}"; do cp "$data_dir/$s.gz" "$tmp/fashion-mnist/"; done
else
  # Not installed here: take the files out of Debian's package without installing it.
  echo "gpu-bundle: $data_dir not found; taking Fashion-MNIST from Debian's dataset-fashion-mnist"
  (cd "$tmp" && apt-get -qq -o APT::Sandbox::User="$(id -un)" download dataset-fashion-mnist)
  dpkg-deb -x "$tmp"/dataset-fashion-mnist_*.deb "$tmp/unpacked"
  for s in "${stems[@]}"; do cp "$tmp/unpacked/usr/share/datasets/fashion-mnist/$s.gz" "$tmp/fashion-mnist/"; done
  rm -rf "$tmp/unpacked" "$tmp"/dataset-fashion-mnist_*.deb
fi
if [ -f "$peer" ]; then
  cp "$peer" "$tmp/peer/train_seed.py"
else
  echo "gpu-bundle: $peer not found: the GPU run compares against bench/train_peer.py"
fi

# The fallback build: the same pinned torch wheel (2.11.0+cu130) is on the GPU machine, and these
# need glibc 2.34 and libstdc++ of GCC 11 or newer.
if [ -f build/release/CMakeCache.txt ] &&
   cmake --build build/release -j"$(nproc)" --target dlready dlready_train_module dlready_gpu_tests >"$tmp/build.log" 2>&1; then
  mkdir -p "$tmp/prebuilt/lib"
  strip -o "$tmp/prebuilt/dlready" build/release/dlready
  strip -o "$tmp/prebuilt/libdlready_train.so" build/release/libdlready_train.so
  # The CPU module `dlready` loads for --device cpu (cmake/torch_layers.cmake), when this build has one.
  if [ -f build/release/libdlready_train_cpu.so ]; then
    strip -o "$tmp/prebuilt/libdlready_train_cpu.so" build/release/libdlready_train_cpu.so
  fi
  strip -o "$tmp/prebuilt/dlready_gpu_tests" build/release/tests/dlready_gpu_tests
  cp -L "$(ldconfig -p | awk '/libsodium.so.23 .*x86-64/ {print $NF; exit}')" "$tmp/prebuilt/lib/libsodium.so.23"
  echo "$(git rev-parse HEAD)$(git diff --quiet HEAD -- src cmake CMakeLists.txt tests || echo ' + uncommitted changes')" >"$tmp/prebuilt/COMMIT"
else
  echo "gpu-bundle: no release build here (scripts/setup.sh): the bundle has no fallback build"
fi
rm -f "$tmp/build.log"

# What is in it, with checksums, so a run can tell a damaged or partial copy.
(cd "$tmp" && find . -type f ! -name MANIFEST -printf '%P\n' | sort | xargs sha256sum) >"$tmp/MANIFEST"
size_kib=$(du -sk "$tmp" | cut -f1)
if ((size_kib > limit_mib * 1024)); then
  echo "gpu-bundle: $((size_kib / 1024)) MiB is over the ${limit_mib} MiB limit" >&2; exit 1
fi
rm -rf "$dest"
mv "$tmp" "$dest"
trap - EXIT
echo "gpu-bundle: $dest/ holds $(($(wc -l <"$dest/MANIFEST"))) files, $((size_kib / 1024)) MiB" \
     "(limit ${limit_mib} MiB); carry it with the working tree: see docs/gpu-validation.md"
