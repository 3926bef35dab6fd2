#!/usr/bin/env bash
# Installs dependencies, builds, and runs the main sample: the tiled matmul kernel compiled
# in-process for gfx90a, with its code-object metadata.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
generator=()
[[ -f build/CMakeCache.txt ]] || { command -v ninja >/dev/null && generator=(-G Ninja); }
cmake --preset default "${generator[@]}" >/dev/null
cmake --build --preset default -j "$(nproc)" --target sample-matmul
./build/bin/sample-matmul --mcpu=gfx90a
