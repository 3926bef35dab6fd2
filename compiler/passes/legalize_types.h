// Type legalisation: 16-bit float arithmetic that no target computes natively becomes f32
// arithmetic between casts, in the IR, for every target (the same rewrite feeds the CPU and every
// AMDGPU processor; the interpreter evaluates the unrewritten IR as the reference).
#pragma once

#include <memory>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/target.hpp"

namespace rocjit::passes {

// Returns a copy of `kernel` in which every binary and math op of a 16-bit float type that the IR's
// 16-bit rule computes through f32 (ir::semantics::computes_through_f32) is computed in f32
// (operands widened exactly, the result rounded once), or nullptr when there is none.
std::unique_ptr<ir::Kernel> legalize_types(const ir::Kernel& kernel, const Target& target);

}  // namespace rocjit::passes
