#!/usr/bin/env bash
# The README's performance table, measured and written: the doctor against collect_env, the
# training job against the tutorial's script (default threading), a one-epoch run's fixed cost
# (bench/one_epoch.sh), and the CPU epoch against its compute bound (`dlready bench gemm train`). Each writes its figures into bench/results/*.json;
# bench/readme_table.py renders them into the README between its markers (a test checks the
# README still matches them: edit the results by measuring, never the table by hand).
# usage: bench/record.sh [runs]   (default 5: alternating pairs, medians)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dlready=${DLREADY_BIN:-./build/release/dlready}
out=bench/results
export DLREADY_RECORD_DIR=$out
bench/doctor.sh "$runs"
DLREADY_SETTINGS=default bench/train.sh "$runs" 5 cpu
bench/one_epoch.sh "$runs"
bounds=()
for ((i = 0; i < runs; i++)); do
  "$dlready" bench gemm train --device cpu --json 2>/dev/null > "$out/.bench.json" || true
  bounds+=("$(python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["train"]["compute_bound"]; print(b["epoch_over_bound"], b["seconds"], b["gemm_fp32_tflops"], b["flops_per_sample"])' "$out/.bench.json")")
done
rm -f "$out/.bench.json"
python3 - "$out/bound-cpu.json" "${bounds[@]}" <<'PY'
import datetime, json, os, statistics, sys
rows = [[float(v) for v in r.split()] for r in sys.argv[2:]]
over = [r[0] for r in rows]
record = {"bench": "dlready bench gemm train", "date": datetime.date.today().isoformat(), "runs": len(rows),
          "cpus": os.cpu_count(), "epoch_over_bound": statistics.median(over), "epoch_over_bound_range": [min(over), max(over)],
          "bound_s": statistics.median(r[1] for r in rows), "gemm_fp32_tflops": statistics.median(r[2] for r in rows),
          "flops_per_sample": rows[0][3]}
print(f"the CPU epoch is {record['epoch_over_bound']:.2f}x its compute bound ({min(over):.2f}-{max(over):.2f}x; target <= 1.5x)")
with open(sys.argv[1], "w") as f:
    json.dump(record, f, indent=1, sort_keys=True)
    f.write("\n")
PY
python3 bench/readme_table.py --write
