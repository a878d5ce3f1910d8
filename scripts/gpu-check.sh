#!/usr/bin/env bash
# The project's GPU check, written to succeed on its first run on a bare, offline GPU machine that
# gets only the working tree plus gpu-bundle/ (scripts/gpu-bundle.sh; docs/gpu-validation.md has
# the exact command). What a missing build dependency needs comes from the bundle's .debs, unpacked
# into a private prefix (never into /). Builds only what the run needs, then records: the GPU
# tests, the doctor vs nvidia-smi and torch, verify, bench (GEMM per dtype, copies, the CUDA-graph
# kernel count and launch-bound floor), GEMM vs torch.matmul, the training variants, an NCCL
# data-parallel run, and dlready train vs the tutorial's script on the same GPU.
# Every stage has its own time limit inside one overall budget; a stage that fails or times out
# is recorded and the next one runs; at most 8 files land in OUT, summary.txt first.
#
# usage: scripts/gpu-check.sh OUT              on the GPU machine (about 8 minutes on 16 cores)
#        scripts/gpu-check.sh --rehearse OUT   here: every stage that needs no GPU, run in a root
#                                              without our -dev packages and without network
#                                              (scripts/gpu-rehearsal.sh)
#        scripts/gpu-check.sh --no-gpu OUT     the same stages in this root (what --rehearse runs)
# env:   PYTHON (python with torch, default python3), DLREADY_GPU_CHECK_BUDGET (seconds, 470),
#        DLREADY_GPU_CHECK_SCALE (multiplies every time limit; the rehearsal sets 16 / its cores),
#        DLREADY_GPU_CHECK_STAGES ("deps configure ...": run only these stages)
set -uo pipefail
cd "$(dirname "$0")/.."
mode=gpu
case "${1:-}" in
  --rehearse) shift; exec scripts/gpu-rehearsal.sh "${1:?usage: scripts/gpu-check.sh --rehearse OUT}" ;;
  --no-gpu) mode=nogpu; shift ;;
esac
out=${1:?usage: scripts/gpu-check.sh [--rehearse|--no-gpu] OUT}
mkdir -p "$out" && out=$(cd "$out" && pwd) || { echo "gpu-check: cannot create $out" >&2; exit 2; }
export mode out
export repo=$PWD
export scratch=$repo/build/gpu-check      # build tree, prefix, run folders: never in OUT
export prefix=$scratch/prefix
export bundle=$repo/gpu-bundle
# The python that has torch: PYTHON, else the first of python3, python3.12, python that imports it.
export py=${PYTHON:-}
if [ -z "$py" ]; then
  for c in python3 python3.12 python; do "$c" -c 'import torch' 2>/dev/null && { py=$c; break; }; done
  py=${py:-python3}
fi
export generator=Ninja
command -v ninja >/dev/null || generator="Unix Makefiles"
export bin=$scratch/build/dlready
export gpu_tests_bin=$scratch/build/tests/dlready_gpu_tests
export data=/usr/share/datasets/fashion-mnist
[ -f "$data/train-images-idx3-ubyte.gz" ] || data=$bundle/fashion-mnist
export peer=../shared/peers/train_seed.py
[ -f "$peer" ] || peer=$bundle/peer/train_seed.py
[ -f "$peer" ] || peer=bench/train_peer.py
export device=cuda
[ $mode = gpu ] || device=cpu
export jobs
jobs=$(nproc)
mkdir -p "$scratch"
: >"$out/summary.txt"
start=$SECONDS
# The limits are for the GPU machine's 16 cores; a rehearsal on fewer scales them (and the budget).
scale=${DLREADY_GPU_CHECK_SCALE:-1}
deadline=$((start + ${DLREADY_GPU_CHECK_BUDGET:-470} * scale))
results=()

note() { echo "$*" | tee -a "$out/summary.txt"; }
export -f note
figure() { sed 's/^/    /' | tee -a "$out/summary.txt"; }
export -f figure
skip() { echo "$*" >"$scratch/skip-reason"; return 99; }
export -f skip
need_bin() { [ -x "$bin" ] && [ -f "$(dirname "$bin")/libdlready_train.so" ] || skip "no dlready build (see build.log)"; }
export -f need_bin
need_gpu() { [ "$mode" = gpu ] || skip "needs a GPU (rehearsal)"; }
export -f need_gpu

