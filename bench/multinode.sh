#!/usr/bin/env bash
# Multi-node data parallel on one machine, each node a network namespace on a veth pair into a
# bridge (root; iproute2): the preflight's cost for 2 and 3 nodes, and samples/s of `dlready train`
# with 1 rank, 2 ranks on loopback (one launcher) and 2 nodes over veth (two launchers), at the
# reference batch (64) and at 1024 (global batch the same in every setting), 1 thread per rank,
# alternating runs; prints medians and ratios.
# usage: sudo bench/multinode.sh [runs] [epochs]      (defaults 3, 2)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
epochs=${2:-2}
data=${DLREADY_DATA:-/usr/share/datasets/fashion-mnist}
dlready=$(realpath "${DLREADY_BIN:-./build/release/dlready}")
[ -x "$dlready" ] && [ -f "$(dirname "$dlready")/libdlready_train.so" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "bench/multinode.sh makes network namespaces: run it as root" >&2; exit 2; }
tag=b$$
tmp=$(mktemp -d)
ns() { echo "dlready${tag}n$1"; }
down() { for k in 0 1 2; do ip netns del "$(ns $k)" 2>/dev/null || true; done; ip netns del "dlready${tag}sw" 2>/dev/null || true; }
trap 'down; rm -rf "$tmp"' EXIT
ip netns add "dlready${tag}sw"
ip -n "dlready${tag}sw" link add br0 type bridge && ip -n "dlready${tag}sw" link set br0 up
for k in 0 1 2; do
  ip netns add "$(ns $k)"
  ip link add "dla${tag}$k" type veth peer name "dlb${tag}$k"
  ip link set "dla${tag}$k" netns "dlready${tag}sw" && ip link set "dlb${tag}$k" netns "$(ns $k)"
  ip -n "dlready${tag}sw" link set "dla${tag}$k" master br0 && ip -n "dlready${tag}sw" link set "dla${tag}$k" up
  ip -n "$(ns $k)" link set "dlb${tag}$k" name eth0 && ip -n "$(ns $k)" addr add "10.214.0.$((k + 1))/24" dev eth0
  ip -n "$(ns $k)" link set eth0 up && ip -n "$(ns $k)" link set lo up
done
master=10.214.0.1

# The preflight alone: each node's launcher runs `true` once the nodes have met.
preflight() {  # nodes run
  local n=$1 i=$2 k pids=()
  for ((k = n - 1; k >= 0; k--)); do
    ip netns exec "$(ns $k)" "$dlready" launch --nnodes "$n" --node-rank "$k" --master-addr $master --master-port 29750 \
      -- true >"$tmp/pre.$n.$k.log" 2>&1 & pids+=($!)
  done
  wait "${pids[@]}"
  sed -n 's/.*preflight of [0-9]* nodes took \([0-9]*\) ms.*/\1/p' "$tmp/pre.$n.0.log" >>"$tmp/pre.$n"
}

train() {  # name global-batch run: one json line per setting
  local name=$1 batch=$2 i=$3 common=(--device cpu --threads 1 --epochs "$epochs" --data "$data" --json --no-progress --overwrite)
  case $name in
    one) "$dlready" train "${common[@]}" --batch-size "$batch" --out "$tmp/r-one" 2>/dev/null >"$tmp/$name.$batch.$i.json" ;;
    loopback) "$dlready" launch --nproc-per-node 2 --master-port 29760 -- "$dlready" train "${common[@]}" \
        --batch-size $((batch / 2)) --out "$tmp/r-lo" 2>/dev/null | sed -n 's/^\[rank 0\] //p' >"$tmp/$name.$batch.$i.json" ;;
    veth)
      ip netns exec "$(ns 1)" "$dlready" launch --nnodes 2 --node-rank 1 --master-addr $master --master-port 29770 -- \
        "$dlready" train "${common[@]}" --batch-size $((batch / 2)) --out "$tmp/r-v1" >/dev/null 2>&1 &
      local p1=$!
      ip netns exec "$(ns 0)" "$dlready" launch --nnodes 2 --node-rank 0 --master-addr $master --master-port 29770 -- \
        "$dlready" train "${common[@]}" --batch-size $((batch / 2)) --out "$tmp/r-v0" 2>/dev/null |
        sed -n 's/^\[rank 0\] //p' >"$tmp/$name.$batch.$i.json"
      wait $p1 ;;
  esac
}

for ((i = 0; i < runs; i++)); do
  preflight 2 "$i"
  preflight 3 "$i"
  for batch in 64 1024; do
    for name in one loopback veth; do train $name $batch "$i"; done
  done
done
python3 - "$tmp" "$runs" "$epochs" <<'PY'
import json, statistics, sys
tmp, runs, epochs = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for n in (2, 3):
    ms = [float(x) for x in open(f"{tmp}/pre.{n}").read().split()]
    print(f"preflight of {n} nodes (snapshot + exchange + comparison): median {statistics.median(ms):.0f} ms of {ms}")
print(f"SimpleNet, {epochs} epochs, CPU, 1 thread per rank, global batch the same in each row; {runs} runs, medians")
for batch in (64, 1024):
    got = {}
    for name in ("one", "loopback", "veth"):
        sps = []
        for i in range(runs):
            h = json.load(open(f"{tmp}/{name}.{batch}.{i}.json"))["history"]
            sps.append(statistics.median(e["samples_per_s"] for e in (h[1:] or h)))
        got[name] = statistics.median(sps)
    print(f"  global batch {batch:5d}: 1 rank {got['one']:8.0f}   2 ranks loopback {got['loopback']:8.0f}"
          f"   2 nodes veth {got['veth']:8.0f} samples/s   (veth/loopback {got['veth']/got['loopback']:.2f}x,"
          f" veth/1 rank {got['veth']/got['one']:.2f}x)")
PY
