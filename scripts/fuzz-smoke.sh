#!/usr/bin/env bash
# Short libFuzzer runs of every fuzz target (CI smoke), then every kept regression input.
# usage: scripts/fuzz-smoke.sh [seconds-per-target]   (default 15)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-15}
targets=(ld_cache text_parsers root_files idx elf sealed audit_log pickle json node_message safetensors checkpoint pe
         capture_manifest index_page macho error_signatures)
cmake --preset fuzz >/dev/null
# Only the fuzz targets (and the layers they link): the CLI is not built a second time here.
cmake --build --preset fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}" >/dev/null
# The readers of long untrusted text are given 1 MB inputs (issue 57: a long line once overflowed
# the stack of a regex); the others keep libFuzzer's default length.
declare -A max_len=([text_parsers]=1048576 [root_files]=1048576 [error_signatures]=1048576)
for t in "${targets[@]}"; do
  bin=build/fuzz/tests/fuzz/fuzz_$t
  len=()
  [ -n "${max_len[$t]:-}" ] && len=(-max_len="${max_len[$t]}")
  work=$(mktemp -d)
  cp -r tests/fuzz/corpus/$t/. "$work"/ 2>/dev/null || true
  echo "fuzz_$t: ${secs}s"
  # Crashes are written to tests/fuzz/regressions/<target>/ so they can be kept as regression inputs.
  mkdir -p tests/fuzz/regressions/$t
  "$bin" -max_total_time="$secs" "${len[@]}" -rss_limit_mb=2048 -artifact_prefix=tests/fuzz/regressions/$t/ "$work" 2>&1 | tail -n 1
  rm -rf "$work"
  if compgen -G "tests/fuzz/regressions/$t/*" >/dev/null; then
    "$bin" tests/fuzz/regressions/$t/* 2>&1 | tail -n 1
  fi
done
