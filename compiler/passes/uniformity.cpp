// Uniformity analysis: which values may differ between the work-items of one group.
// Sources of divergence are local/global ids and loads from memory; divergence flows through
// data (operands), through variables (stores under divergent control) and through loops that
// exit divergently (a Break under a divergent If). Solved to a fixed point.
#include "passes/uniformity.h"

#include <fmt/format.h>

#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "rocjit/compiler/error.hpp"

namespace rocjit::passes {
namespace {

using namespace ir;

// The analysis runs at two levels. `group`: may a value differ between the work-items of a
// group (barriers need group-uniform control). `wave`: may it differ between the lanes of one
// wavefront (wave operations and wavebarriers need only wave-uniform control): work-item ids and
// memory still diverge, but a reduction's or vote's result is the same for the whole wave, and
// local_id(0) / wave_size() is wave-uniform where the group's rows are whole waves (a launch
// check, see UniformityInfo::wave_rows).
enum class Level { group, wave };

class Uniformity {
 public:
  Uniformity(const Kernel& k, Level level)
      : kernel_(k),
        level_(level),
        value_origin_(k.values.size(), nullptr),
        slot_origin_(k.slots.size(), nullptr),
        value_rows_(k.values.size(), nullptr),
        slot_rows_(k.slots.size(), nullptr) {}

  void analyze() {
    do {
      changed_ = false;
      region(kernel_.body, nullptr, nullptr, nullptr);
    } while (changed_);
    find_divergent_returns(kernel_.body, nullptr);
  }

  // Group level: barriers in divergent control, and every sync point after a divergent Return.
  // Wave level: wave-scope sync points in wave-divergent control.
  void check() { check(kernel_.body, nullptr, nullptr, nullptr); }

  // If/For/While ops whose branches or trip counts may differ between work-items.
  std::unordered_set<const Op*> divergent_control() const {
    std::unordered_set<const Op*> out;
    walk(kernel_.body, [&](const Op& op) {
      Control mine{};
      if (inner_control(op, nullptr, mine)) out.insert(&op);
    });
    return out;
  }

  const Op* rows_sync() const { return rows_sync_; }
  const Op* rows_source() const { return rows_source_; }

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

  // Wave level: `v` is wave-uniform only because `source` (local_id(0) / wave_size()) is.
  void mark_rows(ValueId v, const Op* source) {
    if (v && source && !value_rows_[v]) {
      value_rows_[v] = source;
      changed_ = true;
    }
  }

  const Op* operand_origin(const Op& op) const {
    for (ValueId v : op.operands)
      if (value_origin_[v]) return value_origin_[v];
    return nullptr;
  }

  const Op* operand_rows(const Op& op) const {
    for (ValueId v : op.operands)
      if (value_rows_[v]) return value_rows_[v];
    return nullptr;
  }

  const Op* def(ValueId v) const { return kernel_.values[v].def; }
  bool is_workitem(ValueId v, WorkItem w) const {
    const Op* d = def(v);
    return d && d->kind == OpKind::workitem && d->workitem() == w;
  }

  // local_id(0) / wave_size(), or / (wave_size() * c) for a positive constant c: consecutive
  // work-items of one row share it, so it is wave-uniform when rows are made of whole waves.
  bool is_wave_row_index(const Op& op) const {
    if (op.kind != OpKind::binary || op.binary_op() != BinaryOp::div) return false;
    if (!is_workitem(op.operands[0], WorkItem::local_id) || def(op.operands[0])->dim() != 0) return false;
    ValueId d = op.operands[1];
    if (is_workitem(d, WorkItem::wave_size)) return true;
    const Op* m = def(d);
    if (!m || m->kind != OpKind::binary || m->binary_op() != BinaryOp::mul) return false;
    for (int i = 0; i < 2; ++i) {
      const Op* c = def(m->operands[1 - i]);
      if (is_workitem(m->operands[i], WorkItem::wave_size) && c && c->kind == OpKind::constant && c->int_value() > 0)
        return true;
    }
    return false;
  }

  // `loop` is the innermost loop op, `control` the innermost divergent control op (or null),
  // `rows` the innermost wave-uniform control that relies on local_id(0) / wave_size().
  void region(const Region& r, const Op* loop, const Control* control, const Op* rows) {
    for (const auto& p : r.ops) operation(*p, loop, control, rows);
  }

