#!/usr/bin/env bash
# dlready doctor --json vs `python -m torch.utils.collect_env` (the pinned venv), side by side,
# alternating runs; prints medians, the wall-time ratio and both peak RSS.
# usage: bench/doctor.sh [runs]   (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
venv=${DLREADY_VENV:-$HOME/.cache/dlready/venv-torch2.11.0-tv0.26.0}
dlready=${DLREADY_BIN:-./build/release/dlready}
python=${DLREADY_PYTHON:-$venv/bin/python}
[ -x "$dlready" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
command -v "$python" >/dev/null || { echo "no python at $python: scripts/setup.sh" >&2; exit 2; }
# A venv's python: the doctor is pointed at it as an activated venv would be.
[ -f "$(dirname "$(command -v "$python")")/../pyvenv.cfg" ] && export VIRTUAL_ENV=$(cd "$(dirname "$(command -v "$python")")/.." && pwd)
d_t=(); d_r=(); c_t=(); c_r=()
"$dlready" doctor --json >/dev/null || true   # warm the page cache for both sides
"$python" -m torch.utils.collect_env >/dev/null 2>&1 || true
for ((i = 0; i < runs; i++)); do
  read -r t r _ < <(python3 bench/measure.py "$dlready" doctor --json)
  d_t+=("$t"); d_r+=("$r")
  read -r t r _ < <(python3 bench/measure.py "$python" -m torch.utils.collect_env)
  c_t+=("$t"); c_r+=("$r")
done
python3 - "${d_t[*]}" "${d_r[*]}" "${c_t[*]}" "${c_r[*]}" <<'PY'
import statistics, sys
dt, dr, ct, cr = ([float(x) for x in a.split()] for a in sys.argv[1:5])
md, mc = statistics.median(dt), statistics.median(ct)
print(f"runs: {len(dt)} each, alternating")
print(f"dlready doctor --json      median {md*1000:8.1f} ms   peak RSS {max(dr)/1024:6.1f} MiB")
print(f"torch.utils.collect_env    median {mc*1000:8.1f} ms   peak RSS {max(cr)/1024:6.1f} MiB")
print(f"speed-up (median wall time): {mc/md:.1f}x   target >= 40x, <= 20 MiB RSS")
PY
