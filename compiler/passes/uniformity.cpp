// Uniformity analysis: which values may differ between the work-items of one group.
// Sources of divergence are local/global ids and loads from memory; divergence flows through
// data (operands), through variables (stores under divergent control) and through loops that
// exit divergently (a Break under a divergent If). Solved to a fixed point.
#include "passes/uniformity.h"

#include <fmt/format.h>

#include <unordered_map>
#include <vector>

#include "rocjit/compiler/error.hpp"

namespace rocjit::passes {
namespace {

using namespace ir;

class Uniformity {
 public:
  explicit Uniformity(const Kernel& k)
      : kernel_(k), value_origin_(k.values.size(), nullptr), slot_origin_(k.slots.size(), nullptr) {}

  void run() {
    do {
      changed_ = false;
      region(kernel_.body, nullptr, nullptr);
    } while (changed_);
    find_divergent_returns(kernel_.body, nullptr);
    check(kernel_.body, nullptr, nullptr);
  }

 private:
  // Why control is divergent: the op whose condition diverges and the root cause.
  struct Control {
    const Op* condition_op;
    const Op* origin;
  };

  void mark_value(ValueId v, const Op* origin) {
    if (v && !value_origin_[v]) {
      value_origin_[v] = origin;
      changed_ = true;
    }
  }

  void mark_slot(uint32_t s, const Op* origin) {
    if (!slot_origin_[s]) {
      slot_origin_[s] = origin;
      changed_ = true;
    }
  }

  const Op* operand_origin(const Op& op) const {
    for (ValueId v : op.operands)
      if (value_origin_[v]) return value_origin_[v];
    return nullptr;
  }

  // `loop` is the innermost loop op, `control` the innermost divergent control op (or null).
  void region(const Region& r, const Op* loop, const Control* control) {
    for (const auto& p : r.ops) operation(*p, loop, control);
  }

  void operation(const Op& op, const Op* loop, const Control* control) {
    switch (op.kind) {
      case OpKind::workitem:
        if (family_members(OpFamily::workitem)[op.sub].divergent) mark_value(op.result, &op);
        return;
      case OpKind::load:
      case OpKind::atomic:
      case OpKind::wave:  // differs between the waves of a group
        mark_value(op.result, &op);
        return;
      case OpKind::uniform:  // the user's promise (checked on the CPU under ROCJIT_BOUNDS_CHECK)
        return;
      case OpKind::var_load:
        if (slot_origin_[op.ref]) mark_value(op.result, slot_origin_[op.ref]);
        return;
      case OpKind::var_store:
        if (const Op* o = value_origin_[op.operands[0]]) mark_slot(op.ref, o);
        else if (control) mark_slot(op.ref, control->origin);
        return;
      case OpKind::break_:
        if (control && loop && !loop_origin_.count(loop)) {
          loop_origin_[loop] = Control{control->condition_op, control->origin};
          changed_ = true;
        }
        return;
      case OpKind::continue_:
        // The rest of the body runs for some work-items only; the loop itself stays uniform.
        if (control && loop && !continue_origin_.count(loop)) {
          continue_origin_[loop] = Control{control->condition_op, control->origin};
          changed_ = true;
        }
        return;
      case OpKind::if_: {
        const Control* inner = control;
        Control mine{&op, value_origin_[op.operands[0]]};
        if (mine.origin) inner = &mine;
        region(op.regions[0], loop, inner);
        region(op.regions[1], loop, inner);
        return;
      }
      case OpKind::for_:
      case OpKind::while_: {
        if (op.kind == OpKind::for_) {
          if (const Op* o = operand_origin(op)) note_loop(&op, Control{&op, o});
        } else {
          region(op.regions[0], &op, control);
          const Op& cond = *op.regions[0].ops.back();
          if (const Op* o = value_origin_[cond.operands[0]]) note_loop(&op, Control{&cond, o});
        }
        const Control* inner = control;
        auto it = loop_origin_.find(&op);
        if (it != loop_origin_.end()) {
          inner = &it->second;
          if (op.kind == OpKind::for_) mark_value(op.result, it->second.origin);
        } else if (auto c = continue_origin_.find(&op); c != continue_origin_.end()) {
          inner = &c->second;
        }
        const size_t body = op.kind == OpKind::for_ ? 0 : 1;
        region(op.regions[body], &op, inner);
        if (op.kind == OpKind::while_) region(op.regions[2], &op, inner);
        return;
      }
      default:
        if (op.result)
          if (const Op* o = operand_origin(op)) mark_value(op.result, o);
        return;
    }
  }

  void note_loop(const Op* loop, Control c) {
    if (!loop_origin_.count(loop)) {
      loop_origin_[loop] = c;
      changed_ = true;
    }
  }

