// Kernel-side built-ins: work-item queries, math functions and atomics.
#pragma once

#include <array>
#include <initializer_list>
#include <source_location>

#include "rocjit/dsl/array.hpp"
#include "rocjit/dsl/value.hpp"

namespace rocjit::dsl {

/// Work-item geometry, all i32. Dimensions 0..2 (x, y, z).
///@{
Int local_id(int dim, std::source_location loc = std::source_location::current());
Int group_id(int dim, std::source_location loc = std::source_location::current());
Int local_size(int dim, std::source_location loc = std::source_location::current());
Int num_groups(int dim, std::source_location loc = std::source_location::current());
Int global_id(int dim, std::source_location loc = std::source_location::current());
Int global_size(int dim, std::source_location loc = std::source_location::current());
///@}

/// The absolute position of the work-item in an N-dimensional grid, like Numba's cuda.grid(n).
template <int N>
std::array<Int, N> grid(std::source_location loc = std::source_location::current()) {
  static_assert(N >= 1 && N <= 3, "grid<N>() takes 1, 2 or 3 dimensions");
  if constexpr (N == 1) return {global_id(0, loc)};
  else if constexpr (N == 2) return {global_id(0, loc), global_id(1, loc)};
  else return {global_id(0, loc), global_id(1, loc), global_id(2, loc)};
}

/// (a + b - 1) / b for integers.
Value ceil_div(const Operand& a, const Operand& b);

/// Floating-point math (f32 or f64; integer operands are an error, literals adapt).
///@{
Value sqrt(const Operand& x);
Value rsqrt(const Operand& x);
Value exp(const Operand& x);
Value exp2(const Operand& x);
Value log(const Operand& x);
Value log2(const Operand& x);
Value sin(const Operand& x);
Value cos(const Operand& x);
Value tan(const Operand& x);
Value pow(const Operand& x, const Operand& y);
Value fma(const Operand& a, const Operand& b, const Operand& c);
Value fabs(const Operand& x);
Value floor(const Operand& x);
Value ceil(const Operand& x);
Value fmin(const Operand& a, const Operand& b);
Value fmax(const Operand& a, const Operand& b);
///@}
/// Integer (and float) min/max/abs.
///@{
Value min(const Operand& a, const Operand& b);
Value max(const Operand& a, const Operand& b);
Value abs(const Operand& x);
///@}

// Atomic read-modify-write on a global or shared array element; each returns the old value.
// The index is one operand for 1-D arrays or a braced list {i, j} for 2-D and 3-D.
namespace atomic {
/// An index into a 2-D or 3-D array: a braced list {i, j} or {i, j, k}.
using Index = std::initializer_list<Operand>;
/// Atomically combines element `i` of `a` with `v` (add, sub, min, max, and, or, xor, or replaces it); returns the old value.
///@{
Value add(const ArrayRef& a, const Operand& i, const Operand& v);
Value add(const ArrayRef& a, Index i, const Operand& v);
Value sub(const ArrayRef& a, const Operand& i, const Operand& v);
Value sub(const ArrayRef& a, Index i, const Operand& v);
Value min(const ArrayRef& a, const Operand& i, const Operand& v);
Value min(const ArrayRef& a, Index i, const Operand& v);
Value max(const ArrayRef& a, const Operand& i, const Operand& v);
Value max(const ArrayRef& a, Index i, const Operand& v);
Value and_(const ArrayRef& a, const Operand& i, const Operand& v);
Value and_(const ArrayRef& a, Index i, const Operand& v);
Value or_(const ArrayRef& a, const Operand& i, const Operand& v);
Value or_(const ArrayRef& a, Index i, const Operand& v);
Value xor_(const ArrayRef& a, const Operand& i, const Operand& v);
Value xor_(const ArrayRef& a, Index i, const Operand& v);
Value exchange(const ArrayRef& a, const Operand& i, const Operand& v);
Value exchange(const ArrayRef& a, Index i, const Operand& v);
///@}
/// Stores `desired` if the element equals `expected`; returns the old value (CUDA's atomicCAS).
///@{
Value compare_exchange(const ArrayRef& a, const Operand& i, const Operand& expected, const Operand& desired);
Value compare_exchange(const ArrayRef& a, Index i, const Operand& expected, const Operand& desired);
///@}
}  // namespace atomic

}  // namespace rocjit::dsl
