#!/usr/bin/env bash
# What loading the wheel's CUDA libraries by path first (cli/cuda_preload) costs when the LibTorch
# module is opened: in one Python process per run, the module alone (RTLD_GLOBAL, as before the
# preload) against dlready's preload list (DLREADY_TRACE_LOADING) then the module, alternating;
# prints the medians of the wall time and of the resident memory after loading, and the ratio.
# usage: bench/module_load.sh [runs]   (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
venv=${DLREADY_VENV:-$HOME/.cache/dlready/venv-torch2.11.0-tv0.26.0}
dlready=${DLREADY_BIN:-./build/release/dlready}
python=${DLREADY_PYTHON:-$venv/bin/python}
[ -x "$dlready" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
list=$(mktemp)
trap 'rm -f "$list"' EXIT
DLREADY_TRACE_LOADING=1 "$dlready" eval /nonexistent.pt 2>"$list" >/dev/null || true
grep -q '^dlready: preload' "$list" || { echo "no preload (a CPU-only LibTorch): nothing to measure"; exit 0; }
module="$(dirname "$dlready")/libdlready_train.so"
"$python" - "$runs" "$list" "$module" <<'PY'
import statistics, subprocess, sys
runs, listing, module = int(sys.argv[1]), sys.argv[2], sys.argv[3]
probe = r'''
import ctypes, sys, time
mode, listing, module = sys.argv[1:4]
lines = [l for l in open(listing) if l.startswith("dlready: preload")]
t0 = time.perf_counter()
if mode == "preload":
    for l in lines:
        ctypes.CDLL(l.split()[2], mode=ctypes.RTLD_GLOBAL if "(global)" in l else ctypes.RTLD_LOCAL)
ctypes.CDLL(module, mode=ctypes.RTLD_GLOBAL)
ms = (time.perf_counter() - t0) * 1000
rss = int([l for l in open("/proc/self/status") if l.startswith("VmRSS")][0].split()[1]) / 1024
print(ms, rss)
'''
res = {"module": [], "preload": []}
for _ in range(runs):
    for mode in res:
        out = subprocess.run([sys.executable, "-c", probe, mode, listing, module], capture_output=True, text=True, check=True)
        res[mode].append(tuple(map(float, out.stdout.split())))
med = {m: (statistics.median(v[0] for v in r), statistics.median(v[1] for v in r)) for m, r in res.items()}
n = sum(1 for l in open(listing) if l.startswith("dlready: preload"))
print(f"module alone:          {med['module'][0]:7.0f} ms  {med['module'][1]:6.0f} MiB resident")
print(f"preload ({n} libs) + module: {med['preload'][0]:7.0f} ms  {med['preload'][1]:6.0f} MiB resident")
print(f"preload costs {med['preload'][0] - med['module'][0]:+.0f} ms ({med['preload'][0] / med['module'][0]:.2f}x), "
      f"{med['preload'][1] - med['module'][1]:+.0f} MiB (medians of {runs})")
PY
