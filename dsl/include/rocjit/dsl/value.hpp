// Kernel-side values: dynamically typed SSA handles (Value), their typed views (Expr<T>),
// operands that accept literals, and the C++ operators that record arithmetic into the IR.
#pragma once

#include <concepts>
#include <cstdint>
#include <source_location>
#include <type_traits>

#include "rocjit/compiler/ir.hpp"
#include "rocjit/dsl/trace.hpp"

namespace rocjit::dsl {

/// The 16-bit float types (rocjit/compiler/float16.hpp), also spelled dsl::half and dsl::bfloat16.
///@{
using rocjit::bfloat16;
using rocjit::half;
///@}

/// Maps C++ element/scalar types to IR types: the one table, ir::TypeOf in rocjit/compiler/type.hpp.
template <class T>
using ir_type = ir::TypeOf<T>;
/// The IR type of the C++ type T.
template <class T>
inline constexpr ir::Type ir_type_v = ir::TypeOf<T>::value;

/// A C++ type kernels can hold values of (a row of the table).
template <class T>
concept Scalar = ir::has_type_of<T>;

class Value;

/// Things that produce a Value when read (Var<T>, array elements).
template <class X>
concept Loadable = requires(const X& x, const std::source_location& loc) {
  { x.load(loc) } -> std::same_as<Value>;
};

/// An SSA value recorded in a kernel trace. Copies refer to the same value.
class Value {
 public:
  Value() = default;
  /// A traced value: its id, type and trace.
  Value(ir::ValueId id, ir::Type type, uint64_t trace) : id_(id), type_(type), trace_(trace) {}
  /// Reads a Var or an array element, recorded at the caller's line: Value v = acc;
  template <Loadable X>
  Value(const X& x, std::source_location loc = std::source_location::current()) : Value(x.load(loc)) {}
  /// The value's id in the IR.
  ir::ValueId id() const { return id_; }
  /// The value's IR type.
  ir::Type type() const { return type_; }
  /// The trace it belongs to.
  uint64_t trace() const { return trace_; }
  /// Whether it holds a value.
  bool valid() const { return id_ != 0; }

 private:
  ir::ValueId id_ = 0;
  ir::Type type_ = ir::Type::none;
  uint64_t trace_ = 0;
};

/// Any operand of a DSL operation: a recorded value or a C++ literal. C++ literals are weakly
/// typed: they take the type of the other operand (as in Triton and JAX), so `x * 2.0` stays
/// f32 when x is f32. Carries the source location of the expression it appears in.
class Operand {
 public:
  /// A traced value or which kind of C++ literal.
  enum class Kind : uint8_t { value, int_literal, uint_literal, float_literal, bool_literal };

  /// A traced value.
  Operand(const Value& v, std::source_location loc = std::source_location::current())
      : kind_(Kind::value), value_(v), loc_(loc) {}
  /// A typed expression's value.
  template <Loadable X>
  Operand(const X& x, std::source_location loc = std::source_location::current())
      : kind_(Kind::value), value_(x.load(loc)), loc_(loc) {}
  /// A C++ literal, typed later by the other operand.
  template <class T>
    requires std::is_arithmetic_v<T>
  Operand(T literal, std::source_location loc = std::source_location::current()) : loc_(loc) {
    literal_type_ = ir::type_of_arithmetic<T>();
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::bool_literal;
      int_ = literal;
    } else if constexpr (std::is_floating_point_v<T>) {
      kind_ = Kind::float_literal;
      float_ = static_cast<double>(literal);
    } else if constexpr (std::is_signed_v<T>) {
      kind_ = Kind::int_literal;
      int_ = literal;
    } else {
      kind_ = Kind::uint_literal;
      uint_ = literal;
    }
  }

  /// A half or bfloat16 literal: a float literal whose own type is f16 or bf16.
  template <class T>
    requires std::is_same_v<T, half> || std::is_same_v<T, bfloat16>
  Operand(T literal, std::source_location loc = std::source_location::current())
      : kind_(Kind::float_literal), literal_type_(ir::type_of<T>()), float_(static_cast<float>(literal)), loc_(loc) {}

  /// Value or literal kind.
  Kind kind() const { return kind_; }
  /// Whether it is a literal.
  bool is_literal() const { return kind_ != Kind::value; }
  /// The traced value (non-literals).
  const Value& value() const { return value_; }
  /// The operand's own type: the value's, or the literal's C++ type.
  ir::Type type() const { return is_literal() ? literal_type_ : value_.type(); }
  /// The integer literal.
  int64_t int_literal() const { return int_; }
  /// The unsigned literal.
  uint64_t uint_literal() const { return uint_; }
  /// The floating-point literal.
  double float_literal() const { return float_; }
  /// Where it was written.
  const std::source_location& loc() const { return loc_; }

 private:
  Kind kind_ = Kind::value;
  Value value_;
  ir::Type literal_type_ = ir::Type::none;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double float_ = 0;
  std::source_location loc_;
};

