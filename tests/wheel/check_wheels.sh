#!/usr/bin/env bash
# The wheels in dist/ (scripts/build-wheels.sh) as a user gets them, offline: installed by real pip
# into a fresh venv, with --target, --prefix and --user, and run by uv's `uv tool run` (uvx); the
# Linux executables' needs (DT_NEEDED, highest GLIBC symbol version); the aarch64 executable run
# for real under qemu-aarch64 with Debian's aarch64 C library; the Windows executable under wine; the
# LibTorch module built from the wheel's sources against the pinned venv's torch, and trained with.
# CTest runs it (label "wheel"); it fails on the first check that does not hold, naming it.
# usage: tests/wheel/check_wheels.sh SOURCE_DIR UV
set -euo pipefail
src=$1
uv=$2
dist=$src/dist
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_wheels: FAILED: $*" >&2; exit 1; }
pass() { echo "check_wheels: ok: $*"; }

x86=$(ls "$dist"/dlready-*-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl 2>/dev/null | head -1)
if [ -z "$x86" ]; then
  echo "check_wheels: skipped: no manylinux_2_17_x86_64 wheel in $dist (scripts/build-wheels.sh makes them)"
  exit 77
fi
version=$(basename "$x86" | cut -d- -f2)

# 0. The README's executable sizes are these wheels' (issue 62, item 11: they had drifted by 0.5 MB).
python3 - "$src/README.md" "$dist" <<'PY' || fail "the README's wheel table gives another size than the wheels hold"
import glob, re, sys, zipfile
readme = open(sys.argv[1], encoding="utf-8").read()
for tag in ("manylinux_2_17_x86_64", "manylinux_2_17_aarch64", "macosx_11_0_arm64"):
    row = re.search(r"^\| `" + tag + r"` \|.*?(\d+\.\d) MB", readme, re.M)
    wheels = glob.glob(sys.argv[2] + "/dlready-*" + tag + "*.whl")
    if not row or not wheels:
        sys.exit("no README row or no wheel for " + tag)
    with zipfile.ZipFile(wheels[0]) as z:
        size = max(i.file_size for i in z.infolist() if "/scripts/" in i.filename)
    if abs(size / 1e6 - float(row.group(1))) > 0.15:
        sys.exit("%s: README says %s MB, the executable is %.1f MB" % (tag, row.group(1), size / 1e6))
PY
pass "the README's executable sizes"