# stage NAME LIMIT_S LOG FUNCTION: runs FUNCTION under its own time limit (cut to what is left of
# the overall budget), appends its output to OUT/LOG and its result to the summary at once.
stage() {
  local name=$1 limit=$(($2 * scale)) log=$3 fn=$4 left=$((deadline - SECONDS)) t0=$SECONDS rc result
  if [ -n "${DLREADY_GPU_CHECK_STAGES:-}" ] && [[ " $DLREADY_GPU_CHECK_STAGES " != *" $name "* ]]; then
    result="skipped: not in DLREADY_GPU_CHECK_STAGES"
  elif ((left < 10)); then
    result="skipped: out of time"
  else
    ((limit > left)) && limit=$left
    rm -f "$scratch/skip-reason"
    echo "=== stage $name ($(date -u +%H:%M:%S), limit ${limit}s)" >>"$out/$log"
    timeout -k 5 "$limit" bash -c "$fn" >>"$out/$log" 2>&1
    rc=$?
    case $rc in
      0) result=ok ;;
      99) result="skipped: $(cat "$scratch/skip-reason" 2>/dev/null)" ;;
      124 | 137) result="TIMED OUT after ${limit}s" ;;
      1[3-9][0-9] | 2[0-5][0-9]) result="FAILED (signal $((rc - 128)))"; touch "$scratch/a-signal" ;;
      *) result="FAILED (exit $rc)" ;;
    esac
  fi
  results+=("$(printf '%-16s %-44s %5ss  %s' "$name" "$result" $((SECONDS - t0)) "$log")")
  note "stage $name: $result ($((SECONDS - t0)) s; $log)"
}

