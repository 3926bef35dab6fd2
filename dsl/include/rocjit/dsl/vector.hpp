// Vec<T, N>: small vectors of kernel values (2, 3 or 4 lanes) with lane access and lane-wise
// arithmetic; arrays read and write them in one access (vload / vstore, rocjit/dsl/array.hpp).
#pragma once

#include <array>
#include <source_location>
#include <span>
#include <type_traits>

#include "rocjit/dsl/value.hpp"

namespace rocjit::dsl {

/// A lane number of a Vec (0 to N-1), with where it was written: `v[2]`.
struct Lane {
  /// A lane number, recorded at the caller's line.
  Lane(int index, std::source_location loc = std::source_location::current()) : index(index), loc(loc) {}
  /// The lane.
  int index;
  /// Where it was written.
  std::source_location loc;
};

template <Scalar T, int N>
class Vec;
/// Whether T is a Vec<U, N>.
template <class T>
struct is_vec : std::false_type {};
/// A Vec is one.
template <Scalar T, int N>
struct is_vec<Vec<T, N>> : std::true_type {};
/// The types a Var holds: scalars and Vecs.
template <class T>
concept VarType = Scalar<T> || is_vec<T>::value;
template <VarType T>
class Var;

namespace detail {
/// Checks a lane number of a vector of `lanes` lanes.
void check_lane(const Lane& lane, unsigned lanes);
/// One lane of `op` on a Vec of `lane_type`; a result of another type is an error that names
/// what to cast (a Vec keeps its lane type).
Value vector_lane_binary(ir::BinaryOp op, const Operand& a, const Operand& b, ir::Type lane_type, unsigned lanes);
}  // namespace detail

/// A vector of N values of type T (N = 2, 3, 4), like HIP's float4 or OpenCL's float4: built from
/// lanes, read lane by lane, combined lane-wise with + - * / % & | ^ << >> and unary -.
/// Arrays load and store one in a single access: `Vec<float, 4> p = pos.vload<4>(j)`.
/// Lane-wise arithmetic is recorded as N scalar operations; LLVM packs them again where the
/// processor has packed instructions (two f16 lanes: v_pk_add_f16).
///
/// A Vec is a value like Value: assigning one rebinds it, it does not record a store. Carry a Vec
/// out of If/For/While bodies, or across loop iterations, in a `Var<Vec<T, N>>`.
template <Scalar T, int N>
class Vec {
  static_assert(N >= 2 && N <= 4, "Vec<T, N> has 2, 3 or 4 lanes");
  static_assert(!std::is_same_v<T, bool>, "Vec<bool, N> is not supported; compare lane by lane");

 public:
  /// The lanes' C++ type.
  using element_type = T;
  /// Number of lanes.
  static constexpr int lanes_v = N;

  /// Every lane `x` (a literal, a value, a Var or an array element; narrower types widen exactly).
  explicit Vec(const Operand& x) {
    for (Value& l : lanes_) l = detail::coerce(x, ir_type_v<T>, false, "a Vec lane");
  }
  /// Lanes x and y.
  Vec(const Operand& x, const Operand& y)
    requires(N == 2)
      : lanes_{lane(x), lane(y)} {}
  /// Lanes x, y and z.
  Vec(const Operand& x, const Operand& y, const Operand& z)
    requires(N == 3)
      : lanes_{lane(x), lane(y), lane(z)} {}
  /// Lanes x, y, z and w.
  Vec(const Operand& x, const Operand& y, const Operand& z, const Operand& w)
    requires(N == 4)
      : lanes_{lane(x), lane(y), lane(z), lane(w)} {}

  /// The current value of a `Var<Vec<T, N>>` (a load of each lane, at the caller's line).
  template <class V>
    requires std::is_same_v<V, Var<Vec>>
  Vec(const V& var, std::source_location loc = std::source_location::current()) : Vec(var.get(loc)) {}

  /// A Vec of recorded values, each of type T (vload's result).
  static Vec from_lanes(const std::array<Value, N>& lanes) { return Vec(lanes); }

