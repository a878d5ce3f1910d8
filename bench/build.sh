#!/usr/bin/env bash
# Build time, measured: a clean build of each target set in a scratch build tree of this checkout
# (the pinned venv's LibTorch), ccache off, then the same with a warm ccache (what a second clone on
# this machine pays, e.g. CI), and an incremental rebuild after touching one train/ file.
# Medians of RUNS (default 2); run it with the machine otherwise idle.
# usage: bench/build.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2}
jobs=$(nproc)
scratch=$(mktemp -d /tmp/dlready-build-bench.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
seconds() { local t0=$SECONDS; "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }; echo $((SECONDS - t0)); }
configure() {  # configure DIR CCACHE(ON|OFF)
  rm -rf "$1" && cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLREADY_CCACHE="$2" >/dev/null
}
main_job=(--target dlready dlready_train_module)
row() {  # row LABEL CCACHE TARGETS...
  local label=$1 ccache=$2 t=()
  shift 2
  for ((i = 0; i < runs; i++)); do
    configure "$scratch/b" "$ccache"
    t+=("$(seconds cmake --build "$scratch/b" -j"$jobs" "$@")")
  done
  printf '%-46s %6s s   (runs: %s)\n' "$label" "$(printf '%s\n' "${t[@]}" | median)" "${t[*]}"
}
echo "clean builds on $jobs cores, medians of $runs"
row "main job (dlready + module), no ccache" OFF "${main_job[@]}"
row "everything the tests need, no ccache" OFF
if command -v ccache >/dev/null; then
  configure "$scratch/b" ON && cmake --build "$scratch/b" -j"$jobs" >/dev/null 2>&1  # fills the cache (same path: hits)
  row "main job, warm ccache" ON "${main_job[@]}"
  row "everything, warm ccache" ON
fi
configure "$scratch/b" OFF && cmake --build "$scratch/b" -j"$jobs" >/dev/null 2>&1
t=()
for ((i = 0; i < runs; i++)); do
  touch src/train/evaluation.cpp
  t+=("$(seconds cmake --build "$scratch/b" -j"$jobs")")
done
printf '%-46s %6s s   (runs: %s)\n' "incremental: one train/ file touched" "$(printf '%s\n' "${t[@]}" | median)" "${t[*]}"
