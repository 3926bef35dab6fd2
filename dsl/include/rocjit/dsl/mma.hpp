// Matrix-core operations: a wave's fragments of matrix tiles and their multiply-accumulate.
//
//   constexpr mma::Shape S{16, 16, 16};
//   mma::A<half> a(S);  mma::B<half> b(S);  mma::Accumulator<float> acc(S, 0.0f);
//   For(0, K, 16, [&](Int k) {
//     mma::load(a, A, row0, k);  mma::load(b, B, k, col0);  mma::mma(acc, a, b);
//   });
//   mma::store(C, row0, col0, acc);
//
// mma::xf32 as A's and B's type (mma::A<mma::xf32>, 16x16x8 and 32x32x4) takes float arrays and a
// float accumulator and multiplies the inputs cut to xf32 precision (ir::mma::to_xf32).
//
// Every operation here is collective over the wave: all 64 lanes take part (work-groups are whole
// 64-lane waves; the uniformity rule rejects mma under lane-divergent control). Fragments are
// mutable like Var. The layout of a fragment over the lanes, the shapes, the native instructions
// per target and the numerics are in rocjit/compiler/mma.hpp and the README's "mma" section.
#pragma once

#include <concepts>
#include <source_location>
#include <vector>

#include "rocjit/compiler/mma.hpp"
#include "rocjit/compiler/target.hpp"
#include "rocjit/dsl/array.hpp"
#include "rocjit/dsl/value.hpp"

namespace rocjit::dsl::mma {

/// m x n += (m x k) . (k x n); trace-time constants.
using Shape = ir::mma::Shape;

/// The input "type" xf32: A and B fragments of float values that mma multiplies cut to xf32
/// (f32's exponent, 10 fraction bits; ir::mma::to_xf32). `mma::A<mma::xf32>`,
/// `mma::B<mma::xf32>` with an `Accumulator<float>`; shapes 16x16x8 and 32x32x4. Loads, stores
/// and element access see the float values as they are; the cut happens in mma.
struct xf32 {};

namespace detail {
/// A fragment's element type and the precision mma multiplies it at, for an input type T.
///@{
template <class T>
struct InputTraits {
  static constexpr ir::Type type = ir_type_v<T>;
  static constexpr ir::mma::Precision precision = ir::mma::Precision::full;
};
template <>
struct InputTraits<xf32> {
  static constexpr ir::Type type = ir::Type::f32;
  static constexpr ir::mma::Precision precision = ir::mma::Precision::xf32;
};
///@}
/// The types A and B fragments take: the scalars, and mma::xf32.
template <class T>
concept Input = Scalar<T> || std::same_as<T, xf32>;

/// Which tile a fragment holds.
enum class Role : uint8_t { a, b, c };

/// The untyped fragment: one variable per element a lane holds. Fragments move but do not copy:
/// a copy would name the same variables (Var's copy makes a new one), so that is not offered.
class Fragment {
 public:
  Fragment(const Fragment&) = delete;
  Fragment& operator=(const Fragment&) = delete;
  Fragment(Fragment&&) = default;
  Fragment& operator=(Fragment&&) = default;
  /// The shape it belongs to.
  Shape shape() const { return shape_; }
  /// Its element type.
  ir::Type type() const { return type_; }
  /// The precision mma multiplies it at (xf32 for A<xf32> and B<xf32>).
  ir::mma::Precision precision() const { return precision_; }
  /// Elements each lane holds.
  unsigned size() const { return static_cast<unsigned>(slots_.size()); }
  /// Row and column in the tile of this lane's element `e` (an i32 value).
  ///@{
  Value row(unsigned e, std::source_location loc = std::source_location::current()) const;
  Value col(unsigned e, std::source_location loc = std::source_location::current()) const;
  ///@}
  /// This lane's element `e`.
  Value get(unsigned e, std::source_location loc = std::source_location::current()) const;
  /// This lane's element `e`, read where it is used: `C(r, c) = acc[e];`, `Value v = acc[e];`.
  struct Element {
    const Fragment* fragment;
    unsigned e;
    Value load(const std::source_location& loc) const { return fragment->get(e, loc); }
  };
  Element operator[](unsigned e) const { return Element{this, e}; }
  /// Sets this lane's element `e` (converted as a Var<T> assignment would).
  void set(unsigned e, const Operand& v);
  /// Sets every element of every lane.
  void fill(const Operand& v);

