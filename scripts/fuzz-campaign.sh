#!/usr/bin/env bash
# A fuzzing campaign (outside CI): each libFuzzer target in turn for MINUTES minutes on all cores,
# from the seed corpus plus what earlier campaigns kept. Prints executions, coverage and findings per
# target; new crashers land in tests/fuzz/regressions/<target>/ (commit them: ctest replays them).
# usage: scripts/fuzz-campaign.sh [MINUTES-per-target] [targets...]   (default 10, all)
#   DLREADY_FUZZ_JOBS=N  workers (default: all cores); leave cores free for other work with it.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(ld_cache text_parsers root_files idx elf sealed audit_log)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)" >/dev/null
corpus_root=${DLREADY_FUZZ_CORPUS:-$HOME/.cache/dlready/fuzz-corpus}
printf '%-14s %12s %10s %8s %8s  %s\n' target executions exec/s cov ft findings
for t in "${targets[@]}"; do
  bin=$PWD/build/fuzz/tests/fuzz/fuzz_$t
  work=$corpus_root/$t
  keep=$PWD/tests/fuzz/regressions/$t
  mkdir -p "$work" "$keep"
  cp -rn tests/fuzz/corpus/$t/. "$work"/ 2>/dev/null || true
  log=$(mktemp)
  before=$(find "tests/fuzz/regressions/$t" -type f | wc -l)
  jobs=${DLREADY_FUZZ_JOBS:-$(nproc)}
  # -jobs writes fuzz-N.log per worker into the current directory: run in a scratch one.
  scratch=$(mktemp -d)
  # No allocation stacks in reports (the ASan stack depot cost ~10% of root_files' time); a
  # kept crasher replays with full stacks through the fuzz_replay_* tests.
  (cd "$scratch" && ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0} "$bin" -max_total_time=$((minutes * 60)) -rss_limit_mb=2048 -print_final_stats=1 \
    -jobs="$jobs" -workers="$jobs" -artifact_prefix="$keep/" "$work" >"$log" 2>&1) || true
  execs=0; cov=0; ft=0
  for l in "$scratch"/fuzz-*.log "$log"; do
    [ -f "$l" ] || continue
    e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$l" | tail -n 1)
    execs=$((execs + ${e:-0}))
    c=$(grep -o 'cov: [0-9]*' "$l" | tail -n 1 | awk '{print $2}'); [ "${c:-0}" -gt "$cov" ] && cov=$c
    f=$(grep -o 'ft: [0-9]*' "$l" | tail -n 1 | awk '{print $2}'); [ "${f:-0}" -gt "$ft" ] && ft=$f
  done
  rm -rf "$scratch" "$log"
  after=$(find "tests/fuzz/regressions/$t" -type f | wc -l)
  printf '%-14s %12d %10d %8d %8d  %d new\n' "$t" "$execs" $((execs / (minutes * 60))) "$cov" "$ft" $((after - before))
done
