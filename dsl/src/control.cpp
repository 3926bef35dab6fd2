// Recording of structured control flow and barriers.
#include "rocjit/dsl/control.hpp"

#include <fmt/format.h>

#include "rocjit/dsl/array.hpp"

namespace rocjit::dsl {
namespace detail {

ir::Op& open_if(const Operand& cond, const std::source_location& loc) {
  Trace& t = current(loc);
  Value c = to_bool(cond);
  ir::Op op(ir::OpKind::if_);
  op.operands = {c.id()};
  op.loc = to_loc(loc);
  (void)t;
  return append(std::move(op));
}

namespace {
int64_t unroll_count(const LoopOptions& options, const std::source_location& loc) {
  if (options.unroll < 0 || options.unroll > ir::max_unroll)
    fail(loc, fmt::format("loop unroll count {} is outside 0..{} (0 lets LLVM decide, 1 keeps the loop rolled)",
                          options.unroll, ir::max_unroll));
  return options.unroll;
}
}  // namespace

ir::Op& open_for(const Operand& begin, const Operand& end, const Operand& step, const std::source_location& loc,
                 Value& induction, const LoopOptions& options) {
  Trace& t = current(loc);
  ir::Type ty = common_type(begin, end);
  if (ty == ir::Type::i1) ty = ir::Type::i32;
  if (!ir::is_integer(ty))
    fail(loc, fmt::format("For bounds must be integers, got {}", ir::type_name(ty)));
  Value b = coerce(begin, ty, true, "the For start");
  Value e = coerce(end, ty, true, "the For end");
  Value s = coerce(step, ty, true, "the For step");
  if (step.is_literal() && step.int_literal() == 0 && step.uint_literal() == 0)
    fail(loc, "For step is 0; the loop would never end");
  ir::Op op(ir::OpKind::for_, ir::LoopAttrs{unroll_count(options, loc)});
  op.type = ty;
  op.operands = {b.id(), e.id(), s.id()};
  op.loc = to_loc(loc);
  op.result = t.kernel.new_value(ty);
  ir::Op& placed = append(std::move(op));
  t.kernel.values[placed.result].def = &placed;
  induction = Value(placed.result, ty, t.serial);
  return placed;
}

ir::Op& open_while(const std::source_location& loc, const LoopOptions& options) {
  current(loc);
  ir::Op op(ir::OpKind::while_, ir::LoopAttrs{unroll_count(options, loc)});
  op.loc = to_loc(loc);
  return append(std::move(op));
}

void close_while_condition(ir::Op& loop, const Operand& cond) {
  Value c = to_bool(cond);
  ir::Op op(ir::OpKind::condition);
  op.operands = {c.id()};
  op.loc = loop.loc;
  append(std::move(op));
}

Counter declare_counter(const Operand& init, const std::source_location& loc) {
  Trace& t = current(loc);
  ir::Type type = init.type();
  if (type == ir::Type::i1) type = ir::Type::i32;
  Counter c{declare_slot(type, loc), type, t.serial};
  store_counter(c, init, loc);
  return c;
}

Value load_counter(const Counter& c, const std::source_location& loc) { return load_slot(c.slot, c.type, c.trace, loc); }

void store_counter(const Counter& c, const Operand& v, const std::source_location& loc) {
  (void)loc;
  store_slot(c.slot, c.type, c.trace, v);
}

LoopDepth::LoopDepth() { ++current_or_null()->loop_depth; }
LoopDepth::~LoopDepth() { --current_or_null()->loop_depth; }

namespace {
void emit_plain(ir::Op op, const std::source_location& loc) {
  current(loc);
  op.loc = to_loc(loc);
  append(std::move(op));
}
}  // namespace

}  // namespace detail

void Break(std::source_location loc) {
  detail::Trace& t = detail::current(loc);
  if (t.loop_depth == 0) detail::fail(loc, "Break() outside a loop; it must be inside a For or While body");
  detail::emit_plain(ir::Op(ir::OpKind::break_), loc);
}

void Continue(std::source_location loc) {
  detail::Trace& t = detail::current(loc);
  if (t.loop_depth == 0) detail::fail(loc, "Continue() outside a loop; it must be inside a For or While body");
  detail::emit_plain(ir::Op(ir::OpKind::continue_), loc);
}

void Return(std::source_location loc) { detail::emit_plain(ir::Op(ir::OpKind::return_), loc); }

void barrier(unsigned flags, std::source_location loc) {
  detail::current(loc);
  if (flags & ~(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE))
    detail::fail(loc, fmt::format("barrier flags {:#x} are not CLK_LOCAL_MEM_FENCE and/or CLK_GLOBAL_MEM_FENCE", flags));
  detail::emit_plain(ir::Op(ir::OpKind::barrier, ir::BarrierAttrs{static_cast<uint8_t>(flags)}), loc);
}

void syncthreads(std::source_location loc) { barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, loc); }

void wavebarrier(std::source_location loc) { detail::emit_plain(ir::Op(ir::OpKind::wavebarrier), loc); }

}  // namespace rocjit::dsl
