#!/usr/bin/env bash
# Installs every Debian package rocjit's build, tests, samples and benchmarks need. Idempotent.
set -euo pipefail

packages=(
  cmake g++ make ninja-build pkg-config python3 doxygen
  llvm-22-dev llvm-22-tools liblld-22-dev lld-22 clang-22 libclang-rt-22-dev
  zlib1g-dev libzstd-dev libfmt-dev catch2
  libamdhip64-dev libhsa-runtime-dev rocm-device-libs
  libclc-22  # build: rocjit's own AMDGPU math when ocml.bc is absent at run time (CMakeLists.txt)
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers
  libpolly-22-dev  # librocjit-compiler.so links LLVM statically, and LLVM's LTO (lld's) registers Polly
  libxxhash-dev  # the kernel cache's keys and checksums (XXH3), read without LLVM
  libdlpack-dev  # DLPack interchange (from_dlpack, to_dlpack): the header dlpack/dlpack.h
  libmpfr-dev  # tests only: rocjit-accuracy's reference (MPFR, with libgmp-dev)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  if [[ $status != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
