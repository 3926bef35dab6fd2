// Math expansion: a Mutator over a copy of the kernel, run only when some math op needs it.
#include "passes/expand_math.h"

#include <fmt/format.h>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/visitor.hpp"

namespace rocjit::passes {
namespace {

class ExpandMath : public ir::Mutator {
 public:
  explicit ExpandMath(const Target& target) : target_(target) {}

  Ops mutate_math(OpPtr op) override {
    if (target_lowers_math(target_, op->math_fn(), op->type)) return keep(std::move(op));
    switch (op->math_fn()) {
      case ir::MathFn::tan: {
        Ops out;
        const ir::ValueId sin = math(out, *op, ir::MathFn::sin);
        const ir::ValueId cos = math(out, *op, ir::MathFn::cos);
        auto quotient = derived(*op, ir::OpKind::binary, static_cast<uint8_t>(ir::BinaryOp::div), {sin, cos});
        quotient->result = op->result;
        out.push_back(std::move(quotient));
        return out;
      }
      default:
        throw CompileError(fmt::format("kernel '{}': internal error: {} on {} (at {}) has no lowering for {}",
                                       kernel().name, ir::math_fn_name(op->math_fn()), ir::type_name(op->type),
                                       op->loc.str(), target_.str()));
    }
  }

 private:
  // A new op of `op`'s type and location.
  OpPtr derived(const ir::Op& op, ir::OpKind kind, uint8_t sub, std::vector<ir::ValueId> operands) {
    auto d = std::make_unique<ir::Op>();
    d->kind = kind;
    d->sub = sub;
    d->type = op.type;
    d->operands = std::move(operands);
    d->loc = op.loc;
    return d;
  }

  // fn(op's operands) as a new value, appended to `out`.
  ir::ValueId math(Ops& out, const ir::Op& op, ir::MathFn fn) {
    auto m = derived(op, ir::OpKind::math, static_cast<uint8_t>(fn), op.operands);
    m->result = kernel().new_value(op.type);
    const ir::ValueId v = m->result;
    out.push_back(std::move(m));
    return v;
  }

  const Target& target_;
};

}  // namespace

bool target_lowers_math(const Target& target, ir::MathFn fn, ir::Type t) {
  return !(target.kind == Target::Kind::amdgpu && fn == ir::MathFn::tan && t == ir::Type::f32);
}

std::unique_ptr<ir::Kernel> expand_math(const ir::Kernel& kernel, const Target& target) {
  bool needed = false;
  ir::walk(kernel.body, [&](const ir::Op& op) {
    needed |= op.kind == ir::OpKind::math && !target_lowers_math(target, op.math_fn(), op.type);
  });
  if (!needed) return nullptr;
  auto expanded = std::make_unique<ir::Kernel>(ir::clone(kernel));
  ExpandMath(target).mutate(*expanded);
  return expanded;
}

}  // namespace rocjit::passes
