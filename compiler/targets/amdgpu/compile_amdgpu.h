// The AMDGPU pipeline: lower, (device libraries), optimise, codegen, lld, metadata.
#pragma once

#include "rocjit/compiler/compile.hpp"
#include "rocjit/settings.hpp"

namespace rocjit::targets::amdgpu {

// `options` as compile() resolved them (Settings::bounds_check included); `settings` are the
// compile's (LLVM options, malloc tuning, the math library's directory).
CodeObject compile(const ir::Kernel& kernel, const Target& target, const CompileOptions& options,
                   const Settings& settings);

}  // namespace rocjit::targets::amdgpu
