#!/usr/bin/env bash
# What a maintainer runs to publish a release (and what .github/workflows/release.yml runs on a
# tag): the five wheels of scripts/build-wheels.sh, built reproducibly, and their SHA256SUMS.
# Reproducible: SOURCE_DATE_EPOCH is the commit's time, so every zip entry carries it; the wheels'
# files are sorted; the executables hold no build time or build folder. `--check` builds a second
# time from fresh build folders and fails unless every wheel is byte for byte the first one's.
# usage: scripts/release.sh [--check]
#   writes dist/*.whl and dist/SHA256SUMS (upload the wheels; publish SHA256SUMS beside them)
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: scripts/release.sh [--check]" >&2; exit 2 ;;
esac
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  echo "release: the tree has uncommitted changes: a release is built from a commit (git stash, or commit them)" >&2
  exit 2
fi
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
fresh_build() {
  rm -rf dist build/portable-* build/module-kit-* build/windows
  ./scripts/build-wheels.sh
}
fresh_build
(cd dist && sha256sum ./*.whl | sed 's| \./| |' > SHA256SUMS)
echo "release: $(ls dist/*.whl | wc -l) wheels and dist/SHA256SUMS (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
cat dist/SHA256SUMS
if [ "$check" = 1 ]; then
  first=$(mktemp -d)
  trap 'rm -rf "$first"' EXIT
  cp dist/*.whl dist/SHA256SUMS "$first/"
  fresh_build
  (cd dist && sha256sum ./*.whl | sed 's| \./| |' > SHA256SUMS)
  if ! cmp -s "$first/SHA256SUMS" dist/SHA256SUMS; then
    echo "release: NOT reproducible: a second build gave other bytes:" >&2
    diff "$first/SHA256SUMS" dist/SHA256SUMS >&2 || true
    exit 1
  fi
  echo "release: reproducible: a second build from fresh build folders gave the same bytes"
fi
