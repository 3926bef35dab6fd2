// Which bounds guards of a CPU region may be taken as true for a whole work-group (the analysis
// half of the host lowering's guard copies; the lowering emits the per-group check and the two
// copies of the region).
//
// Most kernels guard their accesses with bounds checks such as `If(i < n)`, which LLVM turns into
// masked vector loads and stores in the work-item loop (about twice the time of the plain loop
// on this project's machine) although every work-group but the last passes them. A guard is an
// If (at the top of a region, or nested in Ifs) whose condition is a conjunction of signed i32
// comparisons of expressions the per-group check can bound: affine functions of the local ids
// (constant multiples of local ids plus group-level values: group ids, block and grid sizes,
// shapes, constants, values computed at group level, and min/max of such values), and sums,
// differences, min/max, constant multiples, quotients and remainders by positive constants of
// those. Over the group's box of local ids an affine expression takes its extremes at corners;
// the others are bounded by interval arithmetic. An exit guard is an If whose only op is a Return
// (sample-scan's `If(i >= n, [&] { Return(); })`) on one such comparison: the copy takes it as
// false, and the per-group check tests the negated comparison.
#pragma once

#include <cstdint>
#include <vector>

#include "rocjit/compiler/ir.hpp"

namespace rocjit::targets::host {

class GuardAnalysis {
 public:
  // `def_segment[v]` is the region that computes value v, `group_level` for values computed once
  // per group (filled by the lowering's planning before any query).
  GuardAnalysis(const ir::Kernel& kernel, const std::vector<int>& def_segment, int group_level)
      : kernel_(kernel), def_segment_(def_segment), group_level_(group_level) {}

  struct Affine {
    bool ok = false;
    int64_t coefficient[3] = {0, 0, 0};  // of local ids x, y, z
  };
  // A guard: its condition and the comparisons it is a conjunction of. An exit guard's condition
  // is one comparison, which the copy takes as false.
  struct Guard {
    ir::ValueId condition;
    std::vector<const ir::Op*> terms;
    bool exit = false;
  };

  // The predicate the per-group check tests for `term` of `guard`: its own, or for an exit guard
  // the negation (lt and ge, le and gt).
  static ir::ComparePred checked_pred(const Guard& guard, const ir::Op& term);

  // `v` as an affine function of the local ids, if it is one (i32 values only).
  Affine affine(ir::ValueId v) const;

  // The region's Ifs whose conditions are guards: at its top level and nested in Ifs (not in
  // loops), like a staging loop's `If(gy >= 0 && gy < rows ...)` inside `If(c < cells)`. In the
  // unguarded copy each is taken as true (an exit guard as false) wherever it is reached.
  std::vector<Guard> group_wide_guards(const std::vector<const ir::Op*>& run) const;

  // Whether `v` is an i32 constant (then in `c`).
  bool constant_operand(ir::ValueId v, int64_t& c) const;

  // At most this many ops in a comparison's two operands, counted as trees: the analyses and
  // the per-group check walk an expression as a tree, so a shared subexpression counts once per
  // use, and a DAG such as h = h + h repeated cannot make them exponential.
  static constexpr unsigned max_guard_nodes = 48;

 private:
  bool group_level(ir::ValueId v) const { return def_segment_[v] == group_level_; }
  void find_guards(const ir::Op& op, std::vector<Guard>& out) const;
  bool guard_terms(ir::ValueId cond, std::vector<const ir::Op*>& terms) const;
  bool within(ir::ValueId v, unsigned& budget) const;
  bool rangeable(ir::ValueId v) const;
  bool depends_on(ir::ValueId v, ir::WorkItem a, ir::WorkItem b) const;

  const ir::Kernel& kernel_;
  const std::vector<int>& def_segment_;
  const int group_level_;
};

}  // namespace rocjit::targets::host
