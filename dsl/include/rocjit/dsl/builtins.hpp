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

/// The number of dimensions of the launch grid, as OpenCL's get_work_dim(): 3 when the grid has
/// more than one work-item along z (global_size(2) > 1), else 2 when it has more than one along y,
/// else 1. rocjit's launch configuration (Dim3) does not record how many extents were written, so
/// a launch `{{n, 1}, {64, 1}}` counts as 1-D. Computed from global_size(1) and global_size(2), so
/// it is the same on every target and uniform across the grid.
Int work_dim(std::source_location loc = std::source_location::current());

/// The work-item's lane in its wavefront (0 .. wave_size() - 1) and the wavefront size, a
/// constant of the compiled target: 64 on gfx9, 32 on gfx10+ (64 with +wavefrontsize64), and
/// rocjit::host_wave_size on the CPU. Lanes are consecutive linear local ids (x fastest).
///@{
Int lane_id(std::source_location loc = std::source_location::current());
Int wave_size(std::source_location loc = std::source_location::current());
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

/// Floating-point math as in C's <math.h> (f32 or f64; integer operands are an error, literals adapt).
/// Accuracy per function and target: the README's table, measured by tests/accuracy.
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
Value asin(const Operand& x);
Value acos(const Operand& x);
Value atan(const Operand& x);
Value atan2(const Operand& y, const Operand& x);
Value sinh(const Operand& x);
Value cosh(const Operand& x);
Value tanh(const Operand& x);
Value asinh(const Operand& x);
Value acosh(const Operand& x);
Value atanh(const Operand& x);
Value exp10(const Operand& x);
Value expm1(const Operand& x);
Value log10(const Operand& x);
Value log1p(const Operand& x);
Value cbrt(const Operand& x);
Value hypot(const Operand& x, const Operand& y);
Value erf(const Operand& x);
Value erfc(const Operand& x);
Value tgamma(const Operand& x);
Value lgamma(const Operand& x);  ///< log |Γ(x)| (the sign is not returned)
Value fmod(const Operand& x, const Operand& y);
Value remainder(const Operand& x, const Operand& y);
Value trunc(const Operand& x);
Value round(const Operand& x);  ///< halfway cases away from zero
Value rint(const Operand& x);   ///< halfway cases to even
Value copysign(const Operand& x, const Operand& y);
Value nextafter(const Operand& x, const Operand& y);
///@}
/// x * 2^n: x a float, n an integer converted to i32.
Value ldexp(const Operand& x, const Operand& n);
/// Classification of a float, as bool: NaN, ±infinity, neither, and whether the sign bit is set
/// (signbit(-0.0) and signbit(-NaN) are true).
///@{
Value isnan(const Operand& x);
Value isinf(const Operand& x);
Value isfinite(const Operand& x);
Value signbit(const Operand& x);
///@}
/// Integer bit functions, in the operand's type (literals adapt): the number of set bits, of
/// leading and trailing zero bits (the width for 0), the bits in reverse order, rotations by n
/// modulo the width, and the high half of the double-width product a * b (signed or unsigned as
/// the type), like CUDA's __mulhi / __umul64hi.
///@{
Value popcount(const Operand& x);
Value clz(const Operand& x);
Value ctz(const Operand& x);
Value bitreverse(const Operand& x);
Value rotl(const Operand& x, const Operand& n);
Value rotr(const Operand& x, const Operand& n);
Value mul_hi(const Operand& a, const Operand& b);
///@}
/// Integer (and float) min/max/abs.
///@{
Value min(const Operand& a, const Operand& b);
Value max(const Operand& a, const Operand& b);
Value abs(const Operand& x);
///@}

/// Wave operations: every lane of the wavefront takes part, so, like barriers, they must be in
/// work-group-uniform control flow (checked when the kernel is traced). A wave of a group whose
/// size is not a multiple of the wave size has fewer lanes; lanes past its end do not exist.
namespace wave {
/// `v` from lane `src` (shuffle), lane ^ mask, lane - delta, lane + delta, or lane `lane`
/// (broadcast). A source lane outside the wave gives the lane its own `v`. Any number type.
///@{
Value shuffle(const Operand& v, const Operand& src, std::source_location loc = std::source_location::current());
Value shuffle_xor(const Operand& v, const Operand& mask, std::source_location loc = std::source_location::current());
Value shuffle_up(const Operand& v, const Operand& delta, std::source_location loc = std::source_location::current());
Value shuffle_down(const Operand& v, const Operand& delta, std::source_location loc = std::source_location::current());
Value broadcast(const Operand& v, const Operand& lane, std::source_location loc = std::source_location::current());
///@}
/// `v` of the wave's first lane.
Value read_first(const Operand& v, std::source_location loc = std::source_location::current());
/// One bit per lane where `pred` holds (bit i = lane i; the upper 32 bits are 0 in wave32).
ULong ballot(const Operand& pred, std::source_location loc = std::source_location::current());
/// Whether `pred` holds in some / every lane of the wave, and in how many.
///@{
Bool any(const Operand& pred, std::source_location loc = std::source_location::current());
Bool all(const Operand& pred, std::source_location loc = std::source_location::current());
Int count(const Operand& pred, std::source_location loc = std::source_location::current());
///@}
/// The sum, minimum, maximum, and, or, xor of `v` over the wave, in every lane. Floats are added
/// as a tree in lane order: at step k = 1, 2, 4, ... lane l adds lane l + k's partial to its own
/// (when that lane exists), and every lane gets lane 0's result ((v0 + v1) + (v2 + v3)) + ...:
/// the same bits on every target of the same wave size. min/max follow fmin/fmax (NaN ignored,
/// -0 < +0); and/or/xor need integers.
///@{
Value reduce_add(const Operand& v, std::source_location loc = std::source_location::current());
Value reduce_min(const Operand& v, std::source_location loc = std::source_location::current());
Value reduce_max(const Operand& v, std::source_location loc = std::source_location::current());
Value reduce_and(const Operand& v, std::source_location loc = std::source_location::current());
Value reduce_or(const Operand& v, std::source_location loc = std::source_location::current());
Value reduce_xor(const Operand& v, std::source_location loc = std::source_location::current());
///@}
/// Prefix sums over the lanes: v0 + ... + v_lane (inclusive) or v0 + ... + v_(lane-1) (exclusive,
/// 0 in lane 0). Floats add as Hillis-Steele: at step k = 1, 2, 4, ... lane i >= k computes
/// (partial of lane i - k) + (its own partial).
///@{
Value inclusive_scan_add(const Operand& v, std::source_location loc = std::source_location::current());
Value exclusive_scan_add(const Operand& v, std::source_location loc = std::source_location::current());
///@}
}  // namespace wave

