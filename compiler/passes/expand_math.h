// Math expansion: a math function a target's lowering cannot compute accurately enough in a type
// becomes the same function in a wider type, in the IR.
#pragma once

#include <memory>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/target.hpp"

namespace rocjit::passes {

// Whether `target` computes `fn` on values of type `t` itself (within the accuracy the math
// library documents, docs/math.md). Not on AMDGPU: f32 tgamma and lgamma (ocml's f32 tgamma
// underflows to 0 early for x < -30 and its f32 lgamma is off by dozens of ulp near lgamma's
// zeros), which are computed in f64 and rounded (within 0.5 ulp + the f64 error, far below an
// f32 ulp, as the accuracy harness measures).
bool target_lowers_math(const Target& target, ir::MathFn fn, ir::Type t);

// Returns a copy of `kernel` in which every math op `target` does not lower in its type is
// computed in f64 between casts, or nullptr when there is none.
std::unique_ptr<ir::Kernel> expand_math(const ir::Kernel& kernel, const Target& target);

}  // namespace rocjit::passes
