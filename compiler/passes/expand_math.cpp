// Math expansion (see expand_math.h).
#include "passes/expand_math.h"

#include "passes/narrow.h"
#include "rocjit/compiler/visitor.hpp"

namespace rocjit::passes {
namespace {

class WidenMath : public ir::Mutator {
 public:
  explicit WidenMath(const Target& target) : target_(target) {}

  Ops mutate_math(OpPtr op) override {
    if (target_lowers_math(target_, op->math_fn(), op->type)) return keep(std::move(op));
    return compute_in(kernel(), std::move(op), ir::Type::f64);
  }

 private:
  const Target& target_;
};

}  // namespace

bool target_lowers_math(const Target& target, ir::MathFn fn, ir::Type t) {
  if (target.kind != Target::Kind::amdgpu || t != ir::Type::f32) return true;
  return fn != ir::MathFn::tgamma && fn != ir::MathFn::lgamma;
}

std::unique_ptr<ir::Kernel> expand_math(const ir::Kernel& kernel, const Target& target) {
  bool found = false;
  ir::walk(kernel.body, [&](const ir::Op& op) {
    if (op.kind == ir::OpKind::math && !target_lowers_math(target, op.math_fn(), op.type)) found = true;
  });
  if (!found) return nullptr;
  auto out = std::make_unique<ir::Kernel>(ir::clone(kernel));
  WidenMath pass(target);
  pass.mutate(*out);
  return out;
}

}  // namespace rocjit::passes
