// Work-item queries, math functions and atomics.
#include "rocjit/dsl/builtins.hpp"

#include <fmt/format.h>

#include <limits>
#include <string_view>
#include "rocjit/compiler/device_print.hpp"
#include "rocjit/dsl/debug.hpp"

namespace rocjit::dsl {
namespace {

Int workitem(ir::WorkItem w, int dim, const std::source_location& loc) {
  detail::current(loc);
  if (dim < 0 || dim > 2)
    detail::fail(loc, fmt::format("{}({}): the dimension must be 0, 1 or 2", ir::workitem_name(w), dim));
  return Int(detail::emit(ir::OpKind::workitem, ir::Type::i32, {}, loc, ir::WorkItemAttrs{w, static_cast<uint8_t>(dim)}),
             loc);
}

// A wave operation on a number `v` (literals take their own type) and an optional i32 lane.
Value wave_op(ir::WaveOp w, const Operand& v, const Operand* lane, const std::source_location& loc) {
  detail::current(loc);
  ir::Type t = v.type();
  const std::string_view name = ir::wave_op_name(w);
  if (t == ir::Type::i1 || !(ir::is_integer(t) || ir::is_float(t)))
    detail::fail(loc, fmt::format("wave::{}() takes a number, got {}", name, ir::type_name(t)));
  if ((w == ir::WaveOp::reduce_and || w == ir::WaveOp::reduce_or || w == ir::WaveOp::reduce_xor) && ir::is_float(t))
    detail::fail(loc, fmt::format("wave::{}() needs an integer, got {}", name, ir::type_name(t)));
  std::vector<ir::ValueId> ids{detail::coerce(v, t, false, "a wave operation's value").id()};
  if (lane) {
    if (!lane->is_literal() && !ir::is_integer(lane->type()))
      detail::fail(loc, fmt::format("wave::{}(): the lane must be an integer, got {}", name, ir::type_name(lane->type())));
    ids.push_back(detail::coerce(*lane, ir::Type::i32, true, "a wave operation's lane").id());
  }
  return detail::emit(ir::OpKind::wave, t, std::move(ids), loc, ir::WaveAttrs{w});
}

Value wave_vote(ir::WaveOp w, ir::Type result, const Operand& pred, const std::source_location& loc) {
  detail::current(loc);
  return detail::emit(ir::OpKind::wave, result, {detail::to_bool(pred).id()}, loc, ir::WaveAttrs{w});
}

// Operands of a float math function, converted to their common float type: integer values are
// an error (write cast<float>), literals adapt.
std::vector<Value> math_operands(std::string_view name, std::initializer_list<const Operand*> args) {
  const Operand& first = **args.begin();
  ir::Type t = ir::Type::none;
  for (const Operand* a : args) {
    if (a->is_literal()) continue;
    t = t == ir::Type::none ? a->type() : detail::common_type(Operand(detail::constant(t, 0, 0, a->loc()), a->loc()), *a);
  }
  if (t == ir::Type::none) {  // all literals: use the widest literal type
    t = ir::Type::f32;
    for (const Operand* a : args)
      if (a->type() == ir::Type::f64) t = ir::Type::f64;
  }
  if (!ir::is_float(t))
    detail::fail(first.loc(), fmt::format("{}() takes f32 or f64, got {}; write cast<float>(...) or "
                                          "cast<double>(...) first",
                                          name, ir::type_name(t)));
  std::vector<Value> values;
  for (const Operand* a : args) values.push_back(detail::coerce(*a, t, false, "a math argument"));
  return values;
}

Value math(ir::MathFn fn, std::initializer_list<const Operand*> args) {
  std::vector<Value> values = math_operands(ir::math_fn_name(fn), args);
  std::vector<ir::ValueId> ids;
  for (const Value& v : values) ids.push_back(v.id());
  return detail::emit(ir::OpKind::math, values.front().type(), std::move(ids), (*args.begin())->loc(),
                      ir::MathAttrs{fn});
}

// An atomic on element `index` of `a`: `values` are its value operands (none for load), the
// location is the first operand's. Returns the old (loaded) value; nothing for store.
Value atomic_op(ir::AtomicOp op, const ArrayRef& a, std::vector<const Operand*> index,
                std::vector<const Operand*> values, memory_order order, memory_scope scope) {
  if (index.empty() && values.empty())  // atomic::load(a, {}): no operand carries the caller's location
    detail::fail(std::source_location::current(),
                 fmt::format("atomic {}: the index list is empty", ir::atomic_op_name(op)));
  const Operand& first = values.empty() ? *index.front() : *values.front();
  const std::source_location& loc = first.loc();
  detail::Trace& t = detail::current(loc);
  if (index.empty()) detail::fail(loc, fmt::format("atomic {}: the index list is empty", ir::atomic_op_name(op)));
  if (index.size() > 3)
    detail::fail(loc, fmt::format("atomic {}: {} indices; arrays have at most 3 dimensions", ir::atomic_op_name(op),
                                  index.size()));
  ElementRef e = index.size() == 1   ? a.element({index[0]})
                 : index.size() == 2 ? a.element({index[0], index[1]})
                                     : a.element({index[0], index[1], index[2]});
  const ir::Memory& m = t.kernel.memories.at(a.memory());
  if (m.space == ir::MemorySpace::local)
    detail::fail(loc, fmt::format("atomic {} on local array '{}': atomics work on global and shared arrays",
                                  ir::atomic_op_name(op), m.name));
  if (m.element.bits < 32)
    detail::fail(loc, fmt::format("atomic {} on array '{}' of {}: atomics work on 32- and 64-bit elements",
                                  ir::atomic_op_name(op), m.name, ir::type_name(m.element)));
  bool bitwise = op == ir::AtomicOp::and_ || op == ir::AtomicOp::or_ || op == ir::AtomicOp::xor_;
  if ((bitwise || op == ir::AtomicOp::compare_exchange || op == ir::AtomicOp::sub) && ir::is_float(m.element))
    detail::fail(loc, fmt::format("atomic {} needs an integer array; '{}' holds {}", ir::atomic_op_name(op), m.name,
                                  ir::type_name(m.element)));
  std::vector<ir::ValueId> ids = e.indices();
  std::string context = fmt::format("array '{}'", m.name);
  for (const Operand* v : values) ids.push_back(detail::coerce(*v, m.element, false, context.c_str()).id());
  ir::Op o(ir::OpKind::atomic, ir::AtomicAttrs{op, a.memory(), order, scope});
  o.type = m.element;
  o.operands = std::move(ids);
  o.loc = detail::to_loc(loc);
  if (std::string wrong = ir::check_memory_order(o); !wrong.empty())
    detail::fail(loc, fmt::format("atomic {} on array '{}': {}", ir::atomic_op_name(op), m.name, wrong));
  if (op != ir::AtomicOp::store) o.result = t.kernel.new_value(m.element);
  const ir::Op& placed = detail::append(std::move(o));
  if (!placed.result) return Value();
  t.kernel.values[placed.result].def = &placed;
  return Value(placed.result, m.element, t.serial);
}

std::vector<const Operand*> pointers(atomic::Index i) {
  std::vector<const Operand*> out;
  for (const Operand& o : i) out.push_back(&o);
  return out;
}

}  // namespace

Int local_id(int dim, std::source_location loc) { return workitem(ir::WorkItem::local_id, dim, loc); }
Int group_id(int dim, std::source_location loc) { return workitem(ir::WorkItem::group_id, dim, loc); }
Int local_size(int dim, std::source_location loc) { return workitem(ir::WorkItem::local_size, dim, loc); }
Int num_groups(int dim, std::source_location loc) { return workitem(ir::WorkItem::num_groups, dim, loc); }
Int global_id(int dim, std::source_location loc) { return workitem(ir::WorkItem::global_id, dim, loc); }
Int global_size(int dim, std::source_location loc) { return workitem(ir::WorkItem::global_size, dim, loc); }

Int work_dim(std::source_location loc) {
  Value has_z = detail::compare(ir::ComparePred::gt, Operand(global_size(2, loc), loc), Operand(1, loc));
  Value has_y = detail::compare(ir::ComparePred::gt, Operand(global_size(1, loc), loc), Operand(1, loc));
  Int one(1, loc), two(2, loc), three(3, loc);
  Value y_or_x = select(Operand(has_y, loc), Operand(two, loc), Operand(one, loc));
  return Int(select(Operand(has_z, loc), Operand(three, loc), Operand(y_or_x, loc)), loc);
}

Value ceil_div(const Operand& a, const Operand& b) {
  ir::Type t = detail::common_type(a, b);
  if (!ir::is_integer(t)) detail::fail(a.loc(), fmt::format("ceil_div needs integers, got {}", ir::type_name(t)));
  Value x = detail::coerce(a, t, true, "ceil_div's dividend");
  Value y = detail::coerce(b, t, true, "ceil_div's divisor");
  // Every operand carries the caller's location: operators applied here would record this file.
  const std::source_location& loc = a.loc();
  Value y_minus_1 = detail::binary(ir::BinaryOp::sub, Operand(y, loc), Operand(1, loc));
  Value sum = detail::binary(ir::BinaryOp::add, Operand(x, loc), Operand(y_minus_1, loc));
  return detail::binary(ir::BinaryOp::div, Operand(sum, loc), Operand(y, loc));
}

Value sqrt(const Operand& x) { return math(ir::MathFn::sqrt, {&x}); }
Value rsqrt(const Operand& x) { return math(ir::MathFn::rsqrt, {&x}); }
Value exp(const Operand& x) { return math(ir::MathFn::exp, {&x}); }
Value exp2(const Operand& x) { return math(ir::MathFn::exp2, {&x}); }
Value log(const Operand& x) { return math(ir::MathFn::log, {&x}); }
Value log2(const Operand& x) { return math(ir::MathFn::log2, {&x}); }
Value sin(const Operand& x) { return math(ir::MathFn::sin, {&x}); }
Value cos(const Operand& x) { return math(ir::MathFn::cos, {&x}); }
Value tan(const Operand& x) { return math(ir::MathFn::tan, {&x}); }
Value pow(const Operand& x, const Operand& y) { return math(ir::MathFn::pow, {&x, &y}); }
Value fma(const Operand& a, const Operand& b, const Operand& c) { return math(ir::MathFn::fma, {&a, &b, &c}); }
Value fabs(const Operand& x) { return math(ir::MathFn::fabs, {&x}); }
Value floor(const Operand& x) { return math(ir::MathFn::floor, {&x}); }
Value ceil(const Operand& x) { return math(ir::MathFn::ceil, {&x}); }
Value fmin(const Operand& a, const Operand& b) { return math(ir::MathFn::fmin, {&a, &b}); }
Value fmax(const Operand& a, const Operand& b) { return math(ir::MathFn::fmax, {&a, &b}); }

#define ROCJIT_MATH_1(NAME) \
  Value NAME(const Operand& x) { return math(ir::MathFn::NAME, {&x}); }
#define ROCJIT_MATH_2(NAME) \
  Value NAME(const Operand& x, const Operand& y) { return math(ir::MathFn::NAME, {&x, &y}); }
ROCJIT_MATH_1(asin)
ROCJIT_MATH_1(acos)
ROCJIT_MATH_1(atan)
ROCJIT_MATH_2(atan2)
ROCJIT_MATH_1(sinh)
ROCJIT_MATH_1(cosh)
ROCJIT_MATH_1(tanh)
ROCJIT_MATH_1(asinh)
ROCJIT_MATH_1(acosh)
ROCJIT_MATH_1(atanh)
ROCJIT_MATH_1(exp10)
ROCJIT_MATH_1(expm1)
ROCJIT_MATH_1(log10)
ROCJIT_MATH_1(log1p)
ROCJIT_MATH_1(cbrt)
ROCJIT_MATH_2(hypot)
ROCJIT_MATH_1(erf)
ROCJIT_MATH_1(erfc)
ROCJIT_MATH_1(tgamma)
ROCJIT_MATH_1(lgamma)
ROCJIT_MATH_2(fmod)
ROCJIT_MATH_2(remainder)
ROCJIT_MATH_1(trunc)
ROCJIT_MATH_1(round)
ROCJIT_MATH_1(rint)
ROCJIT_MATH_2(copysign)
ROCJIT_MATH_2(nextafter)
#undef ROCJIT_MATH_1
#undef ROCJIT_MATH_2

Value ldexp(const Operand& x, const Operand& n) {
  Value v = math_operands("ldexp", {&x}).front();
  if (!n.type().is_integer() && !n.is_literal())
    detail::fail(n.loc(), fmt::format("ldexp(): the exponent must be an integer, got {}", ir::type_name(n.type())));
  Value e = detail::coerce(n, ir::Type::i32, false, "ldexp's exponent");
  return detail::emit(ir::OpKind::math, v.type(), {v.id(), e.id()}, x.loc(), ir::MathAttrs{ir::MathFn::ldexp});
}

// Integer functions: the operands' common integer type (literals adapt; bool is an error).
Value integer_math(ir::MathFn fn, std::initializer_list<const Operand*> args) {
  const Operand& first = **args.begin();
  ir::Type t = args.size() == 1 ? first.type() : detail::common_type(first, **(args.begin() + 1));
  if (first.is_literal() && args.size() == 1) t = first.type();
  if (!t.is_integer())
    detail::fail(first.loc(), fmt::format("{}() takes integers, got {}{}", ir::math_fn_name(fn), ir::type_name(t),
                                          ir::is_float(t) ? "; write bitcast<...>() to work on a float's bits" : ""));
  std::vector<ir::ValueId> ids;
  for (const Operand* a : args) ids.push_back(detail::coerce(*a, t, false, "an integer function's operand").id());
  return detail::emit(ir::OpKind::math, t, std::move(ids), first.loc(), ir::MathAttrs{fn});
}

Value popcount(const Operand& x) { return integer_math(ir::MathFn::popcount, {&x}); }
Value clz(const Operand& x) { return integer_math(ir::MathFn::clz, {&x}); }
Value ctz(const Operand& x) { return integer_math(ir::MathFn::ctz, {&x}); }
Value bitreverse(const Operand& x) { return integer_math(ir::MathFn::bitreverse, {&x}); }
Value mul_hi(const Operand& a, const Operand& b) { return integer_math(ir::MathFn::mul_hi, {&a, &b}); }
// The amount takes the value's type (it may be any integer of that type or a literal).
Value rotl(const Operand& x, const Operand& n) {
  return integer_math(ir::MathFn::rotl, {&x, &n});
}
Value rotr(const Operand& x, const Operand& n) {
  return integer_math(ir::MathFn::rotr, {&x, &n});
}

// Classification, built from comparisons: NaN is the only value unequal to itself; infinities
// are the values whose magnitude equals infinity; the sign bit is the top bit of the bits.
Value isnan(const Operand& x) {
  Value v = math_operands("isnan", {&x}).front();
  return detail::compare(ir::ComparePred::ne, Operand(v, x.loc()), Operand(v, x.loc()));
}
Value isinf(const Operand& x) {
  const Operand v(math_operands("isinf", {&x}).front(), x.loc());
  Value a = math(ir::MathFn::fabs, {&v});
  return detail::compare(ir::ComparePred::eq, Operand(a, x.loc()),
                         Operand(std::numeric_limits<double>::infinity(), x.loc()));
}
Value isfinite(const Operand& x) {
  const Operand v(math_operands("isfinite", {&x}).front(), x.loc());
  Value a = math(ir::MathFn::fabs, {&v});
  return detail::compare(ir::ComparePred::lt, Operand(a, x.loc()),
                         Operand(std::numeric_limits<double>::infinity(), x.loc()));
}
Value signbit(const Operand& x) {
  Value v = math_operands("signbit", {&x}).front();
  Value i = detail::bitcast(ir::Type(ir::Type::Code::int_, v.type().bits), Operand(v, x.loc()));
  return detail::compare(ir::ComparePred::lt, Operand(i, x.loc()), Operand(0, x.loc()));
}

Value min(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::min, a, b); }
Value max(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::max, a, b); }
Value abs(const Operand& x) { return detail::unary(ir::UnaryOp::abs, x); }

