/// \file
/// The IR's semantics that several executors must follow exactly, each written once here:
/// the order in which wave reductions and scans combine lanes, float min/max, and which 16-bit
/// float operations are computed through f32.
///
/// Who follows each definition (and so what a difference between executors means):
/// - the reference interpreter (compiler/ir/interpret.cpp) runs reduce_tree()/scan_tree() with
///   its own arithmetic on bit patterns and calls minimum_number()/maximum_number();
/// - the CPU backend (compiler/targets/host/lower.cpp) emits the same trees as LLVM IR loops over
///   a wave's lanes, inline in the kernel, following wave_rule() and tree_distances(); the AMDGPU
///   lowering (compiler/targets/amdgpu/lower.cpp) emits them with cross-lane reads. Both combine
///   lanes through KernelLowering::binary_of, whose float min/max is LLVM's minimumnum/maximumnum
///   (the definition below, which tests/unit/semantics_tests.cpp checks against it);
/// - 16-bit floats: passes::legalize_types rewrites what computes_through_f32() names into f32
///   operations between casts for both LLVM backends; the interpreter evaluates the same rule on
///   its own (compiler/ir/float16.cpp rounds).
/// The executors share these rules, not their arithmetic: the interpreter, the CPU and the
/// simulated processors stay independent implementations that the differential tests compare.
#pragma once

#include <cmath>
#include <cstdint>

#include "rocjit/compiler/ir.hpp"

