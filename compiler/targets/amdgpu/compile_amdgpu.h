// The AMDGPU pipeline: lower, (device libraries), optimise, codegen, lld, metadata.
#pragma once

#include "rocjit/compiler/compile.hpp"

namespace rocjit::targets::amdgpu {

CodeObject compile(const ir::Kernel& kernel, const Target& target, const CompileOptions& options);

}  // namespace rocjit::targets::amdgpu
