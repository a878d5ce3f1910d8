#!/usr/bin/env bash
# dlready quantize (dynamic and static int8) against the Python peer, torch's quantize_dynamic on the
# same SimpleNet weights (bench/quantize_peer.py), same torch, same machine, alternating runs.
# Prints the median of each figure, the ratios, and whether issue 19's targets hold: int8 accuracy
# within 0.5 points of fp32, int8 file at most 0.3x fp32, latency (batch 1) and throughput
# (batch 256) at least the peer's.
# usage: bench/quantize.sh [runs] [checkpoint]   (defaults: 3 runs; a checkpoint trained here, 2 epochs)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
checkpoint=${2:-}
venv=${DLREADY_VENV:-$HOME/.cache/dlready/venv-torch2.11.0-tv0.26.0}
data=${DLREADY_DATA:-/usr/share/datasets/fashion-mnist}
dlready=${DLREADY_BIN:-./build/release/dlready}
python=${DLREADY_PYTHON:-$venv/bin/python}
[ -x "$dlready" ] && [ -f "$(dirname "$dlready")/libdlready_train.so" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$checkpoint" ]; then
  "$dlready" train --epochs 2 --data "$data" --no-progress --out "$tmp/run" > /dev/null
  checkpoint=$tmp/run/checkpoint.dlr
fi
"$dlready" export-model "$checkpoint" --out "$tmp/weights.pt" > /dev/null
for ((i = 0; i < runs; i++)); do
  "$dlready" quantize "$checkpoint" --scheme dynamic --data "$data" --out "$tmp/dynamic.safetensors" --json > "$tmp/dynamic.$i.json"
  "$dlready" quantize "$checkpoint" --scheme static --data "$data" --out "$tmp/static.safetensors" --json > "$tmp/static.$i.json"
  "$python" bench/quantize_peer.py "$tmp/weights.pt" "$data" > "$tmp/peer.$i.json"
done
python3 - "$tmp" "$runs" <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def med(side, key):
    return statistics.median(json.load(open(f"{tmp}/{side}.{i}.json"))[key] for i in range(runs))
cols = [("fp32 (dlready)", "dynamic", "fp32"), ("int8 dynamic", "dynamic", "int8"), ("int8 static", "static", "int8"),
        ("fp32 (python)", "peer", "fp32"), ("int8 quantize_dynamic", "peer", "int8")]
rows = [("test accuracy %", "test_acc", 100, "%.2f"), ("file bytes", "bytes", 1, "%.0f"),
        ("latency batch 1, us", "latency_us_batch1", 1, "%.1f"), ("images/s batch 256", "images_per_s_batch256", 1, "%.0f")]
peer = json.load(open(f"{tmp}/peer.0.json"))
print(f"median of {runs} runs; engine {peer['engine']}, {peer['threads']} threads (both sides)")
print("%-22s" % "" + "".join("%22s" % c[0] for c in cols))
for label, key, scale, fmt in rows:
    print("%-22s" % label + "".join("%22s" % (fmt % (scale * med(side, f"{prefix}_{key}"))) for _, side, prefix in cols))
ok = True
for scheme in ("dynamic", "static"):
    acc = 100 * (med(scheme, "int8_test_acc") - med(scheme, "fp32_test_acc"))
    size = med(scheme, "int8_bytes") / med(scheme, "fp32_bytes")
    lat = med("peer", "int8_latency_us_batch1") / med(scheme, "int8_latency_us_batch1")
    thr = med(scheme, "int8_images_per_s_batch256") / med("peer", "int8_images_per_s_batch256")
    checks = [abs(acc) <= 0.5 or acc > 0, size <= 0.3, lat >= 1, thr >= 1]
    ok = ok and all(checks)
    print(f"{scheme:8s} int8 vs fp32: accuracy {acc:+.2f} pt, size {size:.2f}x;  vs quantize_dynamic: "
          f"latency {lat:.2f}x faster, throughput {thr:.2f}x   targets {'met' if all(checks) else 'MISSED'}")
sys.exit(0 if ok else 1)
PY
