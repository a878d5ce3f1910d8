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
# Peak RSS as /usr/bin/time reports it (issue 63: a forked interpreter's rusage can count its own pages).
time_rss=()
if [ -x /usr/bin/time ]; then
  for ((i = 0; i < runs; i++)); do
    # (the doctor exits 1 when it finds an error: the figure is still its last line)
    time_rss+=("$({ /usr/bin/time -f '%M' "$dlready" doctor --json >/dev/null || true; } 2>&1 | tail -n 1)")
  done
fi
python3 - "${d_t[*]}" "${d_r[*]}" "${c_t[*]}" "${c_r[*]}" "${time_rss[*]:-}" "${DLREADY_RECORD_DIR:-}" <<'PY'
import datetime, json, os, statistics, sys
dt, dr, ct, cr = ([float(x) for x in a.split()] for a in sys.argv[1:5])
trss = [float(x) for x in sys.argv[5].split()]
md, mc = statistics.median(dt), statistics.median(ct)
pairs = [c / d for d, c in zip(dt, ct)]
print(f"runs: {len(dt)} each, alternating")
print(f"dlready doctor --json      median {md*1000:8.1f} ms ({min(dt)*1000:.1f}-{max(dt)*1000:.1f})   peak RSS {max(dr)/1024:6.1f} MiB")
print(f"torch.utils.collect_env    median {mc*1000:8.1f} ms ({min(ct)*1000:.1f}-{max(ct)*1000:.1f})   peak RSS {max(cr)/1024:6.1f} MiB")
if trss:
    print(f"dlready doctor --json under /usr/bin/time: peak RSS median {statistics.median(trss)/1024:.1f} MiB (target <= 8 MB)")
print(f"speed-up {mc/md:.1f}x of the medians, {statistics.median(pairs):.1f}x the median pair "
      f"({min(pairs):.1f}-{max(pairs):.1f}x); target >= 300x")
if sys.argv[6]:
    os.makedirs(sys.argv[6], exist_ok=True)
    record = {"bench": "doctor.sh", "date": datetime.date.today().isoformat(), "runs": len(dt),
              "cpus": os.cpu_count(), "dlready_ms": md * 1000, "dlready_ms_range": [min(dt) * 1000, max(dt) * 1000],
              "peer_ms": mc * 1000, "peer_ms_range": [min(ct) * 1000, max(ct) * 1000],
              "ratio_of_medians": mc / md, "ratio_median_pair": statistics.median(pairs),
              "ratio_pair_range": [min(pairs), max(pairs)],
              "dlready_rss_mib_time": statistics.median(trss) / 1024 if trss else None,
              "peer_rss_mib": max(cr) / 1024}
    with open(os.path.join(sys.argv[6], "doctor.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
PY
# The floor (issue 34): what the driver itself costs — cuInit and the device queries, then NVML's
# init and queries, each in a fresh process as the doctor's children do — against the doctor's
# text and --json runs; both should stay within 30 ms of it.
t_t=(); t_j=()
for ((i = 0; i < runs; i++)); do
  read -r t _ < <(python3 bench/measure.py "$dlready" doctor --no-color); t_t+=("$t")
  read -r t _ < <(python3 bench/measure.py "$dlready" doctor --json); t_j+=("$t")
done
floors=()
for ((i = 0; i < runs; i++)); do
  floors+=("$(python3 - <<'PY'
import ctypes, subprocess, sys, time
child = r"""
import ctypes, time
t = time.perf_counter()
try:
    cu = ctypes.CDLL("libcuda.so.1")
except OSError:
    print("none"); raise SystemExit
n = ctypes.c_int(0); d = ctypes.c_int(0); name = ctypes.create_string_buffer(256)
if cu.cuInit(0) == 0 and cu.cuDeviceGetCount(ctypes.byref(n)) == 0:
    for i in range(n.value):
        cu.cuDeviceGet(ctypes.byref(d), i); cu.cuDeviceGetName(name, 256, d)
        for a in (75, 76, 16):
            v = ctypes.c_int(0); cu.cuDeviceGetAttribute(ctypes.byref(v), a, d)
print((time.perf_counter() - t) * 1000)
"""
nvml = r"""
import ctypes, time
t = time.perf_counter()
try:
    ml = ctypes.CDLL("libnvidia-ml.so.1")
except OSError:
    print(0); raise SystemExit
n = ctypes.c_uint(0); h = ctypes.c_void_p(); name = ctypes.create_string_buffer(96)
if ml.nvmlInit_v2() == 0 and ml.nvmlDeviceGetCount_v2(ctypes.byref(n)) == 0:
    for i in range(n.value):
        ml.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(h)); ml.nvmlDeviceGetName(h, name, 96)
    ml.nvmlShutdown()
print((time.perf_counter() - t) * 1000)
"""
out = [subprocess.run([sys.executable, "-c", c], capture_output=True, text=True).stdout.strip() for c in (child, nvml)]
print("none" if out[0] == "none" else float(out[0]) + float(out[1] or 0))
PY
)")
done
python3 - "${t_t[*]}" "${t_j[*]}" "${floors[*]}" <<'PY'
import statistics, sys
text, js = (statistics.median(float(x) for x in a.split()) * 1000 for a in sys.argv[1:3])
if "none" in sys.argv[3]:
    print(f"doctor {text:.1f} ms, doctor --json {js:.1f} ms; floor: no libcuda.so.1 here (a GPU machine measures it)")
else:
    floor = statistics.median(float(x) for x in sys.argv[3].split())
    print(f"floor (cuInit + device queries, NVML init + queries): {floor:.1f} ms; doctor {text:.1f} ms "
          f"(+{text - floor:.1f}), doctor --json {js:.1f} ms (+{js - floor:.1f}); target: both within +30 ms")
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