namespace detail {
/// Converts an operand to a value of exactly `type`: literals become constants (an error when the
/// literal does not fit), values are converted by an explicit cast op when `convert` allows it,
/// otherwise a type mismatch is an error that says which cast to write.
Value coerce(const Operand& x, ir::Type type, bool convert, const char* context);
/// The type C++'s usual arithmetic conversions give two operands, with weak literals.
ir::Type common_type(const Operand& a, const Operand& b);
Value binary(ir::BinaryOp op, const Operand& a, const Operand& b);
Value compare(ir::ComparePred pred, const Operand& a, const Operand& b);
Value unary(ir::UnaryOp op, const Operand& a);
Value logical(bool is_and, const Operand& a, const Operand& b);
Value logical_not(const Operand& a);
Value to_bool(const Operand& a);
Value cast(ir::Type type, const Operand& a);
Value bitcast(ir::Type type, const Operand& a);
Value constant(ir::Type type, int64_t i, double f, const std::source_location& loc);
}  // namespace detail

/// A value whose type is known statically, e.g. Float or Int. Converting a Value of another type
/// is an error at trace time that names the needed cast.
template <Scalar T>
class Expr : public Value {
 public:
  /// The C++ type.
  using type = T;
  /// Wraps a traced value of type T (checked).
  Expr(const Value& v, std::source_location loc = std::source_location::current())
      : Value(detail::coerce(Operand(v, loc), ir_type_v<T>, false, "this variable")) {}
  /// Converts another expression (C++ conversion rules).
  template <Loadable X>
  Expr(const X& x, std::source_location loc = std::source_location::current())
      : Value(detail::coerce(Operand(x.load(loc), loc), ir_type_v<T>, false, "this variable")) {}
  /// A literal of type T.
  template <class L>
    requires std::is_arithmetic_v<L> || std::is_same_v<L, half> || std::is_same_v<L, bfloat16>
  Expr(L literal, std::source_location loc = std::source_location::current())
      : Value(detail::coerce(Operand(literal, loc), ir_type_v<T>, false, "this variable")) {}
  /// Copies the expression (the same value).
  Expr(const Expr&) = default;
  /// Refers to another expression's value.
  Expr& operator=(const Expr&) = default;
};

/// The DSL's typed scalars: `Expr<T>` for every row of the type table.
///@{
using Bool = Expr<bool>;
using Int = Expr<int32_t>;
using Long = Expr<int64_t>;
using UInt = Expr<uint32_t>;
using ULong = Expr<uint64_t>;
using Float = Expr<float>;
using Double = Expr<double>;
using Int8 = Expr<int8_t>;
using Int16 = Expr<int16_t>;
using UInt8 = Expr<uint8_t>;
using UInt16 = Expr<uint16_t>;
using Half = Expr<half>;
using BFloat16 = Expr<bfloat16>;
///@}

/// Explicit conversion, e.g. cast<float>(i) or cast<int32_t>(x). To a float type it rounds to
/// nearest even (cast<half>(x), cast<bfloat16>(x)); to an integer it truncates toward zero and
/// saturates (NaN -> 0); between integers it wraps (two's complement).
template <Scalar T>
Value cast(const Operand& x) {
  return detail::cast(ir_type_v<T>, x);
}

/// Reinterprets the bits of `x` as a T of the same size, e.g. bitcast<uint32_t>(f) or
/// bitcast<double>(u64), like C++20's std::bit_cast (a literal is its C++ type's value).
template <Scalar T>
Value bitcast(const Operand& x) {
  return detail::bitcast(ir_type_v<T>, x);
}

/// Operators. Non-template functions on Operand, so literals, values, variables and array
/// elements all convert implicitly, each carrying the location of the expression.
///@{
inline Value operator+(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::add, a, b); }
inline Value operator-(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::sub, a, b); }
inline Value operator*(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::mul, a, b); }
inline Value operator/(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::div, a, b); }
inline Value operator%(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::rem, a, b); }
inline Value operator&(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::and_, a, b); }
inline Value operator|(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::or_, a, b); }
inline Value operator^(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::xor_, a, b); }
inline Value operator<<(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::shl, a, b); }
inline Value operator>>(const Operand& a, const Operand& b) { return detail::binary(ir::BinaryOp::shr, a, b); }
inline Value operator==(const Operand& a, const Operand& b) { return detail::compare(ir::ComparePred::eq, a, b); }
inline Value operator!=(const Operand& a, const Operand& b) { return detail::compare(ir::ComparePred::ne, a, b); }
inline Value operator<(const Operand& a, const Operand& b) { return detail::compare(ir::ComparePred::lt, a, b); }
inline Value operator<=(const Operand& a, const Operand& b) { return detail::compare(ir::ComparePred::le, a, b); }
inline Value operator>(const Operand& a, const Operand& b) { return detail::compare(ir::ComparePred::gt, a, b); }
inline Value operator>=(const Operand& a, const Operand& b) { return detail::compare(ir::ComparePred::ge, a, b); }
///@}
/// && and || evaluate both sides (they are recorded, not executed): no short-circuit.
///@{
inline Value operator&&(const Operand& a, const Operand& b) { return detail::logical(true, a, b); }
inline Value operator||(const Operand& a, const Operand& b) { return detail::logical(false, a, b); }
inline Value operator!(const Operand& a) { return detail::logical_not(a); }
inline Value operator-(const Operand& a) { return detail::unary(ir::UnaryOp::neg, a); }
inline Value operator~(const Operand& a) { return detail::unary(ir::UnaryOp::not_, a); }
inline Value operator+(const Operand& a) { return detail::coerce(a, a.type(), false, "unary +"); }
///@}

/// Conditional value: c ? a : b, both sides evaluated.
Value select(const Operand& c, const Operand& a, const Operand& b);

}  // namespace rocjit::dsl