# --- dependencies: what the compiler cannot find comes from the bundle --------------------------
have_header() { printf '#include <%s>\n' "$1" | ${CXX:-c++} -x c++ -E -o /dev/null - 2>/dev/null; }
have_lib() { echo 'int main() { return 0; }' | ${CXX:-c++} -x c++ - -l"$1" -o /dev/null 2>/dev/null; }
export -f have_header have_lib
unpack() {  # unpack DEB: dpkg-deb when there is one, else a Python reader of the .deb format
  if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$1" "$prefix"; else "$py" scripts/deb_extract.py "$1" "$prefix"; fi
}
export -f unpack
deps() {
  local missing=() p deb
  have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
  have_header CLI/CLI.hpp || missing+=(libcli11-dev)
  { have_header zlib.h && have_lib z; } || missing+=(zlib1g-dev zlib1g)
  { have_header sodium.h && have_lib sodium; } || missing+=(libsodium-dev libsodium23)
  { have_header gtest/gtest.h && have_lib gtest; } || missing+=(googletest)
  echo "compiler: $(${CXX:-c++} --version | head -1); cmake: $(cmake --version | head -1); ninja: $(ninja --version 2>/dev/null || echo none)"
  echo "missing here: ${missing[*]:-nothing}"
  rm -rf "$prefix" && mkdir -p "$prefix"
  : >"$scratch/cmake-deps"
  ((${#missing[@]})) || return 0
  [ -d "$bundle/debs" ] || { echo "no $bundle: run scripts/gpu-bundle.sh where Debian's packages are reachable and carry gpu-bundle"; return 1; }
  (cd "$bundle" && sha256sum --quiet -c MANIFEST) || { echo "gpu-bundle is damaged (checksums differ): make it again"; return 1; }
  for p in "${missing[@]}"; do
    deb=$(ls "$bundle"/debs/"${p}"_*.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || { echo "$p is not in gpu-bundle/debs: make the bundle again"; return 1; }
    unpack "$deb" || return 1
  done
  # Absolute links in the packages (libz.so -> /lib/...) must point into the prefix.
  find "$prefix" -type l -lname '/*' | while read -r l; do ln -sfn "$prefix$(readlink "$l")" "$l"; done
  local lib=$prefix/usr/lib/x86_64-linux-gnu
  {
    echo "-DCMAKE_PREFIX_PATH=$prefix/usr;$prefix/gtest"
    [ -f "$lib/libz.so" ] && echo "-DZLIB_INCLUDE_DIR=$prefix/usr/include" && echo "-DZLIB_LIBRARY=$lib/libz.so"
    [ -f "$lib/libsodium.so" ] && echo "-DDLREADY_SODIUM=$lib/libsodium.so" && echo "-DDLREADY_SODIUM_INCLUDE=$prefix/usr/include"
  } >"$scratch/cmake-deps"
  if [ -d "$prefix/usr/src/googletest" ]; then  # GoogleTest from source, by this machine's compiler
    cmake -S "$prefix/usr/src/googletest" -B "$scratch/gtest-build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
      -DBUILD_GMOCK=OFF -DCMAKE_INSTALL_PREFIX="$prefix/gtest" -DCMAKE_POSITION_INDEPENDENT_CODE=ON &&
      cmake --build "$scratch/gtest-build" -j"$jobs" && cmake --install "$scratch/gtest-build" >/dev/null || return 1
  fi
  echo "unpacked into $prefix: ${missing[*]}"
}
export -f deps

configure() {
  local torch_dir arch args=()
  torch_dir=$("$py" -c 'import os, torch; print(os.path.join(torch.utils.cmake_prefix_path, "Torch"))') ||
    { echo "no torch for $py: set PYTHON to the python that has torch"; return 1; }
  arch=9.0
  if [ "$mode" = gpu ]; then
    arch=$("$py" -c 'import torch; c = torch.cuda.get_device_capability(0); print(f"{c[0]}.{c[1]}")') ||
      { echo "torch cannot read the GPU's compute capability: building for 9.0"; arch=9.0; }
  fi
  mapfile -t args <"$scratch/cmake-deps"
  echo "torch: $torch_dir; TORCH_CUDA_ARCH_LIST=$arch"
  TORCH_CUDA_ARCH_LIST=$arch cmake -S . -B "$scratch/build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
    -DTorch_DIR="$torch_dir" -DCMAKE_CUDA_ARCHITECTURES="${arch/./}" "${args[@]}"
  grep -rqs 'libdlready_train.so' "$scratch/build/build.ninja" "$scratch/build/CMakeFiles/dlready_train_module.dir" ||
    { echo "configured without the LibTorch module (see above)"; return 1; }
}
export -f configure

build() {
  cmake --build "$scratch/build" -j"$jobs" --target dlready dlready_train_module dlready_gpu_tests
}
export -f build

gpu_tests() {
  need_bin || return 99
  # DLREADY_DATA: the Fashion-MNIST test reads the bundle's copy where Debian's package is absent.
  DLREADY_DATA=$data "$gpu_tests_bin" --gtest_brief=0 >"$out/gpu-tests.txt" 2>&1
  local rc=$?
  # The totals, then each failed test once.
  grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$out/gpu-tests.txt" | figure
  grep -E '^\[  FAILED  \] [A-Za-z][^ ]*$' "$out/gpu-tests.txt" | sort -u | figure
  return $rc
}
export -f gpu_tests

doctor() {
  need_bin || return 99
  local rc
  "$bin" doctor --json >"$out/doctor.json"; rc=$?
  "$bin" doctor --no-color | tail -n 25
  echo "doctor exit status $rc" | figure
  # The machine as a capture (brought back for tests/machines/) and its replay offline.
  "$bin" capture "$out/capture.tar.gz" | head -n 2 | figure
  mkdir -p "$scratch/replay" && tar -xzf "$out/capture.tar.gz" -C "$scratch/replay" &&
    "$bin" doctor --json --root "$scratch/replay" >"$scratch/replay.json"
  "$py" - "$scratch/replay/.dlready-capture/doctor.json" "$scratch/replay.json" <<'PY' | figure
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ids = lambda d: sorted(f["id"] for f in d["findings"])
print(f"{'ok  ' if ids(a) == ids(b) and a['verdict']['summary'] == b['verdict']['summary'] else 'DIFF'} capture replays: {ids(b)}")
PY
  # What --redact must hide, counted in the redacted Markdown (each word it still holds is a leak).
  "$bin" doctor --markdown --redact >"$out/doctor-redacted.md"
  for word in "$(hostname)" "$(hostname -s)" "$(id -un)" "$HOME"; do
    [ "$word" = root ] || [ "$word" = / ] || [ "$word" = /root ] || [ -z "$word" ] && continue
    n=$(grep -owF -- "$word" "$out/doctor-redacted.md" | wc -l)
    echo "$([ "$n" = 0 ] && echo 'ok  ' || echo LEAK) redacted Markdown holds '$word' $n time(s)" | figure
  done
  command -v nvidia-smi >/dev/null || skip "no nvidia-smi here: the cross-check needs the GPU machine" || return 99
  nvidia-smi --query-gpu=name,compute_cap,driver_version,pci.bus_id,memory.total --format=csv,noheader >"$scratch/smi.csv"
  cat "$scratch/smi.csv"
  "$py" - "$out/doctor.json" "$scratch/smi.csv" <<'PY' | figure
import csv, json, sys, torch
doc = json.load(open(sys.argv[1])); smi = list(csv.reader(open(sys.argv[2])))
devs = doc["facts"]["driver_api"]["devices"]
n = torch.cuda.device_count()
checks = [("device count vs torch", len(devs), n), ("device count vs nvidia-smi", len(devs), len(smi))]
for i, d in enumerate(devs):
    if i < len(smi):
        checks += [(f"gpu{i} name", d["name"], smi[i][0].strip()),
                   (f"gpu{i} compute capability", f'{d["cc_major"]}.{d["cc_minor"]}', smi[i][1].strip()),
                   (f"gpu{i} driver", doc["facts"]["nvml"]["driver_version"], smi[i][2].strip())]
    if i < n:
        checks.append((f"gpu{i} name vs torch", d["name"], torch.cuda.get_device_name(i)))
# What the doctor says of this torch without importing it, against torch imported.
found = [t for t in doc["verdict"]["torch"] if t.get("version") == torch.__version__]
checks.append(("torch found by the doctor", found[0]["version"] if found else [t.get("version") for t in doc["verdict"]["torch"]], torch.__version__))
if found:
    checks.append(("torch: CUDA usable", found[0].get("cuda_available"), torch.cuda.is_available()))
for name, ours, theirs in checks:
    print(f"{'ok  ' if str(ours) == str(theirs) else 'DIFF'} {name}: dlready={ours} reference={theirs}")
print(f"verdict: cuda_usable={doc['verdict']['cuda_usable']}: {doc['verdict']['summary'][:160]}")
PY
}
export -f doctor

doctor_speed() {
  need_bin || return 99
  DLREADY_BIN=$bin DLREADY_PYTHON=$py bench/doctor.sh 3 | tee -a "$out/side-by-side.txt" | figure
  return "${PIPESTATUS[0]}"
}
export -f doctor_speed

verify() {
  need_bin || return 99
  local level=full
  [ "$mode" = gpu ] || level=quick
  "$bin" verify --level $level --json >"$out/verify.json" 2>"$scratch/verify.txt"
  local rc=$?
  cat "$scratch/verify.txt"
  { echo "verify --level $level exit status $rc"; grep -E 'FAIL|WARN|READY' "$scratch/verify.txt"; } | figure
  # A check that dies is a FAIL naming the signal and the library (the checks run in child
  # processes); the binary's own line says where.
  grep -E 'died of|killed by' "$scratch/verify.txt" | head -n 5 | figure
  ((rc >= 128)) && touch "$scratch/a-signal"
  return $rc
}
export -f verify

bench() {
  need_bin || return 99
  "$bin" bench --device "$device" --data "$data" --json >"$out/bench.json" 2>"$scratch/bench.txt"
  local rc=$?
  figure <"$scratch/bench.txt"
  return $rc
}
export -f bench

train_variants() {
  need_bin || return 99
  # AMP with and without graphs side by side (issue 32: mixed precision never slower than fp32;
  # today --amp with --cuda-graphs runs eagerly, with a note, and graph_kernels says so).
  local v rc=0 epochs=2 variants=("--cuda-graphs" "--amp bf16" "--amp fp16" "--amp bf16 --cuda-graphs"
                                  "--amp fp16 --cuda-graphs" "")
  [ "$mode" = gpu ] || { variants=(""); epochs=1; }
  for v in "${variants[@]}"; do
    # shellcheck disable=SC2086
    "$bin" train --device "$device" --data "$data" --epochs $epochs --no-progress --json $v \
      --overwrite --out "$scratch/run${v// /}" >"$scratch/train.json" || rc=1
    "$py" - "$scratch/train.json" "$v" <<'PY' | figure
import json, sys
j = json.load(open(sys.argv[1]))
epochs = [round(h["seconds"], 3) for h in j["history"]]
scale = f" loss_scale={j['loss_scale']} skipped_steps={j.get('skipped_steps')}" if j.get("loss_scale") else ""
print(f"train {sys.argv[2] or '(plain)'}: test_acc={j['test_acc']:.4f} epoch_s={epochs} graph_kernels={j.get('graph_kernels', 0)}{scale}")
PY
  done
  return $rc
}
export -f train_variants

# The CNN through the binary (cuDNN's convolutions: what crashed on the first GPU machine).
cnn() {
  need_bin || return 99
  local v rc=0 r variants=("" "--amp bf16" "--amp fp16" "--cuda-graphs")
  [ "$mode" = gpu ] || variants=("")
  for v in "${variants[@]}"; do
    # shellcheck disable=SC2086
    "$bin" train --model cnn --device "$device" --data "$data" --epochs 1 --no-progress --json $v \
      --overwrite --out "$scratch/cnn${v// /}" >"$scratch/cnn.json" 2>"$scratch/cnn.err"
    r=$?
    ((r >= 128)) && touch "$scratch/a-signal"
    ((r == 0)) || { rc=1; echo "train --model cnn ${v:-(plain)}: exit status $r"; tail -n 3 "$scratch/cnn.err"; } | figure
    ((r == 0)) && "$py" - "$scratch/cnn.json" "$v" <<'PY' | figure
import json, sys
j = json.load(open(sys.argv[1]))
print(f"train --model cnn {sys.argv[2] or '(plain)'}: test_acc={j['test_acc']:.4f} epoch_s={[round(h['seconds'], 3) for h in j['history']]}")
PY
  done
  return $rc
}
export -f cnn

# Only after a stage died of a signal: which CUDA libraries the binary loaded from outside the
# wheel (LD_DEBUG=files against the test program that passes), and the run with the module
# preloaded, into runs.log (OUT holds at most 8 files).
diagnose_crash() {
  [ -f "$scratch/a-signal" ] || skip "no stage died of a signal" || return 99
  local site report=$scratch/diagnose.txt
  site=$("$py" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
  {
    echo "== libraries loaded by dlready verify --device cuda (LD_DEBUG=files), not from $site"
    LD_DEBUG=files timeout 40 "$bin" verify --device cuda 2>&1 | grep -oE 'file=[^ ]+ \[0\];  (needed|dynamically loaded) by [^ ]+' |
      sort -u >"$scratch/bin-files.txt"
    LD_DEBUG=libs timeout 40 "$bin" verify --device cuda 2>&1 | grep -oE 'calling init: .*' | sed 's/calling init: //' |
      sort -u >"$scratch/bin-inits.txt"
    grep -E 'libcu|libnv|libcudnn|libnccl' "$scratch/bin-inits.txt" | grep -v "^$site" || echo "(none)"
    echo "== the same for the test program (GpuVerify.EveryCheckPassesOnCuda0)"
    LD_DEBUG=libs timeout 40 "$gpu_tests_bin" --gtest_filter=GpuVerify.EveryCheckPassesOnCuda0 2>&1 |
      grep -oE 'calling init: .*' | sed 's/calling init: //' | sort -u >"$scratch/test-inits.txt"
    grep -E 'libcu|libnv|libcudnn|libnccl' "$scratch/test-inits.txt" | grep -v "^$site" || echo "(none)"
    echo "== CUDA libraries only one of them loaded"
    diff <(grep -E 'libcu|libnv|libcudnn|libnccl' "$scratch/bin-inits.txt") \
         <(grep -E 'libcu|libnv|libcudnn|libnccl' "$scratch/test-inits.txt")
    echo "== verify with the module preloaded (LD_PRELOAD)"
    LD_PRELOAD=$(dirname "$bin")/libdlready_train.so timeout 40 "$bin" verify --device cuda 2>&1 | tail -n 6
    echo "exit status ${PIPESTATUS[0]}"
    echo "== the preload dlready did (DLREADY_TRACE_LOADING=1)"
    DLREADY_TRACE_LOADING=1 timeout 40 "$bin" verify --device cpu 2>&1 | grep 'dlready: preload' | head -n 30
  } >"$report" 2>&1
  cat "$report"
  grep -A3 -E '^== (libraries loaded|CUDA libraries only)' "$report" | head -n 20 | figure
}
export -f diagnose_crash

data_parallel() {
  need_bin || return 99
  # World size 1 through the launcher: NCCL on a GPU, Gloo on the CPU.
  "$bin" launch --nproc-per-node 1 --master-port 29790 -- "$bin" train --device "$device" --data "$data" \
    --epochs 1 --no-progress --overwrite --out "$scratch/run-dp"
  local rc=$?
  echo "launch --nproc-per-node 1 ($device) exit status $rc" | figure
  # torchrun's "gpu": one rank per GPU CUDA shows, from the doctor's driver probe (issue 50 item 16).
  "$bin" launch --nproc-per-node gpu -- sh -c 'echo "rank $RANK of $WORLD_SIZE"' 2>&1 | tail -n 3 | figure
  return $rc
}
export -f data_parallel

gemm_vs_torch() {
  need_bin || return 99
  DLREADY_BIN=$bin DLREADY_PYTHON=$py bench/gemm.sh 1 "$device" | tee -a "$out/side-by-side.txt" | figure
  return "${PIPESTATUS[0]}"
}
export -f gemm_vs_torch

train_vs_peer() {
  need_bin || return 99
  local epochs=5 extra=(--cuda-graphs)
  [ "$mode" = gpu ] || { epochs=1; extra=(); }
  echo "peer: $peer"
  DLREADY_BIN=$bin DLREADY_PYTHON=$py DLREADY_PEER=$peer DLREADY_DATA=$data DLREADY_SETTINGS=default \
    bench/train.sh 1 $epochs "$device" "${extra[@]}" | tee -a "$out/side-by-side.txt" | figure
  return "${PIPESTATUS[0]}"
}
export -f train_vs_peer

note "gpu-check ($mode) $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n): $jobs cores, budget $((deadline - start)) s"
if [ $mode = gpu ] && ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
  note "no NVIDIA GPU here (nvidia-smi missing or failing): nothing to check; a rehearsal is --rehearse"
  exit 2
fi
[ $mode = gpu ] && nvidia-smi -L | figure
stage deps 90 build.log deps
stage configure 90 build.log configure
stage build 300 build.log build
if ! need_bin 2>/dev/null && [ -x "$bundle/prebuilt/dlready" ]; then
  # The build failed here: the bundle's build from the other machine, against this machine's torch
  # (the same pinned wheel), found through LD_LIBRARY_PATH instead of the build's RUNPATH.
  site=$("$py" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null)
  libs=$bundle/prebuilt/lib:$site/torch/lib
  for d in "$site"/nvidia/*/lib; do libs=$libs:$d; done
  export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  bin=$bundle/prebuilt/dlready
  gpu_tests_bin=$bundle/prebuilt/dlready_gpu_tests
  note "build: using the bundle's prebuilt programs instead (commit $(cat "$bundle/prebuilt/COMMIT" 2>/dev/null))"
fi
stage gpu-tests 150 runs.log gpu_tests
stage doctor 30 runs.log doctor
stage doctor-speed 45 runs.log doctor_speed
stage verify 60 runs.log verify
stage bench 90 runs.log bench
stage train-vs-peer 120 runs.log train_vs_peer
stage train-variants 80 runs.log train_variants
stage cnn 110 runs.log cnn
stage data-parallel 45 runs.log data_parallel
stage gemm-vs-torch 60 runs.log gemm_vs_torch
stage diagnose 60 runs.log diagnose_crash
note ""
note "stage            result                                        time   log"
for r in "${results[@]}"; do note "$r"; done
failed=$(printf '%s\n' "${results[@]}" | grep -cE 'FAILED|TIMED OUT')
note "gpu-check: $((SECONDS - start)) s; $failed stage(s) failed; files in $out: $(ls "$out" | tr '\n' ' ')"
[ "$failed" -eq 0 ]
