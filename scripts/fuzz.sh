#!/usr/bin/env bash
# Fuzzes the .rjir parser with libFuzzer (clang-22) for SECONDS (default 300) on JOBS processes.
#   scripts/fuzz.sh [SECONDS] [JOBS]
# The seed corpus (tests/fuzz/corpus) is copied to build-fuzz/corpus, which grows as libFuzzer
# finds new coverage; crashing inputs land in build-fuzz/artifacts/. Each one, once fixed, belongs
# in tests/fuzz/regressions/, which ctest's parser-fuzz-regressions replays on every build.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
jobs=${2:-1}
cmake --preset fuzz -G Ninja > /dev/null
cmake --build --preset fuzz
out=$(pwd -P)/build-fuzz
mkdir -p "$out/corpus" "$out/artifacts"
cp -n tests/fuzz/corpus/* tests/fuzz/regressions/* "$out/corpus/" 2>/dev/null || true
parallel=()
if ((jobs > 1)); then parallel=(-jobs="$jobs" -workers="$jobs"); fi
# With -jobs, libFuzzer's workers log to fuzz-N.log in the current directory: keep those in build-fuzz.
cd "$out"
exec "$out/bin/rocjit-parser-fuzzer" "${parallel[@]}" "$out/corpus" \
  -dict="$out/../tests/fuzz/rjir.dict" -max_total_time="$seconds" \
  -timeout=10 -rss_limit_mb=4096 -max_len=8192 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/"
