// Math expansion: rewrites math functions a target cannot lower into ops it can.
#pragma once

#include <memory>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/target.hpp"

namespace rocjit::passes {

// Whether `target`'s lowering handles `fn` on `t` itself: every function on every target today
// (AMDGPU: what its backend does not expand accurately through the ocml device library).
bool target_lowers_math(const Target& target, ir::MathFn fn, ir::Type t);

// Returns a copy of `kernel` in which every math op `target` does not lower is replaced by ops
// that compute it, or nullptr when there is none (always, today: a function without a rule is an
// internal CompileError naming the kernel, function and target).
std::unique_ptr<ir::Kernel> expand_math(const ir::Kernel& kernel, const Target& target);

}  // namespace rocjit::passes
