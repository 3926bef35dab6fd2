// The AMDGPU math library, linked only into kernels that call it: ROCm's ocml when ocml.bc is
// installed, else rocjit's built-in one (LLVM's libclc functions, embedded at build time).
#pragma once

#include <llvm/IR/Module.h>

#include <string>
#include <vector>

namespace rocjit::targets::amdgpu {

// Directories searched for ocml.bc: `device_libs` (Settings::device_libs, ROCJIT_DEVICE_LIBS) if
// not empty, then the Debian and ROCm locations; none when it is "none" (the built-in library then
// serves every kernel).
std::vector<std::string> device_lib_dirs(const std::string& device_libs);

// Which library serves kernels compiled with `device_libs`, for the kernel cache's key and
// messages: "ocml <path>", "builtin (libclc <LLVM version>)" or "none". Found once per value.
const std::string& math_library(const std::string& device_libs);

// Links the math library into `module`, keeping only what the module uses. ocml: also defines
// its control constants for `processor` (any processor: no per-processor files are needed). The
// built-in library: the module's __ocml_<fn>_<type> calls are renamed to libclc's functions.
// Throws CompileError naming `users` when neither is available. `device_libs` as for
// device_lib_dirs.
void link_device_libs(llvm::Module& module, const std::string& kernel, const std::string& processor,
                      unsigned wavefront_size, int code_object_version, const std::vector<std::string>& users,
                      const std::string& device_libs);

}  // namespace rocjit::targets::amdgpu
