#!/usr/bin/env bash
# The Windows doctor's time under wine against wine's start-up of an empty Windows program, both
# in the same prefix, alternating, N runs each (default 7); medians and the difference (what the
# doctor itself costs), and the size of dlready.exe. Needs the build's dlready.exe (cmake builds it
# in <build>/windows when mingw-w64 is installed) and wine64.
# usage: bench/windows_doctor.sh [BUILD_DIR] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}/windows
n=${2:-7}
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || { echo "bench/windows_doctor.sh: $wine not found (scripts/setup.sh installs wine64)" >&2; exit 3; }
[ -f "$build/dlready.exe" ] || { echo "bench/windows_doctor.sh: $build/dlready.exe not built" >&2; exit 3; }
export WINEPREFIX=${WINEPREFIX:-$PWD/$build/bench-prefix} WINEDEBUG=-all
"$wine" "$build/fakes/empty_program.exe" 2>/dev/null || true   # makes the prefix once (~10 s)
# Also without DXGI (WINEDLLOVERRIDES=dxgi=): wine's own DXGI starts its Direct3D layer on first use,
# which a Windows machine's DXGI does not cost; the difference is that start.
doctor=() empty=() no_dxgi=()
for _ in $(seq "$n"); do
  empty+=("$(python3 bench/measure.py -- "$wine" "$build/fakes/empty_program.exe" | cut -d' ' -f1)")
  doctor+=("$(python3 bench/measure.py -- "$wine" "$build/dlready.exe" doctor --json | cut -d' ' -f1)")
  no_dxgi+=("$(WINEDLLOVERRIDES=dxgi= python3 bench/measure.py -- "$wine" "$build/dlready.exe" doctor --json | cut -d' ' -f1)")
done
python3 - "${#empty[@]}" "${empty[@]}" "${doctor[@]}" "${no_dxgi[@]}" "$build/dlready.exe" <<'PY'
import os, statistics, sys
n = int(sys.argv[1]); empty = list(map(float, sys.argv[2:2 + n])); doctor = list(map(float, sys.argv[2 + n:2 + 2 * n]))
no_dxgi = list(map(float, sys.argv[2 + 2 * n:2 + 3 * n]))
me, md, mn = statistics.median(empty), statistics.median(doctor), statistics.median(no_dxgi)
print(f"wine, empty program:        {me * 1000:8.1f} ms (median of {n})")
print(f"wine, dlready doctor --json: {md * 1000:7.1f} ms (median of {n})")
print(f"the doctor itself:          {(md - me) * 1000:8.1f} ms ({md / me:.2f}x the empty program)")
print(f"  without DXGI (dxgi=):     {mn * 1000:8.1f} ms ({(mn - me) * 1000:.1f} ms of its own; wine's Direct3D start: {(md - mn) * 1000:.1f} ms)")
print(f"dlready.exe: {os.path.getsize(sys.argv[-1]) / 2**20:.2f} MiB (unstripped; scripts/build-windows.sh strips it)")
PY
