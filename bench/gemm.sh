#!/usr/bin/env bash
# `dlready bench gemm` vs torch.matmul in Python (bench/gemm_peer.py), same torch, same device,
# same sizes, dtypes and recipe. Alternating runs; prints the median TFLOP/s of each side per
# (dtype, n) and the ratio ours/peer (target >= 0.95; the issue's floor is 0.90).
# usage: bench/gemm.sh [runs] [device]      (defaults 3, cpu)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
device=${2:-cpu}
venv=${DLREADY_VENV:-$HOME/.cache/dlready/venv-torch2.11.0-tv0.26.0}
dlready=${DLREADY_BIN:-./build/release/dlready}
python=${DLREADY_PYTHON:-$venv/bin/python}
[ -x "$dlready" ] && [ -f "$(dirname "$dlready")/libdlready_train.so" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
if [ "$device" = cpu ]; then sizes=256,512,1024,2048; dtypes=fp32,bf16; else sizes=1024,2048,4096,8192; dtypes=fp32,tf32,fp16,bf16; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((i = 0; i < runs; i++)); do
  "$dlready" bench gemm --device "$device" --sizes "$sizes" --json 2>/dev/null > "$tmp/ours.$i.json"
  "$python" bench/gemm_peer.py --device "$device" --sizes "$sizes" --dtypes "$dtypes" > "$tmp/peer.$i.json"
done
python3 - "$tmp" "$runs" "$device" <<'PY'
import json, statistics, sys
tmp, runs, device = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ours, peer = {}, {}
for i in range(runs):
    o = json.load(open(f"{tmp}/ours.{i}.json"))
    for r in o["gemm"]["rows"]:
        ours.setdefault((r["dtype"], r["n"]), []).append(r["tflops"])
    for r in json.load(open(f"{tmp}/peer.{i}.json"))["rows"]:
        peer.setdefault((r["dtype"], r["n"]), []).append(r["tflops"])
print(f"dlready bench gemm vs torch.matmul (Python), {device}, {runs} alternating run(s), medians")
print(f"  peak: {o['gemm']['peak_source']}")
print("  dtype      n   dlready TFLOP/s   torch.matmul TFLOP/s   ratio")
ratios = []
for key in sorted(ours, key=lambda k: (k[0], k[1])):
    if key not in peer:
        continue
    a, b = statistics.median(ours[key]), statistics.median(peer[key])
    ratios.append(a / b)
    print(f"  {key[0]:5s} {key[1]:6d} {a:17.3f} {b:22.3f}   {a/b:5.2f}")
print(f"  median ratio {statistics.median(ratios):.2f}, worst {min(ratios):.2f} (target >= 0.95)")
PY
