// Type legalisation. Every type ir::verify accepts (ir::is_supported, and the vectors of
// ir::is_supported_vector, which only loads, stores and the vector ops carry) lowers natively on every
// target today, so no rewrite rule exists yet: the pass checks that and returns nullptr (the
// kernel is lowered as it is). Types a target lacks (f16 arithmetic without native support,
// vectors wider than a target's registers) get their rewrite rules here.
#include "passes/legalize_types.h"

#include <fmt/format.h>

#include "rocjit/compiler/error.hpp"

namespace rocjit::passes {

bool target_supports_type(const Target&, ir::Type t) {
  return ir::is_supported(t) || ir::is_supported_vector(t) || ir::is_fragment_vector(t);
}

std::unique_ptr<ir::Kernel> legalize_types(const ir::Kernel& kernel, const Target& target) {
  auto check = [&](ir::Type t, const ir::SourceLoc& loc) {
    if (t != ir::Type::none && !target_supports_type(target, t))
      throw CompileError(fmt::format("kernel '{}': internal error: {} values (at {}) have no lowering for {}",
                                     kernel.name, ir::type_name(t), loc.str(), target.str()));
  };
  for (const ir::Memory& m : kernel.memories) check(m.element, m.loc);
  for (const ir::Slot& s : kernel.slots) check(s.type, s.loc);
  for (const ir::Param& p : kernel.params) check(p.type, kernel.loc);
  ir::walk(kernel.body, [&](const ir::Op& op) { check(op.type, op.loc); });
  return nullptr;
}

}  // namespace rocjit::passes
