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
echo "== the reference job, 1 epoch, $runs runs each, alternating (from --json: train_seconds and the epoch's seconds)"
# The epoch's own steps are the same code on both sides and swing by +-50% on a shared VM; what
# sealing changes is the checkpoint, written after the steps, so the end of the epoch (evaluation,
# checkpoint, metrics.jsonl, curves.svg = train_seconds - the epoch's seconds) is measured apart.
for every in 0 100; do
  plain=(); sealed=()
  for ((i = 0; i < runs; i++)); do
    for side in plain sealed; do
      extra=""; [ $side = sealed ] && extra="--key-file $tmp/key"
      s=$("$dlready" train --epochs 1 --threads 2 --no-progress --json --checkpoint-every $every $extra \
            --out "$tmp/run-$side" --overwrite 2>/dev/null |
          python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["train_seconds"], j["history"][0]["seconds"], sep=",")')
      if [ $side = plain ]; then plain+=("$s"); else sealed+=("$s"); fi
    done
  done
  python3 - "$every" "${plain[*]}" "${sealed[*]}" <<'PY'
import statistics, sys
every = int(sys.argv[1])
p = [tuple(map(float, x.split(","))) for x in sys.argv[2].split()]
s = [tuple(map(float, x.split(","))) for x in sys.argv[3].split()]
med = statistics.median
# Runs alternate, so each sealed run has a plain neighbour: medians of the pairs' differences.
whole = med(b[0] - a[0] for a, b in zip(p, s))
end = med((b[0] - b[1]) - (a[0] - a[1]) for a, b in zip(p, s))
label = "one checkpoint per epoch" if every == 0 else f"--checkpoint-every {every} (10 checkpoints)"
print(f"{label}: epoch plain {med(x[0] for x in p):.3f} s, sealed {med(x[0] for x in s):.3f} s; "
      f"paired overhead: whole epoch {1000*whole:+.1f} ms, its end (eval + checkpoint + files: "
      f"{1000*med(x[0]-x[1] for x in p):.1f} ms plain) {1000*end:+.1f} ms")
PY
done
