// Optional ROCm device libraries (ocml bitcode), linked only into kernels that call them.
#pragma once

#include <llvm/IR/Module.h>

#include <string>
#include <vector>

namespace rocjit::targets::amdgpu {

// Directories searched for ocml.bc: $ROCJIT_DEVICE_LIBS, then the Debian and ROCm locations.
std::vector<std::string> device_lib_dirs();

// Links ocml into `module`, keeping only what the module uses, and defines ocml's control
// constants for `processor` (any processor: no per-processor files are needed). Throws
// CompileError naming `users` when ocml.bc is not there.
void link_device_libs(llvm::Module& module, const std::string& kernel, const std::string& processor,
                      unsigned wavefront_size, int code_object_version, const std::vector<std::string>& users);

}  // namespace rocjit::targets::amdgpu