namespace atomic {
#define ROCJIT_ATOMIC(NAME, OP)                                                                   \
  Value NAME(const ArrayRef& a, const Operand& i, const Operand& v, memory_order o, memory_scope s) { \
    return atomic_op(ir::AtomicOp::OP, a, {&i}, {&v}, o, s);                                      \
  }                                                                                               \
  Value NAME(const ArrayRef& a, Index i, const Operand& v, memory_order o, memory_scope s) {      \
    return atomic_op(ir::AtomicOp::OP, a, pointers(i), {&v}, o, s);                               \
  }
ROCJIT_ATOMIC(add, add)
ROCJIT_ATOMIC(sub, sub)
ROCJIT_ATOMIC(min, min)
ROCJIT_ATOMIC(max, max)
ROCJIT_ATOMIC(and_, and_)
ROCJIT_ATOMIC(or_, or_)
ROCJIT_ATOMIC(xor_, xor_)
ROCJIT_ATOMIC(exchange, exchange)
#undef ROCJIT_ATOMIC
Value compare_exchange(const ArrayRef& a, const Operand& i, const Operand& expected, const Operand& desired,
                       memory_order o, memory_scope s) {
  return atomic_op(ir::AtomicOp::compare_exchange, a, {&i}, {&expected, &desired}, o, s);
}
Value compare_exchange(const ArrayRef& a, Index i, const Operand& expected, const Operand& desired, memory_order o,
                       memory_scope s) {
  return atomic_op(ir::AtomicOp::compare_exchange, a, pointers(i), {&expected, &desired}, o, s);
}
Value load(const ArrayRef& a, const Operand& i, memory_order o, memory_scope s) {
  return atomic_op(ir::AtomicOp::load, a, {&i}, {}, o, s);
}
Value load(const ArrayRef& a, Index i, memory_order o, memory_scope s) {
  return atomic_op(ir::AtomicOp::load, a, pointers(i), {}, o, s);
}
void store(const ArrayRef& a, const Operand& i, const Operand& v, memory_order o, memory_scope s) {
  atomic_op(ir::AtomicOp::store, a, {&i}, {&v}, o, s);
}
void store(const ArrayRef& a, Index i, const Operand& v, memory_order o, memory_scope s) {
  atomic_op(ir::AtomicOp::store, a, pointers(i), {&v}, o, s);
}
}  // namespace atomic

