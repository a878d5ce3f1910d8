#!/usr/bin/env bash
# Data-parallel scaling on this machine: samples/s of `dlready train` with 1 rank (global batch
# B) and with 2 ranks launched by `dlready launch` (B/2 each, the same global batch, Gloo over
# loopback), 1 intra-op thread per rank, alternating runs; prints medians and the ratio.
# usage: bench/dist.sh [runs] [epochs] [global batch]     (defaults 3, 2, 64)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
epochs=${2:-2}
batch=${3:-64}
data=${DLREADY_DATA:-/usr/share/datasets/fashion-mnist}
dlready=${DLREADY_BIN:-./build/release/dlready}
[ -x "$dlready" ] && [ -f "$(dirname "$dlready")/libdlready_train.so" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((i = 0; i < runs; i++)); do
  "$dlready" train --device cpu --threads 1 --epochs "$epochs" --batch-size "$batch" --data "$data" --json --no-progress \
    --overwrite --out "$tmp/one" 2>/dev/null > "$tmp/one.$i.json"
  OMP_NUM_THREADS=1 "$dlready" launch --nproc-per-node 2 --master-port 29650 -- "$dlready" train --device cpu \
    --epochs "$epochs" --batch-size $((batch / 2)) --data "$data" --json --no-progress --overwrite --out "$tmp/two" 2>/dev/null \
    | sed -n 's/^\[rank 0\] //p' > "$tmp/two.$i.json"
done
python3 - "$tmp" "$runs" "$epochs" "$batch" <<'PY'
import json, statistics, sys
tmp, runs, epochs, batch = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def sps(name):
    # The median epoch after the first (warm-up) one.
    out = []
    for i in range(runs):
        h = json.load(open(f"{tmp}/{name}.{i}.json"))["history"]
        out.append(statistics.median(e["samples_per_s"] for e in (h[1:] or h)))
    return statistics.median(out), json.load(open(f"{tmp}/{name}.{runs-1}.json"))["test_acc"]
(one, acc1), (two, acc2) = sps("one"), sps("two")
print(f"data-parallel scaling, SimpleNet, global batch {batch}, {epochs} epochs, CPU, 1 thread per rank; {runs} runs, medians")
print(f"  1 rank            {one:9.0f} samples/s   test acc {acc1*100:.2f}%")
print(f"  2 ranks (Gloo)    {two:9.0f} samples/s   test acc {acc2*100:.2f}%")
print(f"  scaling 1 -> 2 ranks: {two/one:.2f}x")
PY
