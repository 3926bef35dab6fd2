// Memory limits shared by the back ends (see limits.h).
#include "targets/limits.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rocjit/compiler/error.hpp"

namespace rocjit::targets {

uint64_t array_bytes(const ir::Kernel& kernel, ir::MemorySpace space) {
  uint64_t total = 0;  // each array is at most 2^31 elements of 8 bytes (ir::verify)
  for (const ir::Memory& m : kernel.memories)
    if (m.space == space) total += static_cast<uint64_t>(m.element_count()) * ir::byte_size(m.element);
  return total;
}

void check_array_bytes(const ir::Kernel& kernel, ir::MemorySpace space, uint64_t limit, const std::string& need,
                       const std::string& allowance) {
  const uint64_t total = array_bytes(kernel, space);
  if (total <= limit) return;
  std::string arrays;
  for (const ir::Memory& m : kernel.memories) {
    if (m.space != space) continue;
    arrays += fmt::format("\n  '{}' {}[{}] = {} bytes (at {})", m.name, ir::type_name(m.element),
                          fmt::join(m.shape, ", "), m.element_count() * ir::byte_size(m.element), m.loc.str());
  }
  throw CompileError(fmt::format("kernel '{}': {} arrays need {} bytes {} but {}:{}", kernel.name,
                                 ir::space_name(space), total, need, allowance, arrays));
}

void check_opt_level(const std::string& kernel, int opt_level) {
  if (opt_level < 0 || opt_level > 3)
    throw CompileError(fmt::format("kernel '{}': optimisation level {} is outside 0..3", kernel, opt_level));
}

}  // namespace rocjit::targets
