// The AMDGPU math library, linked only into kernels that call it: ROCm's ocml when ocml.bc is
// installed, else rocjit's built-in one (LLVM's libclc functions, embedded at build time).
#pragma once

#include <llvm/IR/Module.h>

#include <string>
#include <vector>

#include "loader/amdgpu_facts.h"

namespace rocjit::targets::amdgpu {

// Directories searched for ocml.bc, and the name of the library that serves kernels (the cache
// key's): the runtime's, read without LLVM (loader/amdgpu_facts.h).
using loader::amdgpu::device_lib_dirs;
using loader::amdgpu::math_library;

// Links the math library into `module`, keeping only what the module uses. ocml: also defines
// its control constants for `processor` (any processor: no per-processor files are needed). The
// built-in library: the module's __ocml_<fn>_<type> calls are renamed to libclc's functions.
// Throws CompileError naming `users` when neither is available. `device_libs` as for
// device_lib_dirs.
void link_device_libs(llvm::Module& module, const std::string& kernel, const std::string& processor,
                      unsigned wavefront_size, int code_object_version, const std::vector<std::string>& users,
                      const std::string& device_libs);

}  // namespace rocjit::targets::amdgpu
