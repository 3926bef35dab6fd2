// compute_in: an op evaluated in a wider float type, through casts in the IR.
#include "passes/narrow.h"

#include <memory>
#include <utility>

namespace rocjit::passes {
namespace {

ir::Mutator::OpPtr cast(ir::Kernel& kernel, ir::ValueId from, ir::Type to, ir::ValueId result, const ir::SourceLoc& loc) {
  auto c = std::make_unique<ir::Op>(ir::OpKind::cast);
  c->type = to;
  c->result = result ? result : kernel.new_value(to);
  c->operands = {from};
  c->loc = loc;
  return c;
}

}  // namespace

ir::Mutator::Ops compute_in(ir::Kernel& kernel, ir::Mutator::OpPtr op, ir::Type wide) {
  ir::Mutator::Ops out;
  const ir::Type narrow = op->type;
  for (ir::ValueId& v : op->operands) {
    if (kernel.value_type(v) != narrow) continue;
    out.push_back(cast(kernel, v, wide, 0, op->loc));
    v = out.back()->result;
  }
  const ir::ValueId result = op->result;
  const ir::SourceLoc loc = op->loc;
  op->type = wide;
  op->result = kernel.new_value(wide);
  const ir::ValueId computed = op->result;
  out.push_back(std::move(op));
  out.push_back(cast(kernel, computed, narrow, result, loc));
  return out;
}

}  // namespace rocjit::passes
