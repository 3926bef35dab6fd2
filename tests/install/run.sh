#!/usr/bin/env bash
# Installs rocjit from a build tree into a temporary prefix, then configures, builds and runs
# samples/embed against that prefix only, as a host application would. Removes the prefix and
# the embed build afterwards, whatever happens.
# usage: run.sh CMAKE BUILD_DIR EMBED_SOURCE_DIR GENERATOR CXX_COMPILER [CXX_FLAGS]
# CXX_FLAGS are the flags rocjit was built with: a sanitizer build (preset asan) needs a consumer
# built with the same sanitizers, or the uninstrumented executable crashes in the ASan runtime.
set -euo pipefail
cmake=$1 build=$2 embed_source=$3 generator=$4 cxx=$5 cxx_flags=${6:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/rocjit-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

echo "== cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
test -f "$prefix/include/rocjit/rocjit.hpp"
ls "$prefix"/lib*/cmake/rocjit/rocjitConfig.cmake >/dev/null
# The installed headers must not need LLVM's or lld's include path.
if grep -rnE '#include *[<"](llvm|lld|fmt)/' "$prefix/include"; then
  echo "FAIL: installed headers include LLVM, lld or fmt headers"
  exit 1
fi
# ... so the package asks its consumers for nothing but threads: no fmt, LLVM or lld.
if grep -nE 'find_dependency\((fmt|LLVM|LLD)' "$prefix"/lib*/cmake/rocjit/rocjitConfig.cmake; then
  echo "FAIL: rocjitConfig.cmake makes consumers find a private dependency"
  exit 1
fi
if grep -nE 'INTERFACE_LINK_LIBRARIES.*(fmt|LLVM|lld)' "$prefix"/lib*/cmake/rocjit/rocjitTargets*.cmake; then
  echo "FAIL: the exported target passes a private dependency on to its consumers"
  exit 1
fi

# Issue 37: the installed librocjit needs no LLVM (readelf -d: no libLLVM, nothing of lld); its
# compiler, librocjit-compiler.so beside it, exports its entry point and nothing else.
lib=$(ls "$prefix"/lib*/librocjit.so)
compiler=$(ls "$prefix"/lib*/librocjit-compiler.so)
needed=$(readelf -d "$lib")
if grep -iE 'NEEDED.*(LLVM|lld|clang)' <<<"$needed"; then
  echo "FAIL: the installed librocjit depends on LLVM"
  exit 1
fi
if nm -D --undefined-only "$lib" | grep -E ' _ZN4llvm| _ZN3lld'; then
  echo "FAIL: the installed librocjit refers to LLVM's or lld's symbols"
  exit 1
fi
exports=$(nm -D --defined-only "$compiler" | awk '{print $3}')
if [ "$exports" != "rocjit_compiler_v1@@ROCJIT_COMPILER_1" ]; then
  echo "FAIL: librocjit-compiler.so exports more than its entry point:"
  head -20 <<<"$exports"
  exit 1
fi
if grep -iE 'NEEDED.*libLLVM' <<<"$(readelf -d "$compiler")"; then
  echo "FAIL: librocjit-compiler.so loads the shared libLLVM (its LLVM must be private, static)"
  exit 1
fi
echo "librocjit: no LLVM; librocjit-compiler.so exports rocjit_compiler_v1 only"

echo "== configure and build samples/embed against $prefix"
"$cmake" -S "$embed_source" -B "$work/embed" -G "$generator" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$cxx_flags"
"$cmake" --build "$work/embed" -j1

# It must run against the installed librocjit, not the one in the build tree.
# (ldd's output is kept first: `ldd | grep -q` under pipefail fails whenever grep stops reading
# before ldd finishes writing.)
libraries=$(ldd "$work/embed/embed")
if ! grep -q "=> $prefix/lib[^ ]*/librocjit.so" <<<"$libraries"; then
  echo "FAIL: embed does not load librocjit from $prefix:"
  echo "$libraries"
  exit 1
fi

echo "== run embed"
"$work/embed/embed" | tee "$work/embed.out"
grep -qx PASS "$work/embed.out"

# The simulator's HIP library is installed next to librocjit, resolves its own dependencies, and
# the installed runtime finds it (ROCJIT_DEVICE=sim).
if [ -f "$build/lib/libamdsim-hip.so" ]; then
  echo "== run embed on the installed simulator"
  sim=$(ls "$prefix"/lib*/libamdsim-hip.so)
  sim_libraries=$(ldd "$sim")
  if grep -q "not found" <<<"$sim_libraries"; then
    echo "FAIL: $sim has unresolved libraries:"
    echo "$sim_libraries"
    exit 1
  fi
  env -u ROCJIT_SIM_LIBRARY ROCJIT_DEVICE=sim "$work/embed/embed" | tee "$work/embed-sim.out"
  grep -qx PASS "$work/embed-sim.out"
fi

# Issue 37: the installed rocjit-bundle records embed's kernels (for the host, and for gfx942 on
# the installed simulator when there is one); embed then runs from that bundle alone, with the
# disk cache off, compiling forbidden and no compiler library to load.
echo "== record embed's kernels with the installed rocjit-bundle, then run embed from the bundle alone"
targets=host
devices=cpu
if [ -f "$build/lib/libamdsim-hip.so" ]; then
  targets=host,gfx942
  devices="cpu sim:gfx942"
fi
env -u ROCJIT_SIM_LIBRARY "$prefix/bin/rocjit-bundle" record -o "$work/embed.rjb" --targets=$targets -- "$work/embed/embed" \
  >"$work/record.out"
"$prefix/bin/rocjit-bundle" list "$work/embed.rjb" | tee "$work/list.out"
for device in $devices; do
  echo "-- $device"
  env -u ROCJIT_SIM_LIBRARY ROCJIT_DEVICE=$device ROCJIT_BUNDLE="$work/embed.rjb" ROCJIT_COMPILE=never ROCJIT_CACHE=0 \
    ROCJIT_COMPILER_LIBRARY="$work/no-compiler/librocjit-compiler.so" "$work/embed/embed" | tee "$work/embed-bundle.out"
  grep -qx PASS "$work/embed-bundle.out"
done

