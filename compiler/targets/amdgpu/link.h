// Links a relocatable AMDGPU object into a loadable code object with lld, in-process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <llvm/ADT/SmallVector.h>

namespace rocjit::targets::amdgpu {

// `kernel` is for messages. lld keeps global state, so calls are serialised.
std::vector<uint8_t> link(const llvm::SmallVectorImpl<char>& object, const std::string& kernel);

}  // namespace rocjit::targets::amdgpu
