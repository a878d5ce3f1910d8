#!/usr/bin/env bash
# The project's GPU check, for a machine with an NVIDIA GPU and its own PyTorch (no network):
# builds dlready against that PyTorch's LibTorch, runs the `gpu`-labelled tests, cross-checks
# `dlready doctor --json` with nvidia-smi and torch, runs `dlready verify --level full` and
# `dlready bench`, the side-by-side benchmarks (bench/gemm.sh, bench/train.sh) on the GPU, trains
# on the GPU, and writes every output
# into the directory given as argument. Without a GPU it stops early and says why.
# usage: scripts/gpu-check.sh OUT_DIR        (finishes in a few minutes on an H200)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-check.sh OUT_DIR}
mkdir -p "$out"
log() { echo "gpu-check: $*" | tee -a "$out/summary.txt"; }

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  log "no NVIDIA GPU here (nvidia-smi missing or failing): nothing to check"
  exit 2
fi
py=${PYTHON:-python3}
prefix=$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null) || {
  log "no PyTorch for $py: set PYTHON to a python with torch"; exit 2; }
arch=$("$py" -c 'import torch; c=torch.cuda.get_device_capability(0); print(f"{c[0]}.{c[1]}")' 2>/dev/null || echo 9.0)
log "building against $prefix (TORCH_CUDA_ARCH_LIST=$arch)"
export TORCH_CUDA_ARCH_LIST=$arch
cmake -S . -B build/gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CUDA_ARCHITECTURES="${arch/./}" >"$out/configure.log" 2>&1 || { log "configure failed (see configure.log)"; exit 1; }
cmake --build build/gpu -j"$(nproc)" >"$out/build.log" 2>&1 || { log "build failed (see build.log)"; exit 1; }
bin=build/gpu/dlready

(cd build/gpu && ctest -L gpu --output-on-failure) >"$out/gpu-tests.txt" 2>&1
log "gpu tests: $(grep -E 'tests passed|tests failed' "$out/gpu-tests.txt" | tail -1)"

"$bin" doctor --json >"$out/doctor.json"; log "doctor exit status $?"
"$bin" snapshot --out "$out/snapshot.json" 2>/dev/null; log "snapshot exit status $? (compare: dlready diff A B)"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader >"$out/nvidia-smi.csv"
"$py" -c 'import json,torch; print(json.dumps({"count": torch.cuda.device_count(), "cuda": torch.version.cuda,
  "names": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())],
  "cc": [list(torch.cuda.get_device_capability(i)) for i in range(torch.cuda.device_count())]}))' >"$out/torch.json"
"$py" - "$out" <<'PY' | tee -a "$out/summary.txt"
import json, sys, csv
out = sys.argv[1]
doc = json.load(open(f"{out}/doctor.json")); t = json.load(open(f"{out}/torch.json"))
smi = list(csv.reader(open(f"{out}/nvidia-smi.csv")))
devs = doc["facts"]["driver_api"]["devices"]
checks = [("device count", len(devs), t["count"]), ("device count (nvidia-smi)", len(devs), len(smi))]
for i, d in enumerate(devs):
    if i < len(smi):
        checks.append((f"gpu{i} name", d["name"], smi[i][0].strip()))
        checks.append((f"gpu{i} compute capability", f'{d["cc_major"]}.{d["cc_minor"]}', smi[i][1].strip()))
        checks.append((f"gpu{i} driver", doc["facts"]["nvml"]["driver_version"], smi[i][2].strip()))
for name, ours, theirs in checks:
    print(f"  {'ok  ' if str(ours) == str(theirs) else 'DIFF'} {name}: dlready={ours} reference={theirs}")
print(f"  verdict: cuda_usable={doc['verdict']['cuda_usable']} — {doc['verdict']['summary'][:200]}")
PY

"$bin" verify --level full --json >"$out/verify.json" 2>"$out/verify.txt"
log "verify --level full exit status $?: $(tail -1 "$out/verify.txt")"
grep -E "FAIL|WARN" "$out/verify.txt" | tee -a "$out/summary.txt"
"$bin" bench --device cuda --json >"$out/bench.json" 2>"$out/bench.txt"
log "bench exit status $?"; sed 's/^/  /' "$out/bench.txt" | tee -a "$out/summary.txt"
if [ -f ../shared/peers/train_seed.py ] || [ -n "${DLREADY_PEER:-}" ]; then
  DLREADY_BIN=$bin DLREADY_PYTHON=$py timeout 150 bench/gemm.sh 1 cuda >"$out/bench-gemm.txt" 2>&1
  sed 's/^/  /' "$out/bench-gemm.txt" | tee -a "$out/summary.txt"
fi
"$bin" launch --nproc-per-node 1 --master-port 29790 -- "$bin" train --device cuda --epochs 1 --no-progress \
  --out "$out/nccl-run" >"$out/nccl-smoke.txt" 2>&1
log "NCCL world-size-1 data-parallel run exit status $?: $(grep -E 'data parallel|epoch 1/1' "$out/nccl-smoke.txt" | tr '\n' ' ')"
for variant in "--cuda-graphs" "--amp bf16" "--amp fp16"; do
  # shellcheck disable=SC2086
  "$bin" train --device cuda --epochs 2 --no-progress --json $variant --out "$out/run-${variant// /}" \
    >"$out/train${variant// /}.json" 2>"$out/train${variant// /}.log"
  log "train $variant exit status $?: $(grep -E 'cuda-graphs|epoch 2/2' "$out/train${variant// /}.log" | tr '\n' ' ')"
done
"$bin" train --device cuda --epochs 5 --json --no-progress --out "$out/run" >"$out/train.json" 2>"$out/train.log"
log "train on cuda exit status $? : $("$py" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(f"test_acc={j[\"test_acc\"]:.4f} train_s={j[\"train_seconds\"]:.2f} epoch_s={[round(h[\"seconds\"],3) for h in j[\"history\"]]}")' "$out/train.json" 2>/dev/null)"
if [ -f ../shared/peers/train_seed.py ] || [ -n "${DLREADY_PEER:-}" ]; then
  # Side by side with the tutorial's script on this GPU (1 run each, 5 epochs).
  DLREADY_BIN=$bin DLREADY_PYTHON=$py timeout 300 bench/train.sh 1 5 cuda --cuda-graphs >"$out/bench-train.txt" 2>&1
  sed 's/^/  /' "$out/bench-train.txt" | tee -a "$out/summary.txt"
fi
log "outputs in $out"
