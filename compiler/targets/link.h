// Links a relocatable object into a shared object with lld, in-process: an AMDGPU code object
// (.hsaco) or, for the host, a shared object the loader opens with dlopen (loader/host_library.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <llvm/ADT/SmallVector.h>

namespace rocjit::targets {

enum class LinkFor { amdgpu, host };

// `kernel` is for messages. lld keeps global state, so calls are serialised. For the host, symbols
// the object does not define (the CPU runtime's rocjit_host_* helpers, libm) stay undefined and
// are bound when the shared object is loaded; references to its own symbols bind locally.
std::vector<uint8_t> link(const llvm::SmallVectorImpl<char>& object, const std::string& kernel, LinkFor what);

}  // namespace rocjit::targets
