#!/usr/bin/env bash
# What a run costs beyond its training (issue 63's fixed cost): `dlready train --epochs 1` on the
# CPU, each run's wall time (spawn to exit, as a user waits for it) less the epoch it reports —
# start-up, LibTorch's own start, the data, the evaluation, the records and the exit. Medians of
# `runs` runs after one warm-up (which also writes the decoded dataset copy a first run makes).
# usage: bench/one_epoch.sh [runs]   (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
data=${DLREADY_DATA:-/usr/share/datasets/fashion-mnist}
dlready=${DLREADY_BIN:-./build/release/dlready}
[ -x "$dlready" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_once() {
  python3 bench/measure.py --stdout "$tmp/run.json" -- "$dlready" train --device cpu --epochs 1 --data "$data" \
    --json --no-progress --overwrite --out "$tmp/run"
}
run_once >/dev/null
rows=()
for ((i = 0; i < runs; i++)); do
  read -r wall rss rc < <(run_once)
  [ "$rc" = 0 ] || { echo "dlready train failed (exit $rc)" >&2; exit 1; }
  epoch=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["history"][0]["seconds"])' "$tmp/run.json")
  rows+=("$wall $epoch $rss")
done
python3 - "${DLREADY_RECORD_DIR:-}" "${rows[@]}" <<'PY'
import datetime, json, os, statistics, sys
rows = [[float(v) for v in r.split()] for r in sys.argv[2:]]
walls, epochs, rest = [r[0] for r in rows], [r[1] for r in rows], [r[0] - r[1] for r in rows]
m = statistics.median
print(f"dlready train --epochs 1 (CPU), {len(rows)} runs, medians: wall {m(walls):.3f} s ({min(walls):.3f}-{max(walls):.3f}), "
      f"epoch {m(epochs):.3f} s, beyond the epoch {m(rest):.3f} s ({min(rest):.3f}-{max(rest):.3f}; target <= 0.3 s), "
      f"peak RSS {max(r[2] for r in rows) / 1024:.0f} MiB")
if sys.argv[1]:
    os.makedirs(sys.argv[1], exist_ok=True)
    record = {"bench": "one_epoch.sh", "date": datetime.date.today().isoformat(), "runs": len(rows), "cpus": os.cpu_count(),
              "wall_s": m(walls), "wall_s_range": [min(walls), max(walls)], "epoch_s": m(epochs),
              "rest_s": m(rest), "rest_s_range": [min(rest), max(rest)], "rss_mib": max(r[2] for r in rows) / 1024}
    with open(os.path.join(sys.argv[1], "one-epoch-cpu.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
PY
