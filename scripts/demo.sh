#!/usr/bin/env bash
# Installs dependencies, builds, and runs the main sample twice: the tiled matmul kernel compiled
# in-process for gfx90a with its code-object metadata (no GPU needed), then the same kernel run
# on the default device (the first AMD GPU, else the CPU) and checked against the host.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
generator=()
[[ -f build/CMakeCache.txt ]] || { command -v ninja >/dev/null && generator=(-G Ninja); }
cmake --preset default "${generator[@]}" >/dev/null
cmake --build --preset default -j "$(nproc)" --target sample-matmul

echo "== ./build/bin/sample-matmul --print-metadata=gfx90a"
./build/bin/sample-matmul --print-metadata=gfx90a
echo
echo "== ./build/bin/sample-matmul"
./build/bin/sample-matmul

cat <<'NEXT'

Where to look next:
  ./build/bin/sample-<name> --help    the other samples: saxpy reverse reduce transpose histogram
                                      jacobi streams smartarray (--device=cpu|hip[:N] --size=N --repeat=R)
  ./build/bin/rocjit-dump --help      any stage of a kernel saved as .rjir: IR, LLVM IR before and
                                      after -O3, AMDGPU or host assembly, the code object, metadata
  ROCJIT_DUMP=all ROCJIT_DUMP_DIR=dumps ./build/bin/sample-matmul --device=cpu
                                      writes every stage of every kernel the program compiles to
                                      dumps/<kernel>.<target>.<stage> (stages: ir, llvm, llvm-opt,
                                      asm, meta); k.llvm_ir(), k.assembly(), k.metadata() in code
  samples/embed/                      a standalone project using an installed rocjit
                                      (find_package(rocjit) + rocjit::rocjit)
NEXT