namespace rocjit::ir::semantics {

/// The shape of a wave op's computation.
enum class WaveForm : uint8_t {
  move,        ///< shuffle, shuffle_xor/up/down, broadcast: lane l reads lane shuffle_source(l)
  read_first,  ///< every lane gets lane 0's value
  vote,        ///< ballot, any, all, count: over the bits of the active lanes' booleans
  reduce,      ///< reduce_*: reduce_tree(), lane 0's result to every lane
  scan,        ///< inclusive/exclusive_scan_add: scan_tree(); exclusive shifts it by one lane
};

/// What one wave op computes.
struct WaveRule {
  WaveForm form;            ///< how
  BinaryOp combine;         ///< reduce and scan: the binary op that combines two lanes' partials
  bool exclusive = false;   ///< scan: lane l gets the combination of lanes 0 .. l - 1 (lane 0: zero)
};

/// The rule of `op`. Exhaustive over WaveOp (no default: a new member fails to compile here).
constexpr WaveRule wave_rule(WaveOp op) {
  using W = WaveOp;
  switch (op) {
    case W::shuffle: case W::shuffle_xor: case W::shuffle_up: case W::shuffle_down: case W::broadcast:
      return {WaveForm::move, BinaryOp::add};
    case W::read_first: return {WaveForm::read_first, BinaryOp::add};
    case W::ballot: case W::any: case W::all: case W::count: return {WaveForm::vote, BinaryOp::or_};
    case W::reduce_add: return {WaveForm::reduce, BinaryOp::add};
    case W::reduce_min: return {WaveForm::reduce, BinaryOp::min};
    case W::reduce_max: return {WaveForm::reduce, BinaryOp::max};
    case W::reduce_and: return {WaveForm::reduce, BinaryOp::and_};
    case W::reduce_or: return {WaveForm::reduce, BinaryOp::or_};
    case W::reduce_xor: return {WaveForm::reduce, BinaryOp::xor_};
    case W::inclusive_scan_add: return {WaveForm::scan, BinaryOp::add, false};
    case W::exclusive_scan_add: return {WaveForm::scan, BinaryOp::add, true};
  }
  return {WaveForm::move, BinaryOp::add};
}

/// The lane a move op's lane `lane` reads, given its lane operand `x` (broadcast: x itself). A
/// source outside the active lanes [0, active) reads the lane's own value.
constexpr int64_t shuffle_source(WaveOp op, int64_t lane, int64_t x) {
  switch (op) {
    case WaveOp::shuffle_xor: return lane ^ x;
    case WaveOp::shuffle_up: return lane - x;
    case WaveOp::shuffle_down: return lane + x;
    case WaveOp::read_first: return 0;
    case WaveOp::shuffle: case WaveOp::broadcast: case WaveOp::ballot: case WaveOp::any: case WaveOp::all:
    case WaveOp::count: case WaveOp::reduce_add: case WaveOp::reduce_min: case WaveOp::reduce_max:
    case WaveOp::reduce_and: case WaveOp::reduce_or: case WaveOp::reduce_xor: case WaveOp::inclusive_scan_add:
    case WaveOp::exclusive_scan_add:
      return x;
  }
  return x;
}

/// The distances of the tree's steps for a wave of `width` lanes: 1, 2, 4, ... below `width`.
/// Step k of a reduction: every lane l with l + k active sets p[l] = combine(p[l], p[l + k]), all
/// from the previous step's partials. Step k of a scan: every lane l >= k sets
/// p[l] = combine(p[l - k], p[l]) (Hillis-Steele). The order of the operands is part of the rule
/// (it decides which NaN payload or which zero a float op returns).
constexpr unsigned tree_steps(unsigned width) {
  unsigned n = 0;
  for (unsigned k = 1; k < width; k <<= 1) ++n;
  return n;
}

/// reduce_tree: the reduction of the partials p[0 .. active) of a wave of `width` lanes, in the
/// tree order above; p is overwritten (lane 0 ends with the result, which is returned). For
/// integers the order does not change the result; for floats it does, and every executor uses it.
template <class V, class Combine>
V reduce_tree(V* p, unsigned active, unsigned width, Combine combine) {
  // Only the lanes that are multiples of 2k feed lane 0 at step k (the others' partials are never
  // read again); each reads lane l + k, which this step has not updated.
  for (unsigned k = 1; k < width; k <<= 1)
    for (unsigned l = 0; l + k < active; l += 2 * k) p[l] = combine(p[l], p[l + k]);
  return p[0];
}

/// scan_tree: the inclusive scan of p[0 .. active) in the tree order above, in place.
template <class V, class Combine>
void scan_tree(V* p, unsigned active, unsigned width, Combine combine) {
  // Descending l: lane l reads lane l - k before that lane is updated in this step.
  for (unsigned k = 1; k < width; k <<= 1)
    for (unsigned l = active; l-- > k;) p[l] = combine(p[l - k], p[l]);
}

/// IEEE 754-2019 minimumNumber: a NaN operand is ignored (two NaNs give NaN) and -0 < +0. What
/// BinaryOp::min, MathFn::fmin and reduce_min compute on floats (LLVM's llvm.minimumnum).
template <class F>
F minimum_number(F x, F y) {
  if (std::isnan(x)) return y;
  if (std::isnan(y)) return x;
  if (x == y) return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

/// IEEE 754-2019 maximumNumber: a NaN operand is ignored and +0 > -0 (llvm.maximumnum).
template <class F>
F maximum_number(F x, F y) {
  if (std::isnan(x)) return y;
  if (std::isnan(y)) return x;
  if (x == y) return std::signbit(x) ? y : x;
  return x > y ? x : y;
}

/// The 16-bit float rule: an operation on f16 or bf16 is the f32 operation on the exactly widened
/// operands, rounded once (to nearest even) to the 16-bit type; fma rounds once from the exact
/// a * b + c. Whether `op` (a binary or math op whose result is a 16-bit float) must be computed
/// through f32 by a backend: everything but f16 binary ops and 16-bit fma, which x86 and AMDGPU
/// compute natively with exactly that rounding (for f16 +, -, *, / the f32 result rounded to f16 is
/// the correctly rounded f16 result). passes::legalize_types rewrites by it.
inline bool computes_through_f32(const Op& op) {
  if (op.kind == OpKind::binary) return op.type != Type::f16;
  return !(op.kind == OpKind::math && op.math_fn() == MathFn::fma);
}

}  // namespace rocjit::ir::semantics