  /// Lane k, 0 <= k < N (a constant).
  Expr<T> operator[](const Lane& k) const {
    detail::check_lane(k, N);
    return Expr<T>(lanes_[static_cast<size_t>(k.index)], k.loc);
  }
  /// Lane 0.
  Expr<T> x(std::source_location loc = std::source_location::current()) const { return (*this)[Lane(0, loc)]; }
  /// Lane 1.
  Expr<T> y(std::source_location loc = std::source_location::current()) const { return (*this)[Lane(1, loc)]; }
  /// Lane 2.
  Expr<T> z(std::source_location loc = std::source_location::current()) const
    requires(N >= 3)
  {
    return (*this)[Lane(2, loc)];
  }
  /// Lane 3.
  Expr<T> w(std::source_location loc = std::source_location::current()) const
    requires(N == 4)
  {
    return (*this)[Lane(3, loc)];
  }
  /// The lanes' values, in order.
  const std::array<Value, N>& lanes() const { return lanes_; }

  /// A Vec operand of an operator, with the operator's location (an operator cannot take a
  /// defaulted std::source_location, but this conversion can). A `Var<Vec<T, N>>` converts too
  /// (its current value, loaded at the operator's line).
  struct Arg {
    /// `v`, used at the caller's line.
    Arg(const Vec& v, std::source_location loc = std::source_location::current()) : vec(v), loc(loc) {}
    /// The current value of `var`, used at the caller's line.
    template <class V>
      requires std::is_same_v<V, Var<Vec>>
    Arg(const V& var, std::source_location loc = std::source_location::current()) : vec(var.get(loc)), loc(loc) {}
    /// The Vec.
    Vec vec;
    /// Where the operator was written.
    std::source_location loc;
  };

  /// Lane-wise arithmetic: Vec with Vec, or with a scalar applied to every lane. The result keeps
  /// the lane type; a scalar that would widen it (a double with a Vec<float, N>) is an error
  /// naming the cast to write.
  ///@{
  friend Vec operator+(const Arg& a, const Arg& b) { return apply(ir::BinaryOp::add, a, b); }
  friend Vec operator-(const Arg& a, const Arg& b) { return apply(ir::BinaryOp::sub, a, b); }
  friend Vec operator*(const Arg& a, const Arg& b) { return apply(ir::BinaryOp::mul, a, b); }
  friend Vec operator/(const Arg& a, const Arg& b) { return apply(ir::BinaryOp::div, a, b); }
  friend Vec operator%(const Arg& a, const Arg& b) { return apply(ir::BinaryOp::rem, a, b); }
  friend Vec operator&(const Arg& a, const Arg& b) { return apply(ir::BinaryOp::and_, a, b); }
  friend Vec operator|(const Arg& a, const Arg& b) { return apply(ir::BinaryOp::or_, a, b); }
  friend Vec operator^(const Arg& a, const Arg& b) { return apply(ir::BinaryOp::xor_, a, b); }
  friend Vec operator<<(const Arg& a, const Arg& b) { return apply(ir::BinaryOp::shl, a, b); }
  friend Vec operator>>(const Arg& a, const Arg& b) { return apply(ir::BinaryOp::shr, a, b); }
  friend Vec operator+(const Arg& a, const Operand& s) { return apply(ir::BinaryOp::add, a, s); }
  friend Vec operator-(const Arg& a, const Operand& s) { return apply(ir::BinaryOp::sub, a, s); }
  friend Vec operator*(const Arg& a, const Operand& s) { return apply(ir::BinaryOp::mul, a, s); }
  friend Vec operator/(const Arg& a, const Operand& s) { return apply(ir::BinaryOp::div, a, s); }
  friend Vec operator%(const Arg& a, const Operand& s) { return apply(ir::BinaryOp::rem, a, s); }
  friend Vec operator&(const Arg& a, const Operand& s) { return apply(ir::BinaryOp::and_, a, s); }
  friend Vec operator|(const Arg& a, const Operand& s) { return apply(ir::BinaryOp::or_, a, s); }
  friend Vec operator^(const Arg& a, const Operand& s) { return apply(ir::BinaryOp::xor_, a, s); }
  friend Vec operator<<(const Arg& a, const Operand& s) { return apply(ir::BinaryOp::shl, a, s); }
  friend Vec operator>>(const Arg& a, const Operand& s) { return apply(ir::BinaryOp::shr, a, s); }
  friend Vec operator+(const Operand& s, const Arg& b) { return apply(ir::BinaryOp::add, s, b); }
  friend Vec operator-(const Operand& s, const Arg& b) { return apply(ir::BinaryOp::sub, s, b); }
  friend Vec operator*(const Operand& s, const Arg& b) { return apply(ir::BinaryOp::mul, s, b); }
  friend Vec operator/(const Operand& s, const Arg& b) { return apply(ir::BinaryOp::div, s, b); }
  friend Vec operator%(const Operand& s, const Arg& b) { return apply(ir::BinaryOp::rem, s, b); }
  friend Vec operator&(const Operand& s, const Arg& b) { return apply(ir::BinaryOp::and_, s, b); }
  friend Vec operator|(const Operand& s, const Arg& b) { return apply(ir::BinaryOp::or_, s, b); }
  friend Vec operator^(const Operand& s, const Arg& b) { return apply(ir::BinaryOp::xor_, s, b); }
  friend Vec operator<<(const Operand& s, const Arg& b) { return apply(ir::BinaryOp::shl, s, b); }
  friend Vec operator>>(const Operand& s, const Arg& b) { return apply(ir::BinaryOp::shr, s, b); }
  /// Lane-wise negation.
  friend Vec operator-(const Arg& a) {
    std::array<Value, N> out;
    for (int k = 0; k < N; ++k) out[k] = detail::unary(ir::UnaryOp::neg, Operand(a.vec.lanes_[k], a.loc));
    return Vec(out);
  }
  ///@}

