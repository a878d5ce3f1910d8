#!/usr/bin/env bash
# dlready train vs the tutorial's script (../shared/peers/train_seed.py, else this clone's own
# bench/train_peer.py), same torch, same machine:
# SimpleNet, Fashion-MNIST, batch 64, 5 epochs, on the CPU (or a GPU: third argument). Two settings: each with its default threading
# (as a user runs it) and both at 1 thread. Alternating runs; prints medians, the wall-time ratio,
# both test accuracies and both peak RSS. With --cuda-graphs on a GPU, also the launch-bound floor.
# usage: bench/train.sh [runs] [epochs] [device] [dlready train flags...]   (defaults 3, 5, cpu)
#   DLREADY_SETTINGS="default" runs only the default-threading setting (the GPU check does);
#   "default busy" compares an idle machine with one whose processors each run a spinning process
#   (someone else's work), both sides at their default threading.
#   e.g. bench/train.sh 3 5 cuda --cuda-graphs      bench/train.sh 3 5 cpu --amp bf16
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
epochs=${2:-5}
device=${3:-cpu}
extra=("${@:4}")  # --amp bf16|fp16, --cuda-graphs, ... (for dlready train only)
venv=${DLREADY_VENV:-$HOME/.cache/dlready/venv-torch2.11.0-tv0.26.0}
peer=${DLREADY_PEER:-../shared/peers/train_seed.py}
[ -n "${DLREADY_PEER:-}" ] || [ -f "$peer" ] || peer=bench/train_peer.py
data=${DLREADY_DATA:-/usr/share/datasets/fashion-mnist}
dlready=${DLREADY_BIN:-./build/release/dlready}
python=${DLREADY_PYTHON:-$venv/bin/python}
[ -x "$dlready" ] && [ -f "$(dirname "$dlready")/libdlready_train.so" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
[ -f "$peer" ] || { echo "peer script not found: $peer (set DLREADY_PEER)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results=$tmp/results.txt
for setting in ${DLREADY_SETTINGS:-default 1thread}; do
  ours_threads=(); peer_threads=()
  if [ "$setting" = 1thread ]; then ours_threads=(--threads 1); peer_threads=(--threads 1); fi
  for ((i = 0; i < runs; i++)); do
    spinners=()
    if [ "$setting" = busy ]; then
      for ((c = 0; c < $(nproc); c++)); do timeout 600 sh -c 'while :; do :; done' & spinners+=($!); done
      sleep 1
    fi
    read -r t r _ < <(python3 bench/measure.py --stdout "$tmp/ours.json" -- "$dlready" train --device "$device" \
      --epochs "$epochs" --data "$data" --json --no-progress --overwrite --out "$tmp/run" "${ours_threads[@]}" "${extra[@]}")
    # test accuracy, the median epoch after the first (steady state), graph kernels, steps per epoch
    read -r acc epoch kernels steps < <(python3 -c 'import json,statistics,sys
j = json.load(open(sys.argv[1])); h = [e["seconds"] for e in j["history"]]
print(j["test_acc"], statistics.median(h[1:] or h), j.get("graph_kernels", 0), j.get("steps_per_epoch", 0))' "$tmp/ours.json")
    echo "$setting ours $t $r $acc $epoch $kernels $steps" >> "$results"
    read -r t r _ < <(python3 bench/measure.py --stdout "$tmp/peer.txt" -- "$python" "$peer" \
      --data "$data" --epochs "$epochs" --device "$device" "${peer_threads[@]}")
    acc=$(sed -n 's/.*test_accuracy=\([0-9.]*\).*/\1/p' "$tmp/peer.txt")
    echo "$setting peer $t $r $acc" >> "$results"
    [ ${#spinners[@]} -eq 0 ] || { kill "${spinners[@]}"; wait "${spinners[@]}" 2>/dev/null || true; }
  done
done
# CUDA graphs: the launch-bound floor of the captured step (an empty replayed graph of as many
# kernels), times the steps of an epoch, against the measured steady-state epoch.
floor_json=$tmp/floor.json
read -r kernels steps < <(awk '$2 == "ours" && $7 > 0 {k = $7; s = $8} END {print k + 0, s + 0}' "$results")
if [ "$kernels" -gt 0 ]; then
  "$dlready" bench floor --device "$device" --kernels "$kernels" --steps "$steps" --json > "$floor_json" 2>/dev/null || true
fi
python3 - "$results" "$runs" "$epochs" "$device" "${extra[*]}" "$floor_json" "${DLREADY_RECORD_DIR:-}" <<'PY'
import datetime, json, os, statistics, sys
record = {}
rows = [l.split() for l in open(sys.argv[1])]
print(f"dlready train vs train_seed.py: SimpleNet, Fashion-MNIST, batch 64, {sys.argv[3]} epochs, {sys.argv[4]} {sys.argv[5]}; "
      f"{sys.argv[2]} alternating run(s) each, medians")
for setting in ("default", "1thread", "busy"):
    if not any(x[0] == setting for x in rows):
        continue  # DLREADY_SETTINGS left it out
    side = {}
    for who in ("ours", "peer"):
        r = [x for x in rows if x[0] == setting and x[1] == who]
        side[who] = (statistics.median(float(x[2]) for x in r), max(int(x[3]) for x in r) / 1024,
                     statistics.median(float(x[4]) for x in r))
    (ot, orss, oacc), (pt, prss, pacc) = side["ours"], side["peer"]
    label = {"default": "default threading", "1thread": "1 thread each",
             "busy": "default threading, every processor busy with a spinning process"}[setting]
    ours = [x for x in rows if x[0] == setting and x[1] == "ours"]
    peer = [x for x in rows if x[0] == setting and x[1] == "peer"]
    spread = lambda r: f"{min(float(x[2]) for x in r):.2f}-{max(float(x[2]) for x in r):.2f} s"
    # Each run against the peer's run beside it (alternating pairs), then the median of those ratios.
    pairs = [float(p[2]) / float(o[2]) for o, p in zip(ours, peer)]
    print(f"[{label}]")
    print(f"  dlready train   {ot:8.2f} s ({spread(ours)})   test acc {oacc*100:6.2f}%   peak RSS {orss:7.1f} MiB")
    print(f"  train_seed.py   {pt:8.2f} s ({spread(peer)})   test acc {pacc*100:6.2f}%   peak RSS {prss:7.1f} MiB")
    print(f"  speed-up {pt/ot:.1f}x of the medians, {statistics.median(pairs):.1f}x the median pair "
          f"({min(pairs):.1f}-{max(pairs):.1f}x); target >= 15x with default threading")
    # What a run costs beyond its epochs: start-up, data, evaluation, the records.
    epoch = statistics.median(float(x[5]) for x in ours)
    fixed = statistics.median(float(x[2]) - int(sys.argv[3]) * float(x[5]) for x in ours)
    print(f"  dlready's steady epoch {epoch:.3f} s; the rest of a run {fixed:.2f} s (target <= 0.3 s)")
    record[setting] = {"dlready_s": ot, "dlready_s_range": [min(float(x[2]) for x in ours), max(float(x[2]) for x in ours)],
                       "peer_s": pt, "peer_s_range": [min(float(x[2]) for x in peer), max(float(x[2]) for x in peer)],
                       "ratio_of_medians": pt / ot, "ratio_median_pair": statistics.median(pairs),
                       "ratio_pair_range": [min(pairs), max(pairs)], "dlready_acc": oacc, "peer_acc": pacc,
                       "dlready_rss_mib": orss, "peer_rss_mib": prss, "epoch_s": epoch, "rest_of_run_s": fixed}
    if setting == "busy" and any(x[0] == "default" for x in rows):
        idle = statistics.median(float(x[2]) for x in rows if x[0] == "default" and x[1] == "ours")
        print(f"  dlready busy / idle: {ot / idle:.2f}x the idle machine's time")
import json, os
if os.path.getsize(sys.argv[6]) if os.path.exists(sys.argv[6]) else 0:
    f = json.load(open(sys.argv[6])).get("floor", {})
    if "epoch_seconds" in f:
        epoch = statistics.median(float(x[5]) for x in rows if x[0] == "default" and x[1] == "ours")
        print(f"[launch-bound floor] {f['kernels']} kernels/step x {f['steps_per_epoch']} steps: "
              f"{f['epoch_seconds']:.3f} s/epoch ({f['per_kernel_us']:.2f} us/kernel); "
              f"dlready epoch {epoch:.3f} s = {epoch / f['epoch_seconds']:.2f}x the floor (target <= 2x)")
    else:
        print(f"[launch-bound floor] not measured: {f.get('error', 'no result')}")
if sys.argv[7] and record:
    os.makedirs(sys.argv[7], exist_ok=True)
    out = {"bench": "train.sh", "date": datetime.date.today().isoformat(), "runs": int(sys.argv[2]),
           "epochs": int(sys.argv[3]), "device": sys.argv[4], "extra": sys.argv[5], "cpus": os.cpu_count(), "settings": record}
    with open(os.path.join(sys.argv[7], f"train-{sys.argv[4]}.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
PY
