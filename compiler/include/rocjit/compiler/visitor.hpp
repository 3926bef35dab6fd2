// Traversal of rocjit IR: Visitor reads an op tree, Mutator rewrites one (Halide's IRVisitor and
// IRMutator are the model). Each has one hook per op kind, generated from the op registry, whose
// default recurses into the op's regions: a pass overrides the few kinds it cares about.
#pragma once

#include <memory>
#include <vector>

#include "rocjit/compiler/ir.hpp"

namespace rocjit::ir {

/// Reads a kernel's ops in order, into nested regions. A class that overrides visit(const Op&)
/// hides the other visit overloads: add `using Visitor::visit;` (as with Halide's IRVisitor).
class Visitor {
 public:
  virtual ~Visitor() = default;

  virtual void visit(const Kernel& kernel);  ///< the body
  virtual void visit(const Region& region);  ///< each op, in order
  /// Calls the hook of op.kind (visit_load, visit_if_, ...). Override to see every op first.
  virtual void visit(const Op& op);

#define ROCJIT_VISIT_HOOK(kind, ...) \
  virtual void visit_##kind(const Op& op) { visit_regions(op); }
  /// The hook of each op kind, `visit_<kind>` (one per ROCJIT_OPS entry): by default, visits the
  /// op's regions.
  ///@{
  ROCJIT_OPS(ROCJIT_VISIT_HOOK)
  ///@}
#undef ROCJIT_VISIT_HOOK

 protected:
  void visit_regions(const Op& op);  ///< each region of op, in order
};

/// Rewrites a kernel in place. mutate(op) returns the ops that take op's place in its region:
/// op itself (changed or not), none (deleted), or several (an expansion, whose last op usually
/// defines op's result, so later uses need no renaming). New values come from kernel().new_value.
/// Overriding one mutate overload hides the others: add `using Mutator::mutate;`.
class Mutator {
 public:
  /// An owned op.
  using OpPtr = std::unique_ptr<Op>;
  /// An owned list of ops.
  using Ops = std::vector<OpPtr>;

  virtual ~Mutator() = default;

  /// Mutates the body, then re-establishes the ValueInfo::def pointers.
  virtual void mutate(Kernel& kernel);
  /// Rewrites `region` in place through mutate_op(), into nested regions.
  virtual void mutate(Region& region);
  /// Calls the hook of op->kind (mutate_math, mutate_for_, ...).
  virtual Ops mutate(OpPtr op);

#define ROCJIT_MUTATE_HOOK(kind, ...) \
  virtual Ops mutate_##kind(OpPtr op) { return keep(mutate_regions(std::move(op))); }
  /// The hook of each op kind, `mutate_<kind>` (one per ROCJIT_OPS entry): by default, mutates the
  /// op's regions and keeps the op.
  ///@{
  ROCJIT_OPS(ROCJIT_MUTATE_HOOK)
  ///@}
#undef ROCJIT_MUTATE_HOOK

 protected:
  /// The kernel being mutated (valid inside mutate(Kernel&)).
  Kernel& kernel() { return *kernel_; }
  /// Mutates each region of op and returns it.
  OpPtr mutate_regions(OpPtr op);
  /// A list holding just `op`.
  static Ops keep(OpPtr op);

 private:
  Kernel* kernel_ = nullptr;
};

/// A deep copy: the op tree is duplicated, ValueInfo::def points into the copy.
///@{
Kernel clone(const Kernel& kernel);
std::unique_ptr<Op> clone(const Op& op);
///@}

}  // namespace rocjit::ir