 private:
  explicit Vec(const std::array<Value, N>& lanes) : lanes_(lanes) {}
  static Value lane(const Operand& x) { return detail::coerce(x, ir_type_v<T>, false, "a Vec lane"); }

  static Vec apply(ir::BinaryOp op, const Arg& a, const Arg& b) {
    std::array<Value, N> out;
    for (int k = 0; k < N; ++k)
      out[k] = detail::vector_lane_binary(op, Operand(a.vec.lanes_[k], a.loc), Operand(b.vec.lanes_[k], a.loc),
                                          ir_type_v<T>, N);
    return Vec(out);
  }
  static Vec apply(ir::BinaryOp op, const Arg& a, const Operand& s) {
    std::array<Value, N> out;
    for (int k = 0; k < N; ++k)
      out[k] = detail::vector_lane_binary(op, Operand(a.vec.lanes_[k], a.loc), s, ir_type_v<T>, N);
    return Vec(out);
  }
  static Vec apply(ir::BinaryOp op, const Operand& s, const Arg& b) {
    std::array<Value, N> out;
    for (int k = 0; k < N; ++k)
      out[k] = detail::vector_lane_binary(op, s, Operand(b.vec.lanes_[k], b.loc), ir_type_v<T>, N);
    return Vec(out);
  }

  std::array<Value, N> lanes_;
};

/// Lane-wise conversion, with the rules of `cast<U>`: `cast<half>(v)` of a `Vec<float, 2>` is a `Vec<half, 2>`.
template <Scalar U, Scalar T, int N>
Vec<U, N> cast(const Vec<T, N>& v, std::source_location loc = std::source_location::current()) {
  std::array<Value, N> out;
  for (int k = 0; k < N; ++k) out[k] = detail::cast(ir_type_v<U>, Operand(v.lanes()[k], loc));
  return Vec<U, N>::from_lanes(out);
}

}  // namespace rocjit::dsl