  // The divergent control governing `op`'s regions, given the control `control` around it.
  const Control* inner_control(const Op& op, const Control* control, Control& mine) const {
    if (op.kind == OpKind::if_ && value_origin_[op.operands[0]]) {
      mine = Control{&op, value_origin_[op.operands[0]]};
      return &mine;
    }
    if (op.kind == OpKind::for_ || op.kind == OpKind::while_) {
      if (auto it = loop_origin_.find(&op); it != loop_origin_.end()) return &it->second;
      if (auto it = continue_origin_.find(&op); it != continue_origin_.end()) return &it->second;
    }
    return control;
  }

  // Finds the Returns under divergent control and the loops around them: in such a loop every
  // sync point may be reached again after some work-items left. Returns one such Return in `r`.
  const Op* find_divergent_returns(const Region& r, const Control* control) {
    const Op* found = nullptr;
    for (const auto& p : r.ops) {
      const Op& op = *p;
      if (op.kind == OpKind::return_ && control && !found) {
        found = &op;
        return_control_[&op] = *control;
      }
      Control mine{};
      const Control* inner = inner_control(op, control, mine);
      const Op* below = nullptr;
      for (const auto& sub : op.regions)
        if (const Op* b = find_divergent_returns(sub, inner); b && !below) below = b;
      if (below && (op.kind == OpKind::for_ || op.kind == OpKind::while_)) loop_return_[&op] = below;
      if (below && !found) found = below;
    }
    return found;
  }

  // `returned`: a Return under divergent control may have run before this point.
  const Op* check(const Region& r, const Control* control, const Op* returned) const {
    for (const auto& p : r.ops) {
      const Op& op = *p;
      if (is_sync_point(op) && control) fail(op, *control);
      if (is_sync_point(op) && returned) fail_after_return(op, *returned);
      if (op.kind == OpKind::return_ && control && !returned) returned = &op;
      Control mine{};
      const Control* inner = inner_control(op, control, mine);
      const Op* inside = returned;
      if (!inside)
        if (auto it = loop_return_.find(&op); it != loop_return_.end()) inside = it->second;
      for (const auto& sub : op.regions)
        if (const Op* b = check(sub, inner, inside); b && !returned) returned = b;
    }
    return returned;
  }

  [[noreturn]] void fail_after_return(const Op& sync, const Op& ret) const {
    throw CompileError(fmt::format(
        "kernel '{}': {}{} is not reached by every work-item: some may have ended at the Return(){}, "
        "whose {}. A barrier or wave operation may follow a Return() only when "
        "every work-item of the group returns together (work-group-uniform control flow)",
        kernel_.name, op_spelling(sync), where(sync, 0), where(ret, 0), divergent_condition(return_control_.at(&ret))));
  }

  // "If condition at f:l depends on local_id(0) at f:l" (or "loop condition ...").
  static std::string divergent_condition(const Control& c) {
    const bool is_if = c.condition_op->kind == OpKind::if_;
    const ValueId condition = is_if && !c.condition_op->operands.empty() ? c.condition_op->operands[0] : 0;
    return fmt::format("{} condition{} depends on {}", is_if ? "If" : "loop", where(*c.condition_op, condition),
                       describe(*c.origin));
  }

  // " at file:line" where the op has a source location; IR parsed from .rjir without loc(...) has
  // none, so name the value instead (" (%7)"), which the reader finds in the text.
  static std::string where(const Op& op, ValueId value) {
    if (!op.loc.file.empty() || op.loc.line != 0) return fmt::format(" at {}", op.loc.str());
    if (value != 0) return fmt::format(" (%{})", value);
    return {};
  }

  static std::string describe(const Op& origin) {
    switch (origin.kind) {
      case OpKind::workitem:
        return fmt::format("{}({}){}", workitem_name(origin.workitem()), origin.dim, where(origin, origin.result));
      case OpKind::atomic: return fmt::format("an atomic's result{}", where(origin, origin.result));
      case OpKind::wave:
        return fmt::format("a wave operation's result ({}){}", op_spelling(origin), where(origin, origin.result));
      default: return fmt::format("a value loaded from memory{}", where(origin, origin.result));
    }
  }

  [[noreturn]] void fail(const Op& barrier, const Control& c) const {
    throw CompileError(fmt::format(
        "kernel '{}': {}{} is not reached by every work-item: the {}. "
        "Barriers must be in work-group-uniform control flow: conditions built from scalar arguments, "
        "array shapes, group ids, constants and uniform loop counters",
        kernel_.name, op_spelling(barrier), where(barrier, 0), divergent_condition(c)));
  }

  const Kernel& kernel_;
  std::vector<const Op*> value_origin_;
  std::vector<const Op*> slot_origin_;
  std::unordered_map<const Op*, Control> loop_origin_;
  std::unordered_map<const Op*, Control> continue_origin_;  // loops with a Continue under divergent control
  std::unordered_map<const Op*, Control> return_control_;   // Returns under divergent control
  std::unordered_map<const Op*, const Op*> loop_return_;    // loops containing one: that Return
  bool changed_ = false;
};

}  // namespace

void check_barrier_uniformity(const ir::Kernel& kernel) { Uniformity(kernel).run(); }

}  // namespace rocjit::passes
