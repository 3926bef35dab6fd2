// What the runtime and the kernel cache need to know about AMDGPU processors without the compiler:
// wave size, LDS limit, and the math library that serves kernels (part of every cache key).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rocjit::loader::amdgpu {

// GFX10 and later (gfx10xx, gfx11xx, gfx12xx and their -generic targets) run wave32 unless told
// otherwise; GFX9 and earlier are wave64 only (LLVM's FEATURE_WAVE32 marks the same processors).
bool wave32_by_default(const std::string& processor);
unsigned wavefront_size(const std::string& processor, const std::string& features);
uint64_t lds_limit(const std::string& processor);

// Where ocml.bc is looked for: Settings::device_libs first (unless "none"), then ROCm's places.
std::vector<std::string> device_lib_dirs(const std::string& device_libs);
// "ocml <path>", "builtin (libclc <LLVM version>)" or "none" (rocjit/compiler/compile.hpp,
// amdgpu_math_library): a stat per directory, once per Settings::device_libs.
const std::string& math_library(const std::string& device_libs);

}  // namespace rocjit::loader::amdgpu
