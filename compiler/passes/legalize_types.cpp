// Type legalisation (see legalize_types.h): the IR's 16-bit float rule, written once in
// ir::semantics::computes_through_f32 (rocjit/compiler/semantics.hpp).
#include "passes/legalize_types.h"

#include "passes/narrow.h"
#include "rocjit/compiler/semantics.hpp"
#include "rocjit/compiler/visitor.hpp"

namespace rocjit::passes {
namespace {

bool is_narrow_float(ir::Type t) { return ir::is_float(t) && t.bits == 16 && t.lanes == 1; }

bool rewrites(const ir::Op& op) {
  return (op.kind == ir::OpKind::binary || op.kind == ir::OpKind::math) && is_narrow_float(op.type) &&
         ir::semantics::computes_through_f32(op);
}

class NarrowFloats : public ir::Mutator {
 public:
  Ops mutate_binary(OpPtr op) override { return legalize(std::move(op)); }
  Ops mutate_math(OpPtr op) override { return legalize(std::move(op)); }

 private:
  Ops legalize(OpPtr op) {
    if (!rewrites(*op)) return keep(std::move(op));
    return compute_in(kernel(), std::move(op), ir::Type::f32);
  }
};

bool needs_rewrite(const ir::Kernel& kernel) {
  bool found = false;
  ir::walk(kernel.body, [&](const ir::Op& op) { found = found || rewrites(op); });
  return found;
}

}  // namespace

std::unique_ptr<ir::Kernel> legalize_types(const ir::Kernel& kernel, const Target&) {
  if (!needs_rewrite(kernel)) return nullptr;  // one walk, no copy
  auto out = std::make_unique<ir::Kernel>(ir::clone(kernel));
  NarrowFloats pass;
  pass.mutate(*out);
  return out;
}

}  // namespace rocjit::passes
