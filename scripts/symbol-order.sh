#!/usr/bin/env bash
# Regenerates compiler/targets/symbol_order.txt: the functions of librocjit-compiler.so that a
# fresh process runs to load the library and compile a kernel, which the library's link places
# together (lld --symbol-ordering-file), so that loading it and a first compile touch a few MiB of
# its 43 MB of text instead of pages all over it (docs/performance.md, "Compile latency").
#
#   ./scripts/symbol-order.sh [BUILD_DIR]     (default: build; needs valgrind)
#
# Each of bench-compile's kernels is compiled in a fresh process under callgrind for gfx90a,
# gfx942 and gfx1100, and once for the host; every function of the library that ran is listed,
# the library's static initialisers first (they run in dlopen), then by how many of those runs
# executed the function, most first. Valgrind 3.19 cannot read the DWARF 5 of this build, so the
# runs use copies without debug information. Rerun after an LLVM upgrade or a large change to
# the compile path: names that no longer exist are skipped by the linker.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
command -v valgrind >/dev/null || { echo "symbol-order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lib" "$work/bin"
strip -g -o "$work/lib/librocjit-compiler.so" "$build/lib/librocjit-compiler.so"
strip -g -o "$work/lib/librocjit.so" "$build/lib/librocjit.so"
strip -g -o "$work/bin/bench-compile" "$build/bin/bench-compile"
kernels=$("$build/bin/bench-compile" --list-kernels | wc -l)
run() {  # ARGS...: one fresh bench-compile process under callgrind
  LD_LIBRARY_PATH="$work/lib" ROCJIT_COMPILER_LIBRARY="$work/lib/librocjit-compiler.so" ROCJIT_CACHE=0 \
    OCL_ICD_VENDORS=/nonexistent valgrind --tool=callgrind --demangle=no --compress-strings=no \
    --callgrind-out-file="$work/run-$((++count)).out" "$work/bin/bench-compile" "$@" >/dev/null 2>&1
}
count=0
for ((i = 0; i < kernels; ++i)); do
  for processor in gfx90a gfx942 gfx1100; do run "--cold=$i:$processor"; done
  run "--host-disk=$i:$work/host.txt"
done
python3 - "$work" > compiler/targets/symbol_order.txt <<'EOF'
import glob, sys, collections
runs = collections.Counter()
for path in glob.glob(sys.argv[1] + "/run-*.out"):
    ob, seen = "", set()
    for line in open(path, errors="replace"):
        if line.startswith("ob="):
            ob = line[3:].strip()
        elif line.startswith("fn=") and ob.endswith("librocjit-compiler.so"):
            name = line[3:].strip()
            if not name.startswith("0x") and "'" not in name:
                seen.add(name)
    runs.update(seen)
init = sorted(n for n in runs if n.startswith("_GLOBAL__sub_I_"))
rest = sorted((n for n in runs if not n.startswith("_GLOBAL__sub_I_")), key=lambda n: (-runs[n], n))
print("\n".join(init + rest))
EOF
echo "symbol-order.sh: $(wc -l < compiler/targets/symbol_order.txt) functions from $count runs"
