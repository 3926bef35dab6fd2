// Math expansion: rewrites math functions a target cannot lower into ops it can.
#pragma once

#include <memory>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/target.hpp"

namespace rocjit::passes {

// Whether `target`'s lowering handles `fn` on `t` (f32 or f64) itself. AMDGPU has no f32 tan
// (its backend expands sin and cos, not tan); everything else is lowered by each target
// (AMDGPU: f64 transcendentals through the ocml device library).
bool target_lowers_math(const Target& target, ir::MathFn fn, ir::Type t);

// Returns a copy of `kernel` in which every math op `target` does not lower is replaced by
// ops that compute it (tan(x) = sin(x) / cos(x)), each defining fresh values except the last,
// which defines the original result at the original location; nullptr when there is none.
std::unique_ptr<ir::Kernel> expand_math(const ir::Kernel& kernel, const Target& target);

}  // namespace rocjit::passes