  // Internal: the variables, for load, store and mma.
  const std::vector<uint32_t>& slots() const { return slots_; }
  Role role() const { return role_; }
  uint64_t trace() const { return trace_; }
  const Value& lane() const { return lane_; }

 protected:
  Fragment(Role role, Shape s, ir::Type type, const std::source_location& loc,
           ir::mma::Precision precision = ir::mma::Precision::full);

 private:
  void check_element(unsigned e, const std::source_location& loc) const;
  Role role_;
  Shape shape_;
  ir::Type type_;
  ir::mma::Precision precision_ = ir::mma::Precision::full;
  uint64_t trace_ = 0;
  Value lane_;  // the work-item's fragment lane (linear local id % 64), computed where declared
  std::vector<uint32_t> slots_;
};

void load(Fragment& f, const ArrayRef& array, const Operand& row0, const Operand& col0, const std::source_location& loc);
void store(const ArrayRef& array, const Operand& row0, const Operand& col0, const Fragment& f,
           const std::source_location& loc);
void mma(Fragment& c, const Fragment& a, const Fragment& b, const std::source_location& loc);
std::vector<Shape> shapes(ir::Type input, ir::Type accumulator, const Target& target, ir::mma::Precision precision);
}  // namespace detail

/// The wave's fragment of an m x k tile of A (T a scalar type, or mma::xf32: float elements).
template <detail::Input T>
class A : public detail::Fragment {
 public:
  /// A fragment for shape `s`; load() or set() gives it its elements.
  explicit A(Shape s, std::source_location loc = std::source_location::current())
      : Fragment(detail::Role::a, s, detail::InputTraits<T>::type, loc, detail::InputTraits<T>::precision) {}
};
/// The wave's fragment of a k x n tile of B (T a scalar type, or mma::xf32: float elements).
template <detail::Input T>
class B : public detail::Fragment {
 public:
  /// A fragment for shape `s`; load() or set() gives it its elements.
  explicit B(Shape s, std::source_location loc = std::source_location::current())
      : Fragment(detail::Role::b, s, detail::InputTraits<T>::type, loc, detail::InputTraits<T>::precision) {}
};
/// The wave's fragment of an m x n accumulator tile, every element set to `init`.
template <Scalar T>
class Accumulator : public detail::Fragment {
 public:
  /// A fragment for shape `s`, every element `init` (converted as a Var<T> assignment would).
  Accumulator(Shape s, const Operand& init, std::source_location loc = std::source_location::current())
      : Fragment(detail::Role::c, s, ir_type_v<T>, loc) {
    fill(init);
  }
  /// A fragment for shape `s`, every element 0.
  explicit Accumulator(Shape s, std::source_location loc = std::source_location::current())
      : Accumulator(s, Operand(0, loc), loc) {}
};

/// Reads fragment `f` from the tile of the 2-D `array` whose top-left element is (row0, col0):
/// f's tile is array[row0 .. row0 + rows, col0 .. col0 + cols]. Any layout, global or shared.
inline void load(detail::Fragment& f, const ArrayRef& array, const Operand& row0, const Operand& col0,
                 std::source_location loc = std::source_location::current()) {
  detail::load(f, array, row0, col0, loc);
}
/// Writes accumulator `c` to array[row0 .. row0 + m, col0 .. col0 + n].
inline void store(const ArrayRef& array, const Operand& row0, const Operand& col0, const detail::Fragment& c,
                  std::source_location loc = std::source_location::current()) {
  detail::store(array, row0, col0, c, loc);
}
/// c += a . b over the wave (the target's matrix-core instruction where it has one).
inline void mma(detail::Fragment& c, const detail::Fragment& a, const detail::Fragment& b,
                std::source_location loc = std::source_location::current()) {
  detail::mma(c, a, b, loc);
}
/// The shapes `target` computes with matrix-core instructions for inputs I and accumulators C
/// (every defined shape works on every target; the others are computed from ordinary operations).
/// I may be mma::xf32: `shapes<mma::xf32, float>(target)`.
template <detail::Input I, Scalar C>
std::vector<Shape> shapes(const Target& target) {
  return detail::shapes(detail::InputTraits<I>::type, ir_type_v<C>, target, detail::InputTraits<I>::precision);
}

}  // namespace rocjit::dsl::mma
