// Visitor and Mutator dispatch, and deep copies of kernels.
#include "rocjit/compiler/visitor.hpp"

namespace rocjit::ir {

void Visitor::visit(const Kernel& kernel) { visit(kernel.body); }

void Visitor::visit(const Region& region) {
  for (const auto& op : region.ops) visit(*op);
}

void Visitor::visit(const Op& op) {
  switch (op.kind) {
#define ROCJIT_VISIT_CASE(kind, ...) \
  case OpKind::kind: return visit_##kind(op);
    ROCJIT_OPS(ROCJIT_VISIT_CASE)
#undef ROCJIT_VISIT_CASE
  }
  visit_regions(op);  // an op kind outside the registry (ir::verify rejects it)
}

void Visitor::visit_regions(const Op& op) {
  for (const Region& r : op.regions) visit(r);
}

void Mutator::mutate(Kernel& kernel) {
  Kernel* outer = kernel_;
  kernel_ = &kernel;
  mutate(kernel.body);
  kernel.index_definitions();
  kernel_ = outer;
}

void Mutator::mutate(Region& region) {
  Ops out;
  out.reserve(region.ops.size());
  for (OpPtr& op : region.ops)
    for (OpPtr& replacement : mutate(std::move(op))) out.push_back(std::move(replacement));
  region.ops = std::move(out);
}

Mutator::Ops Mutator::mutate(OpPtr op) {
  switch (op->kind) {
#define ROCJIT_MUTATE_CASE(kind, ...) \
  case OpKind::kind: return mutate_##kind(std::move(op));
    ROCJIT_OPS(ROCJIT_MUTATE_CASE)
#undef ROCJIT_MUTATE_CASE
  }
  return keep(mutate_regions(std::move(op)));
}

Mutator::OpPtr Mutator::mutate_regions(OpPtr op) {
  for (Region& r : op->regions) mutate(r);
  return op;
}

Mutator::Ops Mutator::keep(OpPtr op) {
  Ops out;
  out.push_back(std::move(op));
  return out;
}

// Every field of Op is copied below; a new one must be added there too.
static_assert(sizeof(void*) != 8 || sizeof(Op) == 128, "Op has a new field: copy it in clone(const Op&)");

std::unique_ptr<Op> clone(const Op& op) {
  auto copy = std::make_unique<Op>();
  copy->kind = op.kind;
  copy->type = op.type;
  copy->result = op.result;
  copy->operands = op.operands;
  copy->sub = op.sub;
  copy->dim = op.dim;
  copy->ref = op.ref;
  copy->int_value = op.int_value;
  copy->float_value = op.float_value;
  copy->loc = op.loc;
  copy->regions.resize(op.regions.size());
  for (size_t i = 0; i < op.regions.size(); ++i)
    for (const auto& sub : op.regions[i].ops) copy->regions[i].ops.push_back(clone(*sub));
  return copy;
}

Kernel clone(const Kernel& kernel) {
  Kernel copy;
  copy.name = kernel.name;
  copy.params = kernel.params;
  copy.memories = kernel.memories;
  copy.slots = kernel.slots;
  copy.values = kernel.values;
  copy.max_block_size = kernel.max_block_size;
  copy.fast_math = kernel.fast_math;
  copy.loc = kernel.loc;
  for (const auto& op : kernel.body.ops) copy.body.ops.push_back(clone(*op));
  copy.index_definitions();
  return copy;
}

}  // namespace rocjit::ir
