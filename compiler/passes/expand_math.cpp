// Math expansion. Every math function lowers on every target today: the host through LLVM
// intrinsics and libm, AMDGPU through the backend's own expansions and the ocml device library
// (f32 tan included, which once was sin / cos here: ocml's tan is accurate near the poles, where
// a quotient of two rounded results is not). So no rewrite rule exists: the pass checks that and
// returns nullptr. A function a target cannot lower gets its rewrite rule here, as an ir::Mutator
// over a copy of the kernel.
#include "passes/expand_math.h"

#include <fmt/format.h>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/visitor.hpp"

namespace rocjit::passes {

bool target_lowers_math(const Target&, ir::MathFn, ir::Type) { return true; }

std::unique_ptr<ir::Kernel> expand_math(const ir::Kernel& kernel, const Target& target) {
  ir::walk(kernel.body, [&](const ir::Op& op) {
    if (op.kind == ir::OpKind::math && !target_lowers_math(target, op.math_fn(), op.type))
      throw CompileError(fmt::format("kernel '{}': internal error: {} on {} (at {}) has no lowering for {}",
                                     kernel.name, ir::math_fn_name(op.math_fn()), ir::type_name(op.type),
                                     op.loc.str(), target.str()));
  });
  return nullptr;
}

}  // namespace rocjit::passes
