#include "targets/host/group_guards.h"

#include <algorithm>
#include <climits>

namespace rocjit::targets::host {

using ir::OpKind;

GuardAnalysis::Affine GuardAnalysis::affine(ir::ValueId v) const {
  Affine out;
  const ir::Op* def = kernel_.values[v].def;
  if (!def || def->type != ir::Type::i32) return out;
  if (group_level(v) || def->kind == OpKind::constant || def->kind == OpKind::shape) {
    out.ok = true;
    return out;
  }
  if (def->kind == OpKind::workitem) {
    const ir::WorkItem w = def->workitem();
    out.ok = w != ir::WorkItem::lane_id;
    if (w == ir::WorkItem::local_id || w == ir::WorkItem::global_id) out.coefficient[def->dim()] = 1;
    return out;
  }
  if (def->kind == OpKind::unary && def->unary_op() == ir::UnaryOp::neg) {
    out = affine(def->operands[0]);
    for (int64_t& c : out.coefficient) c = -c;
    return out;
  }
  if (def->kind != OpKind::binary) return out;
  const Affine a = affine(def->operands[0]), b = affine(def->operands[1]);
  if (!a.ok || !b.ok) return out;
  auto uniform = [](const Affine& x) { return !x.coefficient[0] && !x.coefficient[1] && !x.coefficient[2]; };
  int64_t c = 0;
  switch (def->binary_op()) {
    case ir::BinaryOp::add:
    case ir::BinaryOp::sub:
      out.ok = true;
      for (int d = 0; d < 3; ++d)
        out.coefficient[d] = a.coefficient[d] + (def->binary_op() == ir::BinaryOp::add ? 1 : -1) * b.coefficient[d];
      return out;
    case ir::BinaryOp::mul:
      if (uniform(a) && uniform(b)) return out.ok = true, out;
      if (uniform(b) && constant_operand(def->operands[1], c)) out = a;
      else if (uniform(a) && constant_operand(def->operands[0], c)) out = b;
      else return out;
      if (c < -(1 << 20) || c > (1 << 20)) return Affine{};
      for (int64_t& k : out.coefficient) {
        k *= c;
        if (k < INT32_MIN || k > INT32_MAX) return Affine{};
      }
      return out;
    case ir::BinaryOp::min:
    case ir::BinaryOp::max:  // of uniform values (reverse's `min(BLOCK, n - base)`)
      out.ok = uniform(a) && uniform(b);
      return out;
    case ir::BinaryOp::div: case ir::BinaryOp::rem: case ir::BinaryOp::and_: case ir::BinaryOp::or_:
    case ir::BinaryOp::xor_: case ir::BinaryOp::shl: case ir::BinaryOp::shr:
      return out;  // not affine
  }
  return out;
}

std::vector<GuardAnalysis::Guard> GuardAnalysis::group_wide_guards(const std::vector<const ir::Op*>& run) const {
  std::vector<Guard> out;
  for (const ir::Op* op : run) find_guards(*op, out);
  return out;
}

ir::ComparePred GuardAnalysis::checked_pred(const Guard& guard, const ir::Op& term) {
  const ir::ComparePred p = term.pred();
  if (!guard.exit) return p;
  switch (p) {
    case ir::ComparePred::lt: return ir::ComparePred::ge;
    case ir::ComparePred::le: return ir::ComparePred::gt;
    case ir::ComparePred::gt: return ir::ComparePred::le;
    case ir::ComparePred::ge: return ir::ComparePred::lt;
    case ir::ComparePred::eq: case ir::ComparePred::ne: break;  // guard_terms takes neither
  }
  return p;
}

void GuardAnalysis::find_guards(const ir::Op& op, std::vector<Guard>& out) const {
  if (op.kind != OpKind::if_) return;
  Guard g{op.operands[0], {}};
  // An If that only returns, on one comparison: an exit guard (the negation of a conjunction
  // would be a disjunction, which the check does not take).
  const ir::Op* cond = kernel_.values[g.condition].def;
  g.exit = op.regions[0].ops.size() == 1 && op.regions[0].ops[0]->kind == OpKind::return_ &&
           op.regions[1].ops.empty() && cond && cond->kind == OpKind::compare;
  // A guard without a global or group id in it, like `local_id < s` in a tree reduction, passes
  // or fails the same way in every group: a copy for groups where it holds would rarely run and
  // only cost compile time.
  auto positional = [&](ir::ValueId v) { return depends_on(v, ir::WorkItem::global_id, ir::WorkItem::group_id); };
  if (guard_terms(g.condition, g.terms) &&
      std::any_of(g.terms.begin(), g.terms.end(),
                  [&](const ir::Op* cmp) { return positional(cmp->operands[0]) || positional(cmp->operands[1]); }))
    out.push_back(std::move(g));
  for (const ir::Region& r : op.regions)
    for (const auto& inner : r.ops) find_guards(*inner, out);
}

// Whether `cond` is a conjunction of comparisons of bounded i32 values (appended to `terms`).
bool GuardAnalysis::guard_terms(ir::ValueId cond, std::vector<const ir::Op*>& terms) const {
  const ir::Op* def = kernel_.values[cond].def;
  if (!def) return false;
  if (def->kind == OpKind::binary && def->binary_op() == ir::BinaryOp::and_ && def->type == ir::Type::i1)
    return guard_terms(def->operands[0], terms) && guard_terms(def->operands[1], terms);
  if (def->kind != OpKind::compare) return false;
  const ir::ComparePred p = def->pred();
  if (p != ir::ComparePred::lt && p != ir::ComparePred::le && p != ir::ComparePred::gt && p != ir::ComparePred::ge)
    return false;
  unsigned budget = max_guard_nodes;
  if (!within(def->operands[0], budget) || !within(def->operands[1], budget)) return false;
  if (!rangeable(def->operands[0]) || !rangeable(def->operands[1])) return false;
  // Uniform comparisons (no local or global id in them): LLVM hoists them out of the loops.
  auto varies = [&](ir::ValueId v) { return depends_on(v, ir::WorkItem::local_id, ir::WorkItem::global_id); };
  if (!varies(def->operands[0]) && !varies(def->operands[1])) return false;
  terms.push_back(def);
  return true;
}

// Whether `v`'s expression, as a tree down to group-level values and leaves, has at most
// `budget` ops (decremented by those it has).
bool GuardAnalysis::within(ir::ValueId v, unsigned& budget) const {
  if (budget == 0) return false;
  --budget;
  const ir::Op* def = kernel_.values[v].def;
  if (!def || group_level(v) || (def->kind != OpKind::binary && def->kind != OpKind::unary)) return true;
  for (ir::ValueId operand : def->operands)
    if (!within(operand, budget)) return false;
  return true;
}

// Whether `v` is an i32 the per-group check can bound: an affine value, or add, sub, min, max,
// neg of such values, a product with a constant, or a quotient or remainder by a positive
// constant (`c / 18`, `c % 18` of a staged tile's cell number).
bool GuardAnalysis::rangeable(ir::ValueId v) const {
  if (affine(v).ok) return true;
  const ir::Op* def = kernel_.values[v].def;
  if (!def || def->type != ir::Type::i32) return false;
  if (def->kind == OpKind::unary) return def->unary_op() == ir::UnaryOp::neg && rangeable(def->operands[0]);
  if (def->kind != OpKind::binary) return false;
  int64_t c = 0;
  switch (def->binary_op()) {
    case ir::BinaryOp::add:
    case ir::BinaryOp::sub:
    case ir::BinaryOp::min:
    case ir::BinaryOp::max: return rangeable(def->operands[0]) && rangeable(def->operands[1]);
    case ir::BinaryOp::mul:
      return (constant_operand(def->operands[1], c) && rangeable(def->operands[0])) ||
             (constant_operand(def->operands[0], c) && rangeable(def->operands[1]));
    case ir::BinaryOp::div:
    case ir::BinaryOp::rem: return constant_operand(def->operands[1], c) && c > 0 && rangeable(def->operands[0]);
    case ir::BinaryOp::and_: case ir::BinaryOp::or_: case ir::BinaryOp::xor_: case ir::BinaryOp::shl:
    case ir::BinaryOp::shr:
      return false;
  }
  return false;
}

bool GuardAnalysis::constant_operand(ir::ValueId v, int64_t& c) const {
  const ir::Op* d = kernel_.values[v].def;
  if (!d || d->kind != OpKind::constant) return false;
  c = static_cast<int32_t>(d->int_value());
  return true;
}

// Whether `v` (not computed at group level) depends on work-item id `a` or `b`.
bool GuardAnalysis::depends_on(ir::ValueId v, ir::WorkItem a, ir::WorkItem b) const {
  const ir::Op* def = kernel_.values[v].def;
  if (!def || group_level(v)) return false;
  if (def->kind == OpKind::workitem) return def->workitem() == a || def->workitem() == b;
  if (def->kind != OpKind::binary && def->kind != OpKind::unary) return false;
  for (ir::ValueId operand : def->operands)
    if (depends_on(operand, a, b)) return true;
  return false;
}

}  // namespace rocjit::targets::host
