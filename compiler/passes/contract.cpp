// a * b + c -> fma(a, b, c) in the IR (see rocjit/compiler/passes.hpp).
#include "rocjit/compiler/passes.hpp"

#include <vector>

namespace rocjit::passes {
namespace {

template <class F>
void walk_mutable(ir::Region& r, F&& f) {
  for (auto& op : r.ops) {
    f(*op);
    for (auto& sub : op->regions) walk_mutable(sub, f);
  }
}

bool contractible(ir::Type t) { return t.code == ir::Type::Code::float_ && (t.bits == 32 || t.bits == 64); }

bool is_binary(const ir::Op& op, ir::BinaryOp which) {
  return op.kind == ir::OpKind::binary && op.get<ir::BinaryAttrs>().op == which;
}

}  // namespace

int contract_multiply_adds(ir::Kernel& kernel) {
  std::vector<unsigned> uses(kernel.values.size(), 0);
  walk_mutable(kernel.body, [&](ir::Op& op) {
    for (ir::ValueId v : op.operands)
      if (v < uses.size()) ++uses[v];
  });
  int contracted = 0;
  walk_mutable(kernel.body, [&](ir::Op& op) {
    if (!is_binary(op, ir::BinaryOp::add) || !contractible(op.type) || op.operands.size() != 2) return;
    for (int side = 0; side < 2; ++side) {
      const ir::ValueId product = op.operands[side];
      if (product >= kernel.values.size() || uses[product] != 1) continue;  // the product is needed as well
      const ir::Op* mul = kernel.values[product].def;
      if (!mul || !is_binary(*mul, ir::BinaryOp::mul) || mul->type != op.type) continue;
      const ir::ValueId addend = op.operands[1 - side];
      op.operands = {mul->operands[0], mul->operands[1], addend};
      op.kind = ir::OpKind::math;
      op.set(ir::MathAttrs{ir::MathFn::fma});
      ++contracted;
      return;
    }
  });
  return contracted;
}

}  // namespace rocjit::passes
