// Typing rules of the DSL: weak literals, C++'s usual arithmetic conversions made explicit as
// cast ops, and no silent narrowing.
#include "rocjit/dsl/value.hpp"
#include "rocjit/dsl/promotion.hpp"
#include "rocjit/dsl/vector.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "rocjit/compiler/error.hpp"

namespace rocjit::dsl::detail {
namespace {

using ir::Type;

// Lossless conversions done implicitly for values (everything else needs cast<T>): to a wider
// integer of the same signedness, from unsigned to a wider signed integer, and from a float to a
// wider float (f16 and bf16 to f32 and f64, f32 to f64).
bool widens(Type from, Type to) {
  if (from == to) return true;
  if (from.is_vector() || to.is_vector() || from == Type::i1) return false;
  if (ir::is_float(from) && ir::is_float(to)) return to.bits > from.bits;
  if (!from.is_integer() || !to.is_integer() || to.bits <= from.bits) return false;
  return ir::is_signed(from) == ir::is_signed(to) || !ir::is_signed(from);
}

bool literal_fits(const Operand& x, Type t) {
  using K = Operand::Kind;
  if (x.kind() == K::bool_literal) return true;
  if (ir::is_float(t)) return true;
  if (x.kind() == K::float_literal) return false;
  __int128 v = x.kind() == K::uint_literal ? static_cast<__int128>(x.uint_literal())
                                           : static_cast<__int128>(x.int_literal());
  if (t == Type::i1) return v == 0 || v == 1;
  if (!t.is_integer() || t.is_vector()) return false;
  const __int128 one = 1;
  if (t.is_signed_int()) return v >= -(one << (t.bits - 1)) && v < (one << (t.bits - 1));
  return v >= 0 && v < (one << t.bits);
}

}  // namespace

Value constant(Type type, int64_t i, double f, const std::source_location& loc) {
  Trace& t = current(loc);
  ir::Op op(ir::OpKind::constant, ir::ConstantAttrs{i, ir::is_float(type) ? ir::round_to_type(type, f) : 0});
  op.type = type;
  op.loc = to_loc(loc);
  op.result = t.kernel.new_value(type);
  ir::Op& placed = append(std::move(op));
  t.kernel.values[placed.result].def = &placed;
  return Value(placed.result, type, t.serial);
}

Value coerce(const Operand& x, Type type, bool convert, const char* context) {
  using K = Operand::Kind;
  const auto& loc = x.loc();
  if (x.is_literal()) {
    if (!literal_fits(x, type))
      fail(loc, fmt::format("the literal does not fit {} ({}); write cast<{}>(...) if a conversion is meant",
                            ir::type_name(type), context, ir::cpp_type_name(type)));
    if (ir::is_float(type)) {
      double v = x.kind() == K::float_literal ? x.float_literal()
                 : x.kind() == K::uint_literal ? static_cast<double>(x.uint_literal())
                                               : static_cast<double>(x.int_literal());
      return constant(type, 0, v, loc);
    }
    int64_t v = x.kind() == K::uint_literal ? static_cast<int64_t>(x.uint_literal()) : x.int_literal();
    return constant(type, v, 0, loc);
  }
  use(x.value(), loc);
  Type from = x.value().type();
  if (from == type) return x.value();
  if (convert || widens(from, type)) return cast(type, x);
  fail(loc, fmt::format("{} is {}, but {} was given; no implicit narrowing or sign change: write cast<{}>(...)",
                        context, ir::type_name(type), ir::type_name(from), ir::cpp_type_name(type)));
}

Type common_type(const Operand& a, const Operand& b) {
  using K = Operand::Kind;
  if (a.is_literal() && !b.is_literal()) return common_type(b, a);
  if (!b.is_literal()) return promote(a.type(), b.type());
  // b is a weak literal: it adapts to a's type when it fits.
  Type t = a.type();
  if (b.kind() == K::float_literal && !ir::is_float(t)) return b.type();
  if (literal_fits(b, t)) return t == Type::i1 && b.kind() != K::bool_literal ? Type::i32 : t;
  return promote(t, b.type());
}

Value cast(Type type, const Operand& x) {
  if (x.is_literal()) return coerce(x, type, true, "cast");
  ir::ValueId id = use(x.value(), x.loc());
  if (x.value().type() == type) return x.value();
  return emit(ir::OpKind::cast, type, {id}, x.loc());
}

Value bitcast(Type type, const Operand& x) {
  Value v = coerce(x, x.type(), false, "bitcast");
  if (v.type().bytes() != type.bytes() || v.type() == Type::i1 || type == Type::i1)
    fail(x.loc(), fmt::format("bitcast<{}>() of a {} value: both types must have the same size ({} and {} bytes) "
                              "and neither be bool",
                              ir::cpp_type_name(type), ir::type_name(v.type()), type.bytes(), v.type().bytes()));
  if (v.type() == type) return v;
  return emit(ir::OpKind::bitcast, type, {v.id()}, x.loc());
}

Value binary(ir::BinaryOp op, const Operand& a, const Operand& b) {
  Type t;
  bool shift = op == ir::BinaryOp::shl || op == ir::BinaryOp::shr;
  bool bitwise = op == ir::BinaryOp::and_ || op == ir::BinaryOp::or_ || op == ir::BinaryOp::xor_;
  if (shift) {
    t = a.is_literal() ? common_type(a, b) : a.type();
    if (t == Type::i1) t = Type::i32;
  } else if (bitwise && a.type() == Type::i1 && b.type() == Type::i1) {
    t = Type::i1;
  } else {
    t = common_type(a, b);
  }
  if (ir::is_float(t) && (shift || bitwise))
    fail(a.loc(), fmt::format("operator '{}' needs integer operands, got {}", ir::binary_op_name(op),
                              ir::type_name(t)));
  Value x = coerce(a, t, true, "the left operand");
  Value y = coerce(b, t, true, "the right operand");
  return emit(ir::OpKind::binary, t, {x.id(), y.id()}, a.loc(), ir::BinaryAttrs{op});
}

void check_lane(const Lane& lane, unsigned lanes) {
  if (lane.index < 0 || static_cast<unsigned>(lane.index) >= lanes)
    fail(lane.loc, fmt::format("lane {} of a Vec with {} lanes does not exist (lanes are 0 to {})", lane.index, lanes,
                               lanes - 1));
}

Value vector_lane_binary(ir::BinaryOp op, const Operand& a, const Operand& b, Type lane_type, unsigned lanes) {
  const bool shift = op == ir::BinaryOp::shl || op == ir::BinaryOp::shr;
  const Type t = shift && !a.is_literal() ? a.type() : common_type(a, b);
  if (t != lane_type) {
    const Operand& other = a.type() == lane_type ? b : a;
    fail(a.loc(), fmt::format("operator '{}' of a Vec<{}, {}> with a {} would give {} lanes; a Vec keeps its lane "
                              "type: write cast<{}>(...) around the scalar, or convert the Vec with cast<{}>(v)",
                              ir::binary_op_name(op), ir::cpp_type_name(lane_type), lanes,
                              ir::cpp_type_name(other.type()), ir::cpp_type_name(t), ir::cpp_type_name(lane_type),
                              ir::cpp_type_name(t)));
  }
  return binary(op, a, b);
}

Value compare(ir::ComparePred pred, const Operand& a, const Operand& b) {
  Type t = (a.type() == Type::i1 && b.type() == Type::i1) ? Type::i1 : common_type(a, b);
  Value x = coerce(a, t, true, "the left operand");
  Value y = coerce(b, t, true, "the right operand");
  return emit(ir::OpKind::compare, Type::i1, {x.id(), y.id()}, a.loc(), ir::CompareAttrs{pred});
}

Value unary(ir::UnaryOp op, const Operand& a) {
  Type t = a.type();
  if (op == ir::UnaryOp::not_ && ir::is_float(t))
    fail(a.loc(), fmt::format("operator '~' needs an integer operand, got {}", ir::type_name(t)));
  if (t == Type::i1 && op != ir::UnaryOp::not_) t = Type::i32;
  Value x = coerce(a, t, true, "the operand");
  return emit(ir::OpKind::unary, t, {x.id()}, a.loc(), ir::UnaryAttrs{op});
}

Value to_bool(const Operand& a) {
  if (a.type() == Type::i1) return coerce(a, Type::i1, false, "the condition");
  if (a.is_literal()) return constant(Type::i1, a.int_literal() != 0 || a.uint_literal() != 0 || a.float_literal() != 0, 0, a.loc());
  return compare(ir::ComparePred::ne, a, Operand(0, a.loc()));
}

Value logical(bool is_and, const Operand& a, const Operand& b) {
  Value x = to_bool(a), y = to_bool(b);
  return emit(ir::OpKind::binary, Type::i1, {x.id(), y.id()}, a.loc(),
              ir::BinaryAttrs{is_and ? ir::BinaryOp::and_ : ir::BinaryOp::or_});
}

Value logical_not(const Operand& a) {
  Value x = to_bool(a);
  return emit(ir::OpKind::unary, Type::i1, {x.id()}, a.loc(), ir::UnaryAttrs{ir::UnaryOp::not_});
}

}  // namespace rocjit::dsl::detail

namespace rocjit::dsl {

Value select(const Operand& c, const Operand& a, const Operand& b) {
  Value cond = detail::to_bool(c);
  ir::Type t = detail::common_type(a, b);
  Value x = detail::coerce(a, t, true, "select's first value");
  Value y = detail::coerce(b, t, true, "select's second value");
  return detail::emit(ir::OpKind::select, t, {cond.id(), x.id(), y.id()}, c.loc());
}

}  // namespace rocjit::dsl
