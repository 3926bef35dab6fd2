// Loading a host kernel's shared object (linked by lld at compile time, targets/link.h) into the
// process with dlopen: the one way host kernels run, whether just compiled or read from the kernel
// cache. No LLVM: cache hits load kernels without the compiler.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "rocjit/compiler/host.hpp"

namespace rocjit::loader {

// The shared object stays loaded while the returned handle lives (dlclose when it goes, except
// while the process exits: a worker may still be running the code). `entry` is set to the
// address of `symbol`. Throws CompileError naming `kernel` when the bytes cannot be loaded or do
// not define `symbol`.
std::shared_ptr<void> load_host_library(const std::string& kernel, std::string_view shared_object,
                                        const std::string& symbol, HostGroupFunction& entry);

}  // namespace rocjit::loader