void fence(memory_scope scope, memory_order order, std::source_location loc) {
  detail::current(loc);
  ir::Op op(ir::OpKind::fence, ir::FenceAttrs{order, scope});
  op.loc = detail::to_loc(loc);
  if (std::string wrong = ir::check_memory_order(op); !wrong.empty()) detail::fail(loc, wrong);
  detail::append(std::move(op));
}

Value uniform(const Operand& x) {
  Value v = detail::coerce(x, detail::common_type(x, x), false, "uniform()");
  return detail::emit(ir::OpKind::uniform, v.type(), {v.id()}, x.loc());
}

Int lane_id(std::source_location loc) { return workitem(ir::WorkItem::lane_id, 0, loc); }
Int wave_size(std::source_location loc) { return workitem(ir::WorkItem::wave_size, 0, loc); }

namespace wave {
Value shuffle(const Operand& v, const Operand& src, std::source_location loc) {
  return wave_op(ir::WaveOp::shuffle, v, &src, loc);
}
Value shuffle_xor(const Operand& v, const Operand& mask, std::source_location loc) {
  return wave_op(ir::WaveOp::shuffle_xor, v, &mask, loc);
}
Value shuffle_up(const Operand& v, const Operand& delta, std::source_location loc) {
  return wave_op(ir::WaveOp::shuffle_up, v, &delta, loc);
}
Value shuffle_down(const Operand& v, const Operand& delta, std::source_location loc) {
  return wave_op(ir::WaveOp::shuffle_down, v, &delta, loc);
}
Value broadcast(const Operand& v, const Operand& lane, std::source_location loc) {
  return wave_op(ir::WaveOp::broadcast, v, &lane, loc);
}
Value read_first(const Operand& v, std::source_location loc) { return wave_op(ir::WaveOp::read_first, v, nullptr, loc); }
ULong ballot(const Operand& pred, std::source_location loc) {
  return ULong(wave_vote(ir::WaveOp::ballot, ir::Type::u64, pred, loc), loc);
}
Bool any(const Operand& pred, std::source_location loc) { return Bool(wave_vote(ir::WaveOp::any, ir::Type::i1, pred, loc), loc); }
Bool all(const Operand& pred, std::source_location loc) { return Bool(wave_vote(ir::WaveOp::all, ir::Type::i1, pred, loc), loc); }
Int count(const Operand& pred, std::source_location loc) { return Int(wave_vote(ir::WaveOp::count, ir::Type::i32, pred, loc), loc); }
Value reduce_add(const Operand& v, std::source_location loc) { return wave_op(ir::WaveOp::reduce_add, v, nullptr, loc); }
Value reduce_min(const Operand& v, std::source_location loc) { return wave_op(ir::WaveOp::reduce_min, v, nullptr, loc); }
Value reduce_max(const Operand& v, std::source_location loc) { return wave_op(ir::WaveOp::reduce_max, v, nullptr, loc); }
Value reduce_and(const Operand& v, std::source_location loc) { return wave_op(ir::WaveOp::reduce_and, v, nullptr, loc); }
Value reduce_or(const Operand& v, std::source_location loc) { return wave_op(ir::WaveOp::reduce_or, v, nullptr, loc); }
Value reduce_xor(const Operand& v, std::source_location loc) { return wave_op(ir::WaveOp::reduce_xor, v, nullptr, loc); }
Value inclusive_scan_add(const Operand& v, std::source_location loc) {
  return wave_op(ir::WaveOp::inclusive_scan_add, v, nullptr, loc);
}
Value exclusive_scan_add(const Operand& v, std::source_location loc) {
  return wave_op(ir::WaveOp::exclusive_scan_add, v, nullptr, loc);
}
}  // namespace wave

}  // namespace rocjit::dsl

