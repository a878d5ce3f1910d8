#!/usr/bin/env bash
# Install-to-verdict: from nothing (a fresh venv) to an answer about this machine, side by side,
# alternating runs — dlready's wheel (pip install of the file, then `dlready doctor`) against uv's
# planner (pip install of uv from PyPI, then `uv pip install --dry-run --torch-backend=auto torch`,
# what uv would install for this machine). Prints medians and the ratio — only when the peer gave
# a plan: a peer that fails (uv needs download.pytorch.org) is named with its last line instead.
# dlready's wheel is installed offline from dist/ (scripts/build-wheels.sh). Both pip installs use
# pip's cache, as a user's second install would; the first round warms it and is not counted.
# usage: bench/wheel_install.sh [runs]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
wheel=$(ls dist/dlready-*-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl 2>/dev/null | head -1)
[ -n "$wheel" ] || { echo "no wheel in dist/: scripts/build-wheels.sh" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
dlready_round() {
  rm -rf "$work/d" && python3 -m venv --without-pip "$work/d" >/dev/null
  local t0; t0=$(now)
  python3 -m pip --python "$work/d/bin/python" install -q --no-index "$wheel" >/dev/null 2>&1 ||
    python3 -m pip install -q --no-index --prefix "$work/d" "$wheel" >/dev/null
  "$work/d/bin/dlready" doctor >/dev/null || true   # exit 1: an error finding is an answer too
  echo "$(now) - $t0" | bc
}
peer_round() {
  rm -rf "$work/u" && python3 -m venv "$work/u" >/dev/null
  local t0 rc=0; t0=$(now)
  "$work/u/bin/pip" install -q uv==0.13.9 >/dev/null 2>&1 || rc=$?
  "$work/u/bin/uv" pip install --python "$work/u/bin/python" --dry-run --torch-backend=auto torch > "$work/peer.log" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || { echo "failed: $(tail -1 "$work/peer.log")"; return; }
  echo "$(now) - $t0" | bc
}
dlready_round >/dev/null   # warm pip's cache for both
first=$(peer_round)
if [[ $first == failed* ]]; then
  d=(); for ((i = 0; i < runs; i++)); do d+=("$(dlready_round)"); done
  python3 -c "import statistics,sys; print('dlready wheel: pip install + dlready doctor   median %.2f s (%d runs)' % (statistics.median(map(float, sys.argv[1:])), len(sys.argv) - 1))" "${d[@]}"
  echo "uv --torch-backend=auto --dry-run: $first (no ratio)"
  exit 0
fi
d=(); l=()
for ((i = 0; i < runs; i++)); do
  d+=("$(dlready_round)")
  l+=("$(peer_round)")
done
python3 - "${d[*]}" "${l[*]}" <<'PY'
import statistics, sys
d, l = ([float(x) for x in a.split()] for a in sys.argv[1:3])
md, ml = statistics.median(d), statistics.median(l)
print(f"runs: {len(d)} each, alternating, pip's cache warm")
print(f"dlready wheel: pip install + dlready doctor      median {md:6.2f} s")
print(f"uv: pip install uv + --torch-backend=auto --dry-run  median {ml:6.2f} s")
print(f"ratio (uv / dlready): {ml / md:.1f}x")
PY
