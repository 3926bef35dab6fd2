// Memory limits every back end enforces before lowering, with messages that list the arrays.
#pragma once

#include <cstdint>
#include <string>

#include "rocjit/compiler/ir.hpp"

namespace rocjit::targets {

// Bytes the kernel's arrays in `space` need (shared: per work-group; local: per work-item).
uint64_t array_bytes(const ir::Kernel& kernel, ir::MemorySpace space);

// Throws CompileError when those bytes exceed `limit`: "kernel 'k': shared arrays need N bytes
// <need> but <allowance>:" followed by each array's name, shape, size and location.
void check_array_bytes(const ir::Kernel& kernel, ir::MemorySpace space, uint64_t limit, const std::string& need,
                       const std::string& allowance);

// Throws CompileError unless `opt_level` is 0..3.
void check_opt_level(const std::string& kernel, int opt_level);

}  // namespace rocjit::targets