# A user's venv with a torch in it (a fixture: version.py and a dist-info are what the doctor reads).
user_venv=$work/user-venv
python3 -m venv "$user_venv"
sp=$("$user_venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
mkdir -p "$sp/torch" "$sp/torch-2.11.0.dist-info"
printf "__version__ = '2.11.0+cpu'\ncuda = None\n" > "$sp/torch/version.py"
printf "Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0+cpu\n" > "$sp/torch-2.11.0.dist-info/METADATA"

# A doctor's JSON report into $work/doctor.json: exit 0, or 1 for an error finding (this machine has no
# GPU), are both a report.
doctor_json() {
  local rc=0
  "$@" > "$work/doctor.json" || rc=$?
  [ "$rc" -le 1 ] || fail "$* exited $rc"
}

doctor_sees_user_torch() {  # how: the report in $work/doctor.json
  python3 - "$work/doctor.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
envs = j["facts"]["python_envs"]
torches = [t for e in envs for t in e.get("torch", [])]
assert any(t.get("version") == "2.11.0+cpu" for t in torches), "the user venv torch is not in the report"
active = [e["prefix"] for e in envs if e.get("active")]
assert active and all("user-venv" in p for p in active), "active environments: %r" % active
assert not any("uv-tools" in e["prefix"] or "/venv/" in e["prefix"] + "/" for e in envs), "the tool's own environment is listed"
PY
}


# 1. pip into a fresh venv: the executable in bin/, python -m dlready, the doctor, a snapshot.
venv=$work/venv
python3 -m venv "$venv"
"$venv/bin/pip" install -q --no-index "$x86" || fail "pip install --no-index $x86"
[ -x "$venv/bin/dlready" ] || fail "pip did not put dlready in the venv's bin/"
[ "$("$venv/bin/dlready" --version | cut -d' ' -f1-2)" = "dlready $version" ] || fail "dlready --version"
[ "$("$venv/bin/python" -m dlready --version | cut -d' ' -f1-2)" = "dlready $version" ] || fail "python -m dlready --version"
doctor_json env VIRTUAL_ENV="$user_venv" "$venv/bin/dlready" doctor --json --no-cache
doctor_sees_user_torch || fail "doctor (venv install)"
"$venv/bin/dlready" snapshot --out "$work/snap.json" && python3 -c "import json; json.load(open('$work/snap.json'))" ||
  fail "snapshot (venv install)"
# python -m dlready from the user's own interpreter names it: the doctor examines that environment.
doctor_json env -u VIRTUAL_ENV PYTHONPATH="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" \
  "$user_venv/bin/python" -m dlready doctor --json --no-cache
doctor_sees_user_torch || fail "python -m dlready from the user's interpreter"
[ -f "$venv/share/dlready/module-src/cmake/module_only.cmake" ] || fail "the wheel put no module sources in share/dlready"
# The user's torch here is a fixture without its libraries: train names what it cannot build against.
rc=0
env VIRTUAL_ENV="$user_venv" DLREADY_MODULE_CACHE="$work/no-modules" "$venv/bin/dlready" train --epochs 1 \
  > "$work/train.txt" 2>&1 || rc=$?
[ "$rc" -eq 3 ] && grep -q "runs train on your own torch" "$work/train.txt" && grep -q "has no readable lib/libc10.so" "$work/train.txt" ||
  fail "train from a wheel install against a torch without libraries (exit $rc): $(cat "$work/train.txt")"
[ ! -e "$work/no-modules" ] || fail "a module build was started for a torch without libraries"
pass "pip install into a venv: dlready, python -m dlready, doctor, snapshot, module sources; train names a torch it cannot build for"

# 2. --target, --prefix, --user: python -m dlready finds the executable each time.
python3 -m pip install -q --no-index --target "$work/target" "$x86" || fail "pip install --target"
[ "$(PYTHONPATH=$work/target python3 -m dlready --version | cut -d' ' -f1-2)" = "dlready $version" ] || fail "python -m dlready (--target)"
python3 -m pip install -q --no-index --prefix "$work/prefix" "$x86" || fail "pip install --prefix"
prefix_sp=$(python3 -c "import sysconfig; print(sysconfig.get_path('purelib', vars={'base': '$work/prefix'}))")
[ "$(PYTHONPATH=$prefix_sp python3 -m dlready --version | cut -d' ' -f1-2)" = "dlready $version" ] || fail "python -m dlready (--prefix)"
[ -x "$work/prefix/bin/dlready" ] || fail "--prefix: no bin/dlready"
PYTHONUSERBASE=$work/userbase python3 -m pip install -q --no-index --user --break-system-packages "$x86" 2>/dev/null ||
  PYTHONUSERBASE=$work/userbase python3 -m pip install -q --no-index --user "$x86" || fail "pip install --user"
[ "$(PYTHONUSERBASE=$work/userbase python3 -m dlready --version | cut -d' ' -f1-2)" = "dlready $version" ] || fail "python -m dlready (--user)"
pass "pip install --target, --prefix, --user: python -m dlready finds the executable"

# 3. uvx: the tool's environment is first on PATH, the user's venv is VIRTUAL_ENV: the doctor
# reports the user's, never the tool's own.
if [ -x "$uv" ]; then
  doctor_json env VIRTUAL_ENV="$user_venv" UV_CACHE_DIR="$work/uv-cache" UV_TOOL_DIR="$work/uv-tools" \
    "$uv" tool run --offline --no-index --from "$x86" dlready doctor --json --no-cache
  doctor_sees_user_torch || fail "uvx: the doctor did not report the user's venv (or listed the tool's own)"
  pass "uv tool run --offline --from the wheel: the user's venv, not the tool's"
else
  echo "check_wheels: skipped uvx (no uv at $uv)"
fi

# 4. The Linux executables' needs: the C library's own libraries, GLIBC_2.17 at most.
check_needs() {  # exe arch
  local needed glibc
  needed=$(readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
  for lib in $needed; do
    case $lib in libc.so.6 | libm.so.6 | libdl.so.2 | libpthread.so.0 | librt.so.1 | ld-linux-*.so.*) ;;
      *) fail "$2: needs $lib (only the C library's own libraries may be needed)" ;;
    esac
  done
  glibc=$(readelf -V "$1" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
  [ "$(printf '%s\nGLIBC_2.17\n' "$glibc" | sort -V | tail -1)" = GLIBC_2.17 ] || fail "$2: needs $glibc (> 2.17)"
  pass "$2: needs $needed; highest $glibc"
}
unzip -q -o "$x86" -d "$work/x86"
check_needs "$work/x86/dlready-$version.data/scripts/dlready" manylinux_2_17_x86_64

# 5. aarch64: the executable run for real under qemu-aarch64 on an aarch64 fixture machine.
arm=$(ls "$dist"/dlready-*-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl 2>/dev/null | head -1)
if [ -n "$arm" ]; then
  unzip -q -o "$arm" -d "$work/arm"
  exe=$work/arm/dlready-$version.data/scripts/dlready
  [ "$(readelf -h "$exe" | sed -n 's/.*Machine: *//p')" = AArch64 ] || fail "aarch64 wheel: not an AArch64 executable"
  check_needs "$exe" manylinux_2_17_aarch64
  if command -v qemu-aarch64 >/dev/null && [ -d /usr/aarch64-linux-gnu/lib ]; then
    root=$work/arm-root
    mkdir -p "$root/proc" "$root/etc" "$root/sys/bus/pci/devices"
    printf 'ID=ubuntu\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04 (aarch64 fixture)"\n' > "$root/etc/os-release"
    printf 'Linux version 5.15.0-tegra (aarch64)\n' > "$root/proc/version"
    [ "$(qemu-aarch64 -L /usr/aarch64-linux-gnu "$exe" --version | cut -d' ' -f1-3)" = "dlready $version (linux-aarch64," ] || fail "aarch64: --version under qemu"
    doctor_json qemu-aarch64 -L /usr/aarch64-linux-gnu "$exe" doctor --json --no-cache --no-driver-probe --root "$root"
    python3 -c "
import json; j = json.load(open('$work/doctor.json'))
assert 'aarch64 fixture' in json.dumps(j['facts']['os']), j['facts']['os']" || fail "aarch64: the doctor's report of the fixture root"
    # On this machine itself, as an aarch64 process (qemu-user answers uname as aarch64).
    doctor_json qemu-aarch64 -L /usr/aarch64-linux-gnu "$exe" doctor --json --no-cache --no-driver-probe
    python3 -c "
import json; j = json.load(open('$work/doctor.json'))
assert j['facts']['os']['arch'] == 'aarch64', j['facts']['os']['arch']" || fail "aarch64: the doctor's own machine is not aarch64"
    pass "aarch64 executable under qemu-aarch64: --version, doctor --json on an aarch64 fixture root"
  else
    echo "check_wheels: skipped running aarch64 (qemu-user and libc6-arm64-cross: scripts/setup.sh installs them)"
  fi
fi

# 6. Windows: the wheel's dlready.exe under wine.
win=$(ls "$dist"/dlready-*-py3-none-win_amd64.whl 2>/dev/null | head -1)
if [ -n "$win" ]; then
  unzip -q -o "$win" -d "$work/win"
  exe=$work/win/dlready-$version.data/scripts/dlready.exe
  [ -f "$exe" ] || fail "win_amd64 wheel: no dlready.exe in .data/scripts"
  wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
  if [ -x "$wine" ]; then
    out=$(WINEPREFIX=$work/wine WINEDEBUG=-all "$wine" "$exe" --version 2>/dev/null | tr -d '\r')
    [ "$(echo "$out" | cut -d' ' -f1-3)" = "dlready $version (windows-x86_64," ] || fail "win_amd64: dlready.exe --version under wine said '$out'"
    pass "win_amd64: dlready.exe --version under wine"
  fi
fi
# 6b. macOS: nothing here runs a Mach-O; each wheel's tag, its executable's CPU, minimum macOS and
# libraries (scripts/macho_check.py), and pip's choice: a Mac's pip takes it, Linux's does not.
for spec in "arm64 11.0 macosx_11_0_arm64" "x86_64 10.15 macosx_10_15_x86_64"; do
  read -r cpu minos tag <<<"$spec"
  mac=$(ls "$dist"/dlready-*-py3-none-"$tag".whl 2>/dev/null | head -1)
  [ -n "$mac" ] || fail "no $tag wheel in $dist"
  rm -rf "$work/mac" && unzip -q -o "$mac" -d "$work/mac"
  exe=$work/mac/dlready-$version.data/scripts/dlready
  [ -f "$exe" ] || fail "$tag wheel: no dlready in .data/scripts"
  python3 "$src/scripts/macho_check.py" "$exe" "$cpu" "$minos" >/dev/null || fail "$tag: $(python3 "$src/scripts/macho_check.py" "$exe" "$cpu" "$minos" 2>&1)"
  grep -q "^Tag: py3-none-$tag$" "$work/mac"/dlready-"$version".dist-info/WHEEL || fail "$tag: WHEEL's Tag"
  "$venv/bin/pip" download -q --no-index --no-deps --find-links "$dist" --platform "$tag" --only-binary=:all: \
    -d "$work/mac-pick" "dlready==$version" || fail "$tag: pip for a Mac does not take it"
  pass "$tag: Mach-O $cpu, macOS $minos+, system libraries only; pip for that Mac takes it"
done

# 7. The LibTorch module from a wheel install: no compiler gets one line; then built against the pinned
# venv's real torch into a fresh cache by this machine's g++, reported by status and the doctor, and
# one epoch trained with it (the second command reuses it).
pinned=${DLREADY_VENV:-$HOME/.cache/dlready/venv-torch2.11.0-tv0.26.0}
if [ -f "$pinned/bin/python" ] && [ -z "${DLREADY_SKIP_MODULE_BUILD:-}" ]; then
  modules=$work/modules
  in_user_env() { env VIRTUAL_ENV="$pinned" DLREADY_MODULE_CACHE="$modules" "$@"; }
  rc=0
  in_user_env PATH=/nonexistent CXX= "$venv/bin/dlready" module build > "$work/nocc.txt" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] && grep -q "no C++ compiler (c++, g++ or clang++) on PATH" "$work/nocc.txt" &&
    grep -q "sudo apt install g++" "$work/nocc.txt" || fail "module build without a compiler (exit $rc): $(cat "$work/nocc.txt")"
  rc=0
  in_user_env "$venv/bin/dlready" module status > "$work/status.txt" || rc=$?
  [ "$rc" -eq 1 ] && grep -q "not built yet for torch" "$work/status.txt" || fail "module status before the build: $(cat "$work/status.txt")"
  started=$(date +%s)
  in_user_env "$venv/bin/dlready" module build > "$work/build.txt" 2>&1 || fail "module build: $(tail -30 "$work/build.txt")"
  echo "check_wheels: module build took $(( $(date +%s) - started )) s (ccache: ${CCACHE_DISABLE:+off}${CCACHE_DISABLE:-on when installed})"
  in_user_env "$venv/bin/dlready" module status --json > "$work/status.json" || fail "module status after the build"
  python3 -c "
