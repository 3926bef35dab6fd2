#!/usr/bin/env bash
# Installs dependencies, configures and builds (preset `default`, or $ROCJIT_PRESET), and runs
# the whole test suite with ctest. The exit code is the suite's.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
preset="${ROCJIT_PRESET:-default}"
dir=build
[[ "$preset" == default ]] || dir="build-$preset"
generator=()
if [[ ! -f "$dir/CMakeCache.txt" ]] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake --preset "$preset" "${generator[@]}"
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)" "$@"
