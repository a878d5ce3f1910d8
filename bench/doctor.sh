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
# The scan cache (issue 16): on a fixture machine with a GPU (the suite's fake driver, an H100) and
# the pinned wheel's real libtorch_cuda.so, the doctor reads that library's GPU code; warm, from
# the cache, it should cost within 1.5x of the same machine without a GPU (nothing to scan).
fixture_root=${DLREADY_FIXTURE_ROOT_BIN:-$(dirname "$dlready")/tests/dlready_fixture_root}
wheel_lib=$venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so
if [ -x "$fixture_root" ] && [ -f "$wheel_lib" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$fixture_root" gpu "$tmp/gpu" --libtorch-cuda "$wheel_lib" >/dev/null
  "$fixture_root" no-gpu "$tmp/nogpu" --libtorch-cuda "$wheel_lib" >/dev/null
  export XDG_CACHE_HOME=$tmp/cache VIRTUAL_ENV=/home/alice/venv
  "$dlready" doctor --root "$tmp/gpu" --json >/dev/null || true   # fills the cache
  w=(); c=(); n=()
  for ((i = 0; i < runs; i++)); do
    read -r t _ < <(python3 bench/measure.py "$dlready" doctor --root "$tmp/gpu" --json); w+=("$t")
    read -r t _ < <(python3 bench/measure.py "$dlready" doctor --root "$tmp/gpu" --json --no-cache); c+=("$t")
    read -r t _ < <(python3 bench/measure.py "$dlready" doctor --root "$tmp/nogpu" --json); n+=("$t")
  done
  # The cache's history must not cost a run (issue 34, item 5): 500 scans of other libraries, then
  # the same warm run (each run reads only its own entries; the folder keeps 64 at most).
  mapfile -t libs < <(find /usr/lib/x86_64-linux-gnu -maxdepth 1 -name '*.so.*' -type f | sort | head -500)
  for l in "${libs[@]}"; do "$dlready" doctor --json --no-driver-probe --binary "$l" >/dev/null 2>&1 || true; done
  "$dlready" doctor --root "$tmp/gpu" --json >/dev/null || true   # its own entries back, if the bound dropped them
  h=()
  for ((i = 0; i < runs; i++)); do
    read -r t _ < <(python3 bench/measure.py "$dlready" doctor --root "$tmp/gpu" --json); h+=("$t")
  done
  entries=$(find "$tmp/cache/dlready/doctor-cache" -name '*.json' | wc -l)
  bytes=$(du -sb "$tmp/cache/dlready/doctor-cache" | cut -f1)
  python3 - "${w[*]}" "${c[*]}" "${n[*]}" "${h[*]}" "${#libs[@]}" "$entries" "$bytes" <<'PY'
import statistics, sys
w, c, n, h = (statistics.median(float(x) for x in a.split()) for a in sys.argv[1:5])
print(f"GPU machine + real libtorch_cuda.so: warm (cache) {w*1000:6.1f} ms, --no-cache {c*1000:6.1f} ms; "
      f"same machine without GPU {n*1000:6.1f} ms")
print(f"warm GPU run / GPU-less run: {w/n:.2f}x (target <= 1.5x); the cache saves {c/w:.1f}x")
print(f"after {sys.argv[5]} more scans ({sys.argv[6]} entries, {int(sys.argv[7]) // 1024} KiB kept): warm {h*1000:6.1f} ms "
      f"= {h/w:.2f}x the warm run with a small cache (target ~1x)")
PY
fi