/// Memory orders and scopes of atomics and fence(), as in C++ and OpenCL 2.0:
/// memory_order::{relaxed, acquire, release, acq_rel, seq_cst} and
/// memory_scope::{wavefront, workgroup, device, system}. On AMDGPU the scopes are LLVM's sync
/// scopes "wavefront", "workgroup", "agent" and the system; atomics on shared memory never need
/// more than workgroup, so wider scopes narrow to it there.
///@{
using memory_order = ir::MemoryOrder;
using memory_scope = ir::MemoryScope;
///@}

/// Orders this work-item's memory accesses for the work-items of `scope` (no waiting):
/// release makes earlier writes visible to whoever acquires after reading a later write;
/// acquire makes later reads see what was released. The order cannot be relaxed.
void fence(memory_scope scope, memory_order order, std::source_location loc = std::source_location::current());

/// The user's promise that `x` is the same for every work-item of the group (e.g. a loop bound
/// loaded from memory), so it may govern barriers. Under ROCJIT_BOUNDS_CHECK=1 the CPU device
/// checks it where the whole group reaches it together (not under barrier-free control flow or
/// after a Return) and the launch fails naming it; GPU code checks it per wave, and across the
/// group where the whole group reaches it, and traps when it is broken.
Value uniform(const Operand& x);

// Atomics on a global or shared array element; read-modify-writes return the old value.
// The index is one operand for 1-D arrays or a braced list {i, j} for 2-D and 3-D. Each takes an
// optional order and scope (default relaxed, device: the atomicity of HIP's atomicAdd).
namespace atomic {
/// An index into a 2-D or 3-D array: a braced list {i, j} or {i, j, k}.
using Index = std::initializer_list<Operand>;
/// Atomically combines element `i` of `a` with `v` (add, sub, min, max, and, or, xor, or replaces it); returns the old value.
///@{
#define ROCJIT_ATOMIC_DECL(NAME)                                                                   \
  Value NAME(const ArrayRef& a, const Operand& i, const Operand& v, memory_order o = memory_order::relaxed, \
             memory_scope s = memory_scope::device);                                               \
  Value NAME(const ArrayRef& a, Index i, const Operand& v, memory_order o = memory_order::relaxed, \
             memory_scope s = memory_scope::device);
ROCJIT_ATOMIC_DECL(add)
ROCJIT_ATOMIC_DECL(sub)
ROCJIT_ATOMIC_DECL(min)
ROCJIT_ATOMIC_DECL(max)
ROCJIT_ATOMIC_DECL(and_)
ROCJIT_ATOMIC_DECL(or_)
ROCJIT_ATOMIC_DECL(xor_)
ROCJIT_ATOMIC_DECL(exchange)
#undef ROCJIT_ATOMIC_DECL
///@}
/// Stores `desired` if the element equals `expected`; returns the old value (CUDA's atomicCAS).
/// On failure the order keeps only its acquire part.
///@{
Value compare_exchange(const ArrayRef& a, const Operand& i, const Operand& expected, const Operand& desired,
                       memory_order o = memory_order::relaxed, memory_scope s = memory_scope::device);
Value compare_exchange(const ArrayRef& a, Index i, const Operand& expected, const Operand& desired,
                       memory_order o = memory_order::relaxed, memory_scope s = memory_scope::device);
///@}
/// Atomic read of element `i` (order relaxed, acquire or seq_cst), e.g. to spin on a flag.
///@{
Value load(const ArrayRef& a, const Operand& i, memory_order o = memory_order::relaxed,
           memory_scope s = memory_scope::device);
Value load(const ArrayRef& a, Index i, memory_order o = memory_order::relaxed, memory_scope s = memory_scope::device);
///@}
/// Atomic write of `v` to element `i` (order relaxed, release or seq_cst).
///@{
void store(const ArrayRef& a, const Operand& i, const Operand& v, memory_order o = memory_order::relaxed,
           memory_scope s = memory_scope::device);
void store(const ArrayRef& a, Index i, const Operand& v, memory_order o = memory_order::relaxed,
           memory_scope s = memory_scope::device);
///@}
}  // namespace atomic

}  // namespace rocjit::dsl
