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

std::unique_ptr<Op> clone(const Op& op) { return std::make_unique<Op>(op); }

Kernel clone(const Kernel& kernel) {
  Kernel copy = kernel;  // Region's copy is deep; the definitions must then point into the copy
  copy.index_definitions();
  return copy;
}

}  // namespace rocjit::ir