import json; j = json.load(open('$work/status.json'))
assert j['ready'] and j['module'].startswith('$modules/torch-'), j" || fail "module status --json: $(cat "$work/status.json")"
  doctor_json in_user_env "$venv/bin/dlready" doctor --json --no-cache --no-driver-probe
  python3 -c "
import json; j = json.load(open('$work/doctor.json'))
m = j['facts']['own_module']
assert m['path'].startswith('$modules/') and m['libtorch_dir'].startswith('$pinned/'), m
assert 'dlready-module-missing' not in [f['id'] for f in j['findings']]" || fail "the doctor does not report the built module"
  in_user_env "$venv/bin/dlready" train --epochs 1 --limit-train 4000 --device cpu --out "$work/run" > "$work/train1.txt" 2>&1 ||
    fail "train --epochs 1 with the built module: $(tail -20 "$work/train1.txt")"
  ! grep -q "building it now" "$work/train1.txt" || fail "train built the module again"
  [ -s "$work/run/metrics.jsonl" ] || fail "train wrote no metrics.jsonl"
  pass "module build from the wheel against $(basename "$pinned")'s torch; status, doctor and one epoch of train use it"
else
  echo "check_wheels: skipped the module build (no pinned venv at $pinned, or DLREADY_SKIP_MODULE_BUILD)"
fi
echo "check_wheels: all checks passed"