// --- print and device_assert (debug.hpp) --------------------------------------------------------

namespace rocjit::dsl {
namespace detail {

Value vector_value(const std::vector<Value>& lanes, const std::source_location& loc) {
  std::vector<ir::ValueId> ids;
  for (const Value& v : lanes) ids.push_back(use(v, loc));
  return emit(ir::OpKind::make_vector, lanes.at(0).type().with_lanes(static_cast<unsigned>(lanes.size())),
              std::move(ids), loc);
}

namespace {
// Records a print or assert op; the format is checked against the values' types here, so the
// error names the user's line (ir::verify checks the same again for .rjir text).
void device_output(ir::OpKind kind, std::vector<ir::ValueId> operands, const Format& format,
                   const std::vector<Value>& values) {
  std::vector<ir::Type> types;
  for (const Value& v : values) {
    operands.push_back(use(v, format.loc));
    types.push_back(v.type());
  }
  const char* name = kind == ir::OpKind::print ? "print" : "device_assert";
  if (std::string e = check_print_format(format.text, types); !e.empty())
    fail(format.loc, fmt::format("{}(\"{}\", ...): {}", name, format.text, e));
  emit(kind, ir::Type::none, std::move(operands), format.loc, ir::PrintAttrs{std::string(format.text)});
}
}  // namespace

void print(const Format& format, const std::vector<Value>& values) {
  device_output(ir::OpKind::print, {}, format, values);
}

void device_assert(const Operand& condition, const Format& message, const std::vector<Value>& values) {
  if (condition.type() != ir::Type::i1)
    fail(message.loc, fmt::format("device_assert's condition is {}; it takes a comparison or a Bool (write x != 0 "
                                  "for a number)",
                                  ir::type_name(condition.type())));
  const Value c = coerce(condition, ir::Type::i1, false, "device_assert's condition");
  device_output(ir::OpKind::assert_, {use(c, message.loc)}, message, values);
}

}  // namespace detail
}  // namespace rocjit::dsl
