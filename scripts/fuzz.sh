#!/usr/bin/env bash
# Runs a libFuzzer target (clang-22, preset `fuzz`: ASan + UBSan) for SECONDS (default 300) on
# JOBS processes.
#   scripts/fuzz.sh [--dsl] [SECONDS] [JOBS]
# Without --dsl: the .rjir parser (rocjit-parser-fuzzer, corpus tests/fuzz/corpus, dictionary
# tests/fuzz/rjir.dict). With --dsl: kernels traced from bytes through the DSL and compiled for
# the host and gfx942 (rocjit-dsl-fuzzer, corpus tests/fuzz/dsl-corpus; the fuzz preset compiles
# all of rocjit with coverage and the sanitizers).
# The seed corpus is copied to build-fuzz/<target>-corpus, which grows as libFuzzer finds new
# coverage; failing inputs land in build-fuzz/artifacts/. Each one, once fixed, belongs in
# tests/fuzz/regressions/ (parser) or tests/fuzz/dsl-regressions/ (DSL), which ctest replays
# (parser-fuzz-regressions, dsl-fuzz-regressions) on every build.
set -euo pipefail
cd "$(dirname "$0")/.."
target=parser
if [[ "${1:-}" == --dsl ]]; then target=dsl; shift; fi
seconds=${1:-300}
jobs=${2:-1}
cmake --preset fuzz -G Ninja > /dev/null
cmake --build --preset fuzz --target "rocjit-$target-fuzzer"
out=$(pwd -P)/build-fuzz
corpus="$out/$target-corpus"
mkdir -p "$corpus" "$out/artifacts"
options=(-max_total_time="$seconds" -timeout=30 -rss_limit_mb=6144 -print_final_stats=1 -artifact_prefix="$out/artifacts/")
if [[ $target == parser ]]; then
  cp -n tests/fuzz/corpus/* tests/fuzz/regressions/* "$corpus/" 2>/dev/null || true
  options+=(-dict="$out/../tests/fuzz/rjir.dict" -max_len=8192)
else
  cp -n tests/fuzz/dsl-corpus/* tests/fuzz/dsl-regressions/* "$corpus/" 2>/dev/null || true
  options+=(-max_len=1024)
  export ROCJIT_CACHE=0  # every input is a new kernel: keep the disk cache out of it
fi
parallel=()
if ((jobs > 1)); then parallel=(-jobs="$jobs" -workers="$jobs"); fi
# With -jobs, libFuzzer's workers log to fuzz-N.log in the current directory: keep those in build-fuzz.
cd "$out"
exec "$out/bin/rocjit-$target-fuzzer" "${parallel[@]}" "$corpus" "${options[@]}"