  void operation(const Op& op, const Op* loop, const Control* control, const Op* rows) {
    const bool wave = level_ == Level::wave;
    switch (op.kind) {
      case OpKind::workitem:
        if (family_members(OpFamily::workitem)[op.member()].divergent) mark_value(op.result, &op);
        return;
      case OpKind::load:
      case OpKind::atomic:
        mark_value(op.result, &op);
        return;
      case OpKind::wave:
        // Group level: differs between the waves of a group. Wave level: reductions, votes and
        // broadcasts give the whole wave one value; shuffles and scans differ between lanes.
        // A broadcast's lane operand must itself be wave-uniform for that.
        if (!wave || family_members(OpFamily::wave)[op.member()].divergent) mark_value(op.result, &op);
        else if (op.operands.size() > 1 && value_origin_[op.operands[1]]) mark_value(op.result, value_origin_[op.operands[1]]);
        else mark_rows(op.result, op.operands.size() > 1 && value_rows_[op.operands[1]] ? value_rows_[op.operands[1]] : rows);
        return;
      case OpKind::mma:  // each lane holds its own elements of the result
        mark_value(op.result, &op);
        return;
      case OpKind::uniform:  // the user's promise (checked under ROCJIT_BOUNDS_CHECK)
        return;
      case OpKind::var_load:
        if (slot_origin_[op.slot()]) mark_value(op.result, slot_origin_[op.slot()]);
        mark_rows(op.result, slot_rows_[op.slot()]);
        return;
      case OpKind::var_store:
        if (const Op* o = value_origin_[op.operands[0]]) mark_slot(op.slot(), o);
        else if (control) mark_slot(op.slot(), control->origin);
        if (const Op* s = value_rows_[op.operands[0]] ? value_rows_[op.operands[0]] : rows; s && !slot_rows_[op.slot()]) {
          slot_rows_[op.slot()] = s;
          changed_ = true;
        }
        return;
      case OpKind::break_:
        if (control && loop && !loop_origin_.count(loop)) {
          loop_origin_[loop] = Control{control->condition_op, control->origin};
          changed_ = true;
        }
        if (rows && loop) note_rows(loop, rows);
        return;
      case OpKind::continue_:
        // The rest of the body runs for some work-items only; the loop itself stays uniform.
        if (control && loop && !continue_origin_.count(loop)) {
          continue_origin_[loop] = Control{control->condition_op, control->origin};
          changed_ = true;
        }
        if (rows && loop) note_rows(loop, rows);
        return;
      case OpKind::if_: {
        const Control* inner = control;
        Control mine{&op, value_origin_[op.operands[0]]};
        if (mine.origin) inner = &mine;
        const Op* sub_rows = inner_rows(op, rows);
        region(op.regions[0], loop, inner, sub_rows);
        region(op.regions[1], loop, inner, sub_rows);
        return;
      }
      case OpKind::for_:
      case OpKind::while_: {
        if (op.kind == OpKind::for_) {
          if (const Op* o = operand_origin(op)) note_loop(&op, Control{&op, o});
          if (const Op* s = operand_rows(op)) note_rows(&op, s);
        } else {
          region(op.regions[0], &op, control, inner_rows(op, rows));
          const Op& cond = *op.regions[0].ops.back();
          if (const Op* o = value_origin_[cond.operands[0]]) note_loop(&op, Control{&cond, o});
          if (const Op* s = value_rows_[cond.operands[0]]) note_rows(&op, s);
        }
        const Control* inner = control;
        auto it = loop_origin_.find(&op);
        if (it != loop_origin_.end()) {
          inner = &it->second;
          if (op.kind == OpKind::for_) mark_value(op.result, it->second.origin);
        } else if (auto c = continue_origin_.find(&op); c != continue_origin_.end()) {
          inner = &c->second;
        }
        const Op* sub_rows = inner_rows(op, rows);
        if (op.kind == OpKind::for_) mark_rows(op.result, sub_rows);
        const size_t body = op.kind == OpKind::for_ ? 0 : 1;
        region(op.regions[body], &op, inner, sub_rows);
        if (op.kind == OpKind::while_) region(op.regions[2], &op, inner, sub_rows);
        return;
      }
      // Values computed from their operands: divergent when an operand is.
      case OpKind::constant: case OpKind::binary: case OpKind::unary: case OpKind::compare: case OpKind::select:
      case OpKind::cast: case OpKind::bitcast: case OpKind::math: case OpKind::shape: case OpKind::make_vector:
      case OpKind::extract:
        if (const Op* o = operand_origin(op)) {
          if (wave && is_wave_row_index(op)) mark_rows(op.result, &op);
          else mark_value(op.result, o);
        } else {
          mark_rows(op.result, operand_rows(op));
        }
        return;
      // No result; synchronisation points are checked against their control in check().
      case OpKind::store: case OpKind::barrier: case OpKind::wavebarrier: case OpKind::fence: case OpKind::condition:
      case OpKind::return_: case OpKind::print: case OpKind::assert_:
        return;
    }
  }

