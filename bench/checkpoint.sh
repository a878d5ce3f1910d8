#!/usr/bin/env bash
# Encrypted checkpoints (issue 18): what sealing costs.
#  1. save and load throughput of a checkpoint-sized file and a large one, plain vs sealed
#     (tests/tools/seal_bench.cpp: the same atomic writer on both sides, fsync included);
#  2. the reference job's epoch (SimpleNet, Fashion-MNIST, batch 64, one checkpoint per epoch, and
#     with --checkpoint-every 100) with and without --key-file, alternating; medians.
# usage: bench/checkpoint.sh [runs]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dlready=${DLREADY_BIN:-./build/release/dlready}
seal_bench=$(dirname "$dlready")/tests/dlready_seal_bench
[ -x "$dlready" ] && [ -x "$seal_bench" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== save/load throughput, a checkpoint's size (SimpleNet with Adam: 2.4 MB)"
"$seal_bench" "$tmp" 3 $((runs * 4))
echo "== save/load throughput, 256 MiB"
"$seal_bench" "$tmp" 256 "$runs"
"$dlready" keygen --out "$tmp/key" >/dev/null
echo "== the reference job, 1 epoch (train_seconds from --json), $runs runs each, alternating"
for every in 0 100; do
  plain=(); sealed=()
  for ((i = 0; i < runs; i++)); do
    for side in plain sealed; do
      extra=""; [ $side = sealed ] && extra="--key-file $tmp/key"
      s=$("$dlready" train --epochs 1 --threads 2 --no-progress --json --checkpoint-every $every $extra \
            --out "$tmp/run-$side" --overwrite 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["train_seconds"])')
      if [ $side = plain ]; then plain+=("$s"); else sealed+=("$s"); fi
    done
  done
  python3 - "$every" "${plain[*]}" "${sealed[*]}" <<'PY'
import statistics, sys
every = int(sys.argv[1]); p = [float(x) for x in sys.argv[2].split()]; s = [float(x) for x in sys.argv[3].split()]
mp, ms = statistics.median(p), statistics.median(s)
label = "one checkpoint per epoch" if every == 0 else f"--checkpoint-every {every} (10 checkpoints)"
print(f"{label}: plain {mp:.3f} s, sealed {ms:.3f} s per epoch -> overhead {1000*(ms-mp):+.1f} ms ({100*(ms/mp-1):+.1f}%)")
PY
done
