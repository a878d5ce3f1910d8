#!/usr/bin/env bash
# dlready explain on a long traceback (a training log of ~20,000 lines with the error at its end)
# vs the peer a user has: grep -F for the catalogue's fixed texts (it finds the lines, but reads
# no values and names no cause), side by side, alternating runs; medians, the ratio, peak RSS.
# usage: bench/explain.sh [runs]   (default 11)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-11}
dlready=${DLREADY_BIN:-./build/release/dlready}
[ -x "$dlready" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/log.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(20000):
        f.write(f"epoch {i // 100} step {i}: loss=0.{i % 997:03d} lr=3e-4 /home/alice/run/train.py:{i % 400}\n")
    f.write('Traceback (most recent call last):\n  File "/home/alice/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 310\n')
    f.write("RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver\n")
PY
# The fixed texts of every signature (the longest fixed piece of each pattern), for grep -F.
awk -F'\t' '!/^#/ && NF >= 4 { n = split($4, parts, /\{[a-z_]+(:word)?\}/); best = "";
  for (i = 1; i <= n; i++) if (length(parts[i]) > length(best)) best = parts[i]; print best }' data/error_signatures.tsv > "$work/fixed.txt"
e_t=(); e_r=(); g_t=(); g_r=()
for ((i = 0; i < runs; i++)); do
  read -r t r _ < <(python3 bench/measure.py "$dlready" explain --no-examine --from "$work/log.txt")
  e_t+=("$t"); e_r+=("$r")
  read -r t r _ < <(python3 bench/measure.py grep -c -F -f "$work/fixed.txt" "$work/log.txt")
  g_t+=("$t"); g_r+=("$r")
done
python3 - "${e_t[*]}" "${e_r[*]}" "${g_t[*]}" "${g_r[*]}" "$(wc -c < "$work/log.txt")" <<'PY'
import statistics, sys
et, er, gt, gr = ([float(x) for x in a.split()] for a in sys.argv[1:5])
me, mg = statistics.median(et), statistics.median(gt)
print(f"runs: {len(et)} each, alternating; the log: {int(sys.argv[5]) / 1048576:.2f} MiB, 20,003 lines")
print(f"dlready explain --no-examine  median {me*1000:7.1f} ms   peak RSS {max(er)/1024:6.1f} MiB")
print(f"grep -c -F -f (fixed texts)   median {mg*1000:7.1f} ms   peak RSS {max(gr)/1024:6.1f} MiB")
print(f"explain / grep: {me/mg:.1f}x   target: explain <= 20 ms")
PY