  void note_loop(const Op* loop, Control c) {
    if (!loop_origin_.count(loop)) {
      loop_origin_[loop] = c;
      changed_ = true;
    }
  }

  void note_rows(const Op* loop, const Op* source) {
    if (!loop_rows_.count(loop)) {
      loop_rows_[loop] = source;
      changed_ = true;
    }
  }

  const Op* loop_rows(const Op* loop) const {
    auto it = loop_rows_.find(loop);
    return it == loop_rows_.end() ? nullptr : it->second;
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

  const Op* inner_rows(const Op& op, const Op* rows) const {
    if (rows) return rows;
    if (op.kind == OpKind::if_) return value_rows_[op.operands[0]];
    if (op.kind == OpKind::for_ || op.kind == OpKind::while_) return loop_rows(&op);
    return nullptr;
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
  const Op* check(const Region& r, const Control* control, const Op* returned, const Op* rows) {
    const bool wave = level_ == Level::wave;
    for (const auto& p : r.ops) {
      const Op& op = *p;
      if (is_sync_point(op)) {
        const bool wave_scope = op_info(op.kind).sync == SyncScope::wavefront;
        if (wave == wave_scope && control) fail(op, *control);
        if (!wave && returned) fail_after_return(op, *returned);
        if (wave && rows && !rows_sync_) {
          rows_sync_ = &op;
          rows_source_ = rows;
        }
      }
      if (op.kind == OpKind::return_ && control && !returned) returned = &op;
      Control mine{};
      const Control* inner = inner_control(op, control, mine);
      const Op* inside = returned;
      if (!inside)
        if (auto it = loop_return_.find(&op); it != loop_return_.end()) inside = it->second;
      const Op* sub_rows = inner_rows(op, rows);
      for (const auto& sub : op.regions)
        if (const Op* b = check(sub, inner, inside, sub_rows); b && !returned) returned = b;
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
        return fmt::format("{}({}){}", workitem_name(origin.workitem()), origin.dim(), where(origin, origin.result));
      case OpKind::atomic: return fmt::format("an atomic's result{}", where(origin, origin.result));
      case OpKind::wave:
        return fmt::format("a wave operation's result ({}){}", op_spelling(origin), where(origin, origin.result));
      case OpKind::mma: return fmt::format("an mma's result{}", where(origin, origin.result));
      case OpKind::load: return fmt::format("a value loaded from memory{}", where(origin, origin.result));
      // Only the ops above start a divergent value (operation() marks them as origins).
      case OpKind::constant: case OpKind::binary: case OpKind::unary: case OpKind::compare: case OpKind::select:
      case OpKind::cast: case OpKind::bitcast: case OpKind::math: case OpKind::shape: case OpKind::store:
      case OpKind::var_load: case OpKind::var_store: case OpKind::barrier: case OpKind::wavebarrier:
      case OpKind::fence: case OpKind::uniform: case OpKind::make_vector: case OpKind::extract: case OpKind::if_:
      case OpKind::for_: case OpKind::while_: case OpKind::condition: case OpKind::break_: case OpKind::continue_:
      case OpKind::return_: case OpKind::print: case OpKind::assert_:
        break;
    }
    return fmt::format("{}{}", op_spelling(origin), where(origin, origin.result));
  }

  // When the condition comes from memory, the program may know what the analysis cannot: that
  // every work-item reads the same value. uniform(x) says so (and is checked when bounds checking).
  static std::string loaded_value_hint(const Control& c) {
    if (c.origin->kind != OpKind::load && c.origin->kind != OpKind::atomic) return {};
    return ". If every work-item of the group gets the same value there (a count or flag all of them "
           "read), say so with uniform(value) on it; launches with bounds checking verify the promise";
  }

  [[noreturn]] void fail(const Op& sync, const Control& c) const {
    if (level_ == Level::wave)
      throw CompileError(fmt::format(
          "kernel '{}': {}{} is not reached by every lane of its wavefront: the {}. "
          "Wave operations and wavebarriers must be in wavefront-uniform control flow: conditions that are "
          "work-group uniform, results of wave reductions and votes, and local_id(0) / wave_size(){}",
          kernel_.name, op_spelling(sync), where(sync, 0), divergent_condition(c), loaded_value_hint(c)));
    throw CompileError(fmt::format(
        "kernel '{}': {}{} is not reached by every work-item: the {}. "
        "Barriers must be in work-group-uniform control flow: conditions built from scalar arguments, "
        "array shapes, group ids, constants and uniform loop counters{}",
        kernel_.name, op_spelling(sync), where(sync, 0), divergent_condition(c), loaded_value_hint(c)));
  }

  const Kernel& kernel_;
  Level level_;
  std::vector<const Op*> value_origin_;
  std::vector<const Op*> slot_origin_;
  std::vector<const Op*> value_rows_;  // wave level: uniform thanks to local_id(0) / wave_size()
  std::vector<const Op*> slot_rows_;
  std::unordered_map<const Op*, Control> loop_origin_;
  std::unordered_map<const Op*, Control> continue_origin_;  // loops with a Continue under divergent control
  std::unordered_map<const Op*, const Op*> loop_rows_;      // wave level: loops whose trip count relies on rows
  std::unordered_map<const Op*, Control> return_control_;   // Returns under divergent control
  std::unordered_map<const Op*, const Op*> loop_return_;    // loops containing one: that Return
  const Op* rows_sync_ = nullptr;    // the first wave-scope sync point in control relying on rows
  const Op* rows_source_ = nullptr;  // and the local_id(0) / wave_size() it relies on
  bool changed_ = false;
};

}  // namespace

UniformityInfo analyze_uniformity(const ir::Kernel& kernel) {
  Uniformity group(kernel, Level::group);
  group.analyze();
  group.check();
  Uniformity wave(kernel, Level::wave);
  wave.analyze();
  wave.check();
  UniformityInfo info;
  info.divergent_control = group.divergent_control();
  if (wave.rows_sync()) info.wave_rows = ir::WaveRowsAssumption{wave.rows_sync(), wave.rows_source()};
  return info;
}

void check_barrier_uniformity(const ir::Kernel& kernel) { analyze_uniformity(kernel); }

std::unordered_set<const ir::Op*> group_reached_uniform_ops(const ir::Kernel& kernel) {
  const auto divergent = analyze_uniformity(kernel).divergent_control;
  std::unordered_set<const ir::Op*> out;
  bool returned = false;
  auto holds_return = [](const ir::Op& op) {
    bool found = false;
    for (const auto& sub : op.regions) ir::walk(sub, [&](const ir::Op& o) { found |= o.kind == ir::OpKind::return_; });
    return found;
  };
  std::function<void(const ir::Region&, bool)> visit = [&](const ir::Region& r, bool together) {
    for (const auto& p : r.ops) {
      if (p->kind == ir::OpKind::uniform && together && !returned) out.insert(p.get());
      if (p->kind == ir::OpKind::return_) returned = true;
      // A loop holding a Return may run its next iterations without the work-items that left.
      const bool loop_returns = (p->kind == ir::OpKind::for_ || p->kind == ir::OpKind::while_) && holds_return(*p);
      const bool inner = together && !divergent.count(p.get()) && !loop_returns;
      for (const auto& sub : p->regions) visit(sub, inner);
    }
  };
  visit(kernel.body, true);
  return out;
}

}  // namespace rocjit::passes

namespace rocjit::ir {
std::optional<WaveRowsAssumption> wave_rows_assumption(const Kernel& kernel) {
  return passes::analyze_uniformity(kernel).wave_rows;
}
}  // namespace rocjit::ir
