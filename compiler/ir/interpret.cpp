// The reference interpreter (rocjit/compiler/interpret.hpp): the executable specification of
// rocjit IR. Meant to be read: every rule of the README's "Semantics" table is one small function
// below, written from the rule, not from the LLVM lowering.
//
// Design. Work-groups run one after another. Barriers are only allowed in work-group-uniform
// control flow (passes::check's uniformity rule), so a work-group's execution is a sequence of
// phases separated by barriers, and within a phase the work-items do not synchronise at all.
// Each work-item therefore gets an explicit interpreter state: its values (one 64-bit cell per
// SSA value), variables, local arrays and a stack of frames (region, next op, what ends the
// region: an If branch, a For body, a While condition or body). run_until_barrier() executes one
// work-item's ops until it reaches a barrier (leaving its frames just after it) or the end of the
// kernel. The group loop runs every work-item up to its next barrier, in order of linear local
// id, checks that all of them stopped at the same barrier op (or all ended), and repeats. Wave
// operations and wavebarriers need only their wave: when the group is not together, each wave
// whose lanes all stopped at the same wave-scope op runs it and goes on (wave-uniform control
// that differs between waves), while the others wait. No
// threads, no coroutines: a barrier is simply "return from run_until_barrier()", and the frame
// stack makes resuming inside nested loops trivial.
//
// Values are stored as uint64_t bit patterns (a vector's lanes one per cell of Item::lanes),
// normalised to their type: integers of 32 bits and i1 zero-extended (i1 is 0 or 1), f32 as the
// 32 bits of the float, f64 as its 64 bits, f16 and bf16 as their 16 bits. Arithmetic on f16 and bf16 is computed in float and rounded once to
// nearest even (correctly rounded: float has more than twice their precision plus two bits);
// fma rounds once from the exact result (narrow_fma).
#include "rocjit/compiler/interpret.hpp"
#include "rocjit/compiler/mma.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include "rocjit/compiler/passes.hpp"
#include "rocjit/compiler/semantics.hpp"
#include "rocjit/support/settings.h"
#include "rocjit/compiler/device_print.hpp"
#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/verifier.hpp"

namespace rocjit {
namespace {

using ir::MemorySpace;
using ir::Op;
using ir::OpKind;
using ir::Type;
using Bits = uint64_t;

// --- Values ----------------------------------------------------------------------------------

unsigned width(Type t) { return ir::bit_width(t); }

// The low `width(t)` bits of v.
Bits normalise(Type t, Bits v) {
  unsigned w = width(t);
  return w >= 64 ? v : v & ((Bits{1} << w) - 1);
}

// v read as a signed number of t's width.
int64_t sext(Type t, Bits v) {
  unsigned w = width(t);
  if (w >= 64) return static_cast<int64_t>(v);
  Bits sign = Bits{1} << (w - 1);
  return static_cast<int64_t>((normalise(t, v) ^ sign) - sign);
}

// v extended to 64 bits the way its type extends: sign for i32/i64, zero for u32/u64/i1.
int64_t extend(Type t, Bits v) { return ir::is_signed(t) ? sext(t, v) : static_cast<int64_t>(normalise(t, v)); }

float f32(Bits v) { return std::bit_cast<float>(static_cast<uint32_t>(v)); }
double f64(Bits v) { return std::bit_cast<double>(v); }
Bits bits(float f) { return std::bit_cast<uint32_t>(f); }
Bits bits(double d) { return std::bit_cast<uint64_t>(d); }

bool narrow(Type t) { return ir::is_float(t) && t.bits == 16; }
// An f16/bf16 value (exact in float) and a double rounded once to f16/bf16.
float narrow_value(Type t, Bits v) {
  return t == Type::f16 ? detail::half_value(static_cast<uint16_t>(v)) : detail::bfloat16_value(static_cast<uint16_t>(v));
}
Bits narrow_bits(Type t, double x) { return t == Type::f16 ? detail::half_bits(x) : detail::bfloat16_bits(x); }
// A float value of any float type as f32 bits (exact for f16 and bf16), so the f32 rules apply.
Bits as_f32(Type t, Bits v) { return narrow(t) ? bits(narrow_value(t, v)) : v; }

// fma on f16/bf16, rounded once: the double product is exact, the double sum is made
// round-to-odd from its exact error (TwoSum), so the final rounding is correct (the lowering's
// KernelLowering::bfloat_fma is the same algorithm).
Bits narrow_fma(Type t, double x, double y, double z) {
  const double p = x * y, sum = p + z;
  const double v = sum - p;
  const double err = (p - (sum - v)) + (z - v);
  double odd = sum;
  uint64_t u = std::bit_cast<uint64_t>(sum);
  if (err != 0 && (u & 1) == 0) odd = std::bit_cast<double>((std::signbit(err) == std::signbit(sum)) ? u + 1 : u - 1);
  return narrow_bits(t, odd);
}

// glibc's exp10 (C23), in the operand's precision.
float exp10_of(float x) { return ::exp10f(x); }
double exp10_of(double x) { return ::exp10(x); }

// Applies f to the operands as float or double (per t) and returns the result's bits.
template <class F>
Bits float_op(Type t, F&& f, Bits a, Bits b = 0, Bits c = 0) {
  if (t == Type::f32) return bits(static_cast<float>(f(f32(a), f32(b), f32(c))));
  if (narrow(t))
    return narrow_bits(t, static_cast<float>(f(narrow_value(t, a), narrow_value(t, b), narrow_value(t, c))));
  return bits(static_cast<double>(f(f64(a), f64(b), f64(c))));
}

// --- The semantics table, one function per rule ------------------------------------------------

// Integer division: x / 0 = 0, INT_MIN / -1 = INT_MIN (the wrapped -x), otherwise C++'s
// truncating division. Remainder: x % 0 = x, x % -1 = 0, otherwise C++'s remainder.
Bits divide(Type t, Bits a, Bits b, bool remainder) {
  if (normalise(t, b) == 0) return remainder ? normalise(t, a) : 0;
  if (ir::is_signed(t)) {
    int64_t x = sext(t, a), y = sext(t, b);
    if (y == -1) return remainder ? 0 : normalise(t, Bits{0} - static_cast<Bits>(x));
    return normalise(t, static_cast<Bits>(remainder ? x % y : x / y));
  }
  Bits x = normalise(t, a), y = normalise(t, b);
  return remainder ? x % y : x / y;
}

// Shift amounts are taken modulo the bit width; >> is arithmetic for signed types.
Bits shift(Type t, Bits a, Bits b, bool left) {
  unsigned amount = static_cast<unsigned>(normalise(t, b) % width(t));
  if (left) return normalise(t, normalise(t, a) << amount);
  if (ir::is_signed(t)) return normalise(t, static_cast<Bits>(sext(t, a) >> amount));
  return normalise(t, a) >> amount;
}

// Float -> integer: rounds toward zero, saturates to the type's range, NaN -> 0. The bounds are
// powers of two, exact in f32 and f64.
template <class F>
Bits float_to_int(Type to, F x) {
  if (std::isnan(x)) return 0;
  unsigned w = width(to);
  F t = std::trunc(x);
  if (ir::is_signed(to)) {
    F limit = std::ldexp(F(1), static_cast<int>(w) - 1);  // 2^(w-1)
    if (t >= limit) return normalise(to, static_cast<Bits>(std::numeric_limits<int64_t>::max() >> (64 - w)));
    if (t < -limit) return normalise(to, static_cast<Bits>(std::numeric_limits<int64_t>::min() >> (64 - w)));
    return normalise(to, static_cast<Bits>(static_cast<int64_t>(t)));
  }
  F limit = std::ldexp(F(1), static_cast<int>(w));  // 2^w
  if (t >= limit) return normalise(to, ~Bits{0});
  if (t <= F(0)) return 0;
  return static_cast<Bits>(t);
}

Bits cast(Type from, Type to, Bits a) {
  if (from == to) return a;
  if (narrow(to) && to != Type::i1) {  // rounded once from the exact source value
    if (ir::is_float(from)) return narrow_bits(to, from == Type::f64 ? f64(a) : f32(as_f32(from, a)));
    if (ir::is_signed(from)) return to == Type::f16 ? detail::half_bits(sext(from, a)) : detail::bfloat16_bits(sext(from, a));
    const uint64_t u = normalise(from, a);
    return to == Type::f16 ? detail::half_bits(u) : detail::bfloat16_bits(u);
  }
  if (narrow(from)) {  // exact in f32
    a = as_f32(from, a);
    from = Type::f32;
    if (from == to) return a;
  }
  if (to == Type::i1) return ir::is_float(from) ? (from == Type::f32 ? f32(a) != 0.0f : f64(a) != 0.0) : normalise(from, a) != 0;
  if (ir::is_float(from) && ir::is_float(to))
    return to == Type::f32 ? bits(static_cast<float>(f64(a))) : bits(static_cast<double>(f32(a)));
  if (ir::is_float(from)) return from == Type::f32 ? float_to_int(to, f32(a)) : float_to_int(to, f64(a));
  if (ir::is_float(to)) {
    // From a signed or unsigned integer (i1 is unsigned: true -> 1.0), rounded to nearest.
    if (ir::is_signed(from)) {
      int64_t v = sext(from, a);
      return to == Type::f32 ? bits(static_cast<float>(v)) : bits(static_cast<double>(v));
    }
    Bits v = normalise(from, a);
    return to == Type::f32 ? bits(static_cast<float>(v)) : bits(static_cast<double>(v));
  }
  // Integer -> integer: extend by the source's signedness, then keep the target's width.
  return normalise(to, static_cast<Bits>(extend(from, a)));
}

bool less(Type t, Bits a, Bits b) {
  if (ir::is_signed(t)) return sext(t, a) < sext(t, b);
  return normalise(t, a) < normalise(t, b);
}

// Float min and max (binary min/max, math fmin/fmax, atomic min/max on floats) are
// ir::semantics::minimum_number/maximum_number (rocjit/compiler/semantics.hpp).
Bits binary(ir::BinaryOp o, Type t, Bits a, Bits b) {
  using B = ir::BinaryOp;
  if (ir::is_float(t)) {
    switch (o) {
      case B::add: return float_op(t, [](auto x, auto y, auto) { return x + y; }, a, b);
      case B::sub: return float_op(t, [](auto x, auto y, auto) { return x - y; }, a, b);
      case B::mul: return float_op(t, [](auto x, auto y, auto) { return x * y; }, a, b);
      case B::div: return float_op(t, [](auto x, auto y, auto) { return x / y; }, a, b);
      case B::rem: return float_op(t, [](auto x, auto y, auto) { return std::fmod(x, y); }, a, b);
      case B::min: return float_op(t, [](auto x, auto y, auto) { return ir::semantics::minimum_number(x, y); }, a, b);
      case B::max: return float_op(t, [](auto x, auto y, auto) { return ir::semantics::maximum_number(x, y); }, a, b);
      case B::and_: case B::or_: case B::xor_: case B::shl: case B::shr:
        break;  // the verifier rejects bitwise ops and shifts on floats
    }
    throw Error(fmt::format("internal error: {} on {} reached the interpreter", ir::binary_op_name(o), ir::type_name(t)));
  }
  // Integers (and i1 for and/or/xor): two's complement, wrapping.
  switch (o) {
    case B::add: return normalise(t, a + b);
    case B::sub: return normalise(t, a - b);
    case B::mul: return normalise(t, a * b);
    case B::div: return divide(t, a, b, false);
    case B::rem: return divide(t, a, b, true);
    case B::min: return less(t, b, a) ? normalise(t, b) : normalise(t, a);
    case B::max: return less(t, a, b) ? normalise(t, b) : normalise(t, a);
    case B::and_: return normalise(t, a & b);
    case B::or_: return normalise(t, a | b);
    case B::xor_: return normalise(t, a ^ b);
    case B::shl: return shift(t, a, b, true);
    case B::shr: return shift(t, a, b, false);
  }
  return 0;
}

Bits unary(ir::UnaryOp o, Type t, Bits a) {
  using U = ir::UnaryOp;
  switch (o) {
    case U::neg:
      if (narrow(t)) return a ^ 0x8000;  // the sign bit, as for every float
      if (ir::is_float(t)) return float_op(t, [](auto x, auto, auto) { return -x; }, a);
      return normalise(t, Bits{0} - a);
    case U::not_: return normalise(t, ~a);
    case U::abs:
      if (narrow(t)) return a & 0x7fff;
      if (ir::is_float(t)) return float_op(t, [](auto x, auto, auto) { return std::fabs(x); }, a);
      if (ir::is_signed(t) && sext(t, a) < 0) return normalise(t, Bits{0} - a);  // abs(INT_MIN) == INT_MIN
      return normalise(t, a);
  }
  return 0;
}

bool compare(ir::ComparePred p, Type t, Bits a, Bits b) {
  using P = ir::ComparePred;
  if (ir::is_float(t)) {
    auto cmp = [&](auto x, auto y) {
      switch (p) {
        case P::eq: return x == y;   // ordered: false with a NaN
        case P::ne: return x != y;   // unordered: true with a NaN
        case P::lt: return x < y;
        case P::le: return x <= y;
        case P::gt: return x > y;
        case P::ge: return x >= y;
      }
      return false;
    };
    if (narrow(t)) return cmp(narrow_value(t, a), narrow_value(t, b));
    return t == Type::f32 ? cmp(f32(a), f32(b)) : cmp(f64(a), f64(b));
  }
  switch (p) {
    case P::eq: return normalise(t, a) == normalise(t, b);
    case P::ne: return normalise(t, a) != normalise(t, b);
    case P::lt: return less(t, a, b);
    case P::le: return !less(t, b, a);
    case P::gt: return less(t, b, a);
    case P::ge: return !less(t, a, b);
  }
  return false;
}

// lgamma without glibc's global signgam (lgamma writes it: a data race between threads).
float lgamma_reentrant(float x) {
  int sign;
  return lgammaf_r(x, &sign);
}
double lgamma_reentrant(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

// Integer math functions on the low width(t) bits: counts of the type's width (clz(0) = ctz(0) =
// width), rotations by the amount modulo the width, the high half of the double-width product.
Bits integer_math(ir::MathFn fn, Type t, Bits a, Bits b) {
  using M = ir::MathFn;
  const unsigned w = width(t);
  const Bits x = normalise(t, a);
  switch (fn) {
    case M::popcount: return static_cast<Bits>(std::popcount(x));
    case M::clz: return static_cast<Bits>(std::countl_zero(x) - (64 - static_cast<int>(w)));
    case M::ctz: return x == 0 ? w : static_cast<Bits>(std::countr_zero(x));
    case M::bitreverse: {
      Bits r = 0;
      for (unsigned i = 0; i < w; ++i) r |= ((x >> i) & 1) << (w - 1 - i);
      return r;
    }
    case M::rotl:
    case M::rotr: {
      unsigned n = static_cast<unsigned>(normalise(t, b) % w);
      if (fn == M::rotr) n = (w - n) % w;
      return n == 0 ? x : normalise(t, (x << n) | (x >> (w - n)));
    }
    case M::mul_hi: {
      if (ir::is_signed(t)) {
        __int128 p = static_cast<__int128>(sext(t, a)) * static_cast<__int128>(sext(t, b));
        return normalise(t, static_cast<Bits>(p >> w));
      }
      unsigned __int128 p = static_cast<unsigned __int128>(x) * static_cast<unsigned __int128>(normalise(t, b));
      return normalise(t, static_cast<Bits>(p >> w));
    }
#define ROCJIT_NOT_INTEGER(name, ...) case M::name:
    ROCJIT_FLOAT_MATH_FNS(ROCJIT_NOT_INTEGER) ROCJIT_LDEXP_MATH_FNS(ROCJIT_NOT_INTEGER) break;
#undef ROCJIT_NOT_INTEGER
  }
  throw Error(fmt::format("internal error: math.{} is not an integer function", ir::math_fn_name(fn)));
}

// Math functions: the C++ library in the op's type (glibc, as the CPU back end calls it).
// rsqrt is 1 / sqrt(x), rounded twice, as the lowering defines it; fmin/fmax are min_num/max_num
// above; round is half away from zero, rint half to even.
Bits math(ir::MathFn fn, Type t, Bits a, Bits b, Bits c) {
  using M = ir::MathFn;
  switch (ir::math_fn_domain(fn)) {
    case ir::MathDomain::integer: return integer_math(fn, t, a, b);
    case ir::MathDomain::ldexp: {
      const int n = static_cast<int>(sext(Type::i32, b));
      return float_op(t, [n](auto x, auto, auto) { return std::ldexp(x, n); }, a);
    }
    case ir::MathDomain::floating: break;
  }
#define ROCJIT_UNARY(name, expr) \
  case M::name: return float_op(t, [](auto x, auto, auto) { return expr; }, a);
#define ROCJIT_BINARY(name, expr) \
  case M::name: return float_op(t, [](auto x, auto y, auto) { return expr; }, a, b);
  switch (fn) {
    ROCJIT_UNARY(sqrt, std::sqrt(x))
    ROCJIT_UNARY(rsqrt, decltype(x)(1) / std::sqrt(x))
    ROCJIT_UNARY(exp, std::exp(x))
    ROCJIT_UNARY(exp2, std::exp2(x))
    ROCJIT_UNARY(log, std::log(x))
    ROCJIT_UNARY(log2, std::log2(x))
    ROCJIT_UNARY(sin, std::sin(x))
    ROCJIT_UNARY(cos, std::cos(x))
    ROCJIT_UNARY(tan, std::tan(x))
    ROCJIT_BINARY(pow, std::pow(x, y))
    case M::fma:
      if (narrow(t)) return narrow_fma(t, narrow_value(t, a), narrow_value(t, b), narrow_value(t, c));
      return float_op(t, [](auto x, auto y, auto z) { return std::fma(x, y, z); }, a, b, c);
    ROCJIT_UNARY(fabs, std::fabs(x))
    ROCJIT_UNARY(floor, std::floor(x))
    ROCJIT_UNARY(ceil, std::ceil(x))
    ROCJIT_BINARY(fmin, ir::semantics::minimum_number(x, y))
    ROCJIT_BINARY(fmax, ir::semantics::maximum_number(x, y))
    ROCJIT_UNARY(asin, std::asin(x))
    ROCJIT_UNARY(acos, std::acos(x))
    ROCJIT_UNARY(atan, std::atan(x))
    ROCJIT_BINARY(atan2, std::atan2(x, y))
    ROCJIT_UNARY(sinh, std::sinh(x))
    ROCJIT_UNARY(cosh, std::cosh(x))
    ROCJIT_UNARY(tanh, std::tanh(x))
    ROCJIT_UNARY(asinh, std::asinh(x))
    ROCJIT_UNARY(acosh, std::acosh(x))
    ROCJIT_UNARY(atanh, std::atanh(x))
    ROCJIT_UNARY(exp10, exp10_of(x))
    ROCJIT_UNARY(expm1, std::expm1(x))
    ROCJIT_UNARY(log10, std::log10(x))
    ROCJIT_UNARY(log1p, std::log1p(x))
    ROCJIT_UNARY(cbrt, std::cbrt(x))
    ROCJIT_BINARY(hypot, std::hypot(x, y))
    ROCJIT_UNARY(erf, std::erf(x))
    ROCJIT_UNARY(erfc, std::erfc(x))
    ROCJIT_UNARY(tgamma, std::tgamma(x))
    ROCJIT_UNARY(lgamma, lgamma_reentrant(x))
    ROCJIT_BINARY(fmod, std::fmod(x, y))
    ROCJIT_BINARY(remainder, std::remainder(x, y))
    ROCJIT_UNARY(trunc, std::trunc(x))
    ROCJIT_UNARY(round, std::round(x))
    ROCJIT_UNARY(rint, std::rint(x))
    ROCJIT_BINARY(copysign, std::copysign(x, y))
    ROCJIT_BINARY(nextafter, std::nextafter(x, y))
#define ROCJIT_NOT_FLOAT(name, ...) case M::name:
    ROCJIT_INTEGER_MATH_FNS(ROCJIT_NOT_FLOAT) ROCJIT_LDEXP_MATH_FNS(ROCJIT_NOT_FLOAT) break;  // by domain above
#undef ROCJIT_NOT_FLOAT
  }
#undef ROCJIT_UNARY
#undef ROCJIT_BINARY
  throw Error(fmt::format("internal error: math.{} reached the float functions", ir::math_fn_name(fn)));
}

// For loops. The step's bits read as a signed number give the direction: a positive step counts
// up while i < end, any other step counts down while i > end (comparisons in the counter's
// type). The loop ends where i + step would overflow the counter's type (signed types) or leave
// 0..2^w-1 (unsigned types, the step being a signed amount): the counter never wraps.
bool for_runs(Type t, Bits i, Bits end, Bits step) {
  return sext(t, step) > 0 ? less(t, i, end) : less(t, end, i);
}
bool for_step(Type t, Bits i, Bits step, Bits& next) {
  if (ir::is_signed(t)) {
    int64_t a = sext(t, i), s = sext(t, step), sum = 0;
    if (__builtin_add_overflow(a, s, &sum)) return false;
    if (sum != sext(t, static_cast<Bits>(sum))) return false;  // overflows 32 bits
    next = normalise(t, static_cast<Bits>(sum));
    return true;
  }
  next = normalise(t, i + step);
  bool wrapped = sext(t, step) > 0 ? next < normalise(t, i) : next > normalise(t, i);
  return !wrapped;
}

Bits atomic_update(ir::AtomicOp o, Type t, Bits old, Bits v, Bits desired) {
  using A = ir::AtomicOp;
  switch (o) {
    case A::add: return binary(ir::BinaryOp::add, t, old, v);
    case A::sub: return binary(ir::BinaryOp::sub, t, old, v);
    case A::min: return binary(ir::BinaryOp::min, t, old, v);
    case A::max: return binary(ir::BinaryOp::max, t, old, v);
    case A::and_: return binary(ir::BinaryOp::and_, t, old, v);
    case A::or_: return binary(ir::BinaryOp::or_, t, old, v);
    case A::xor_: return binary(ir::BinaryOp::xor_, t, old, v);
    case A::exchange: return v;
    case A::compare_exchange: return normalise(t, old) == normalise(t, v) ? desired : old;  // compares bits
    case A::load: return old;
    case A::store: return v;
  }
  return old;
}

// Elements are little-endian in memory; a value is its low bytes (i1: one byte, 0 or 1).
Bits read_element(Type t, const std::byte* p) {
  if (t == Type::i1) return static_cast<Bits>(*p) & 1;
  Bits v = 0;
  std::memcpy(&v, p, ir::byte_size(t));
  return v;
}
void write_element(Type t, std::byte* p, Bits v) {
  if (t == Type::i1) v &= 1;
  std::memcpy(p, &v, ir::byte_size(t));
}

// --- The machine -----------------------------------------------------------------------------

// An array as the interpreter addresses it: element i at data + i * element size, i in [0, size).
struct ArrayView {
  std::byte* data = nullptr;
  int64_t size = 0;
  std::vector<int64_t> shape, strides;
};

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape, ir::Layout layout) {
  std::vector<int64_t> s(shape.size());
  int64_t step = 1;
  if (layout == ir::Layout::F) {
    for (size_t d = 0; d < shape.size(); ++d) { s[d] = step; step *= shape[d]; }
  } else {
    for (size_t d = shape.size(); d-- > 0;) { s[d] = step; step *= shape[d]; }
  }
  return s;
}

struct Frame {
  enum class Kind : uint8_t { block, for_body, while_cond, while_body, while_step };
  const ir::Region* region;
  size_t pc;
  Kind kind;
  const Op* loop;  // for_body, while_cond, while_body, while_step
};

struct Item {
  int64_t local[3] = {0, 0, 0};
  std::vector<Bits> values;
  std::vector<Bits> lanes;  // vector values' lanes, from Interpreter::lane_base_
  std::vector<Bits> slots;
  std::vector<std::vector<std::byte>> locals;  // by MemoryId; empty for non-local memories
  std::vector<std::vector<uint8_t>> local_written;  // per element of each local array: written yet?
  std::vector<uint8_t> slot_written;
  std::vector<Frame> frames;
  const Op* waiting = nullptr;  // the barrier it stopped at; nullptr when it ended
  bool held = false;            // waiting for the rest of its group or wave
  std::unordered_map<const Op*, size_t> uniform_runs;  // times it ran each uniform op in this group
};

class Interpreter {
 public:
  Interpreter(const ir::Kernel& k, Dim3 grid, Dim3 block, std::span<const InterpretArgument> args,
              const InterpretOptions& options)
      : k_(k), grid_(grid), block_(block), options_(options) {
    lane_base_.assign(k.values.size(), 0);
    for (ir::ValueId v = 1; v < k.values.size(); ++v)
      if (k.values[v].type.is_vector()) {
        lane_base_[v] = vector_lanes_;
        vector_lanes_ += k.values[v].type.lanes;
      }
    check_geometry();
    bind(args);
  }

  void run() {
    const int64_t items = block_.count();
    items_.resize(static_cast<size_t>(items));
    for (int64_t i = 0; i < items; ++i) {
      Item& it = items_[static_cast<size_t>(i)];
      it.local[0] = i % block_.x;
      it.local[1] = (i / block_.x) % block_.y;
      it.local[2] = i / (block_.x * block_.y);
      it.values.assign(k_.values.size(), 0);
      it.lanes.assign(vector_lanes_, 0);
      for (const ir::Param& p : k_.params)
        if (p.kind == ir::Param::Kind::scalar) it.values[p.value] = scalars_[p.value];
      it.locals.resize(k_.memories.size());
      it.local_written.resize(k_.memories.size());
    }
    for (group_[2] = 0; group_[2] < grid_.z; ++group_[2])
      for (group_[1] = 0; group_[1] < grid_.y; ++group_[1])
        for (group_[0] = 0; group_[0] < grid_.x; ++group_[0]) run_group();
  }

 private:
  // --- Setup ---------------------------------------------------------------------------------

  [[noreturn]] void launch_error(const std::string& what) const {
    throw LaunchError(fmt::format("kernel '{}': {}", k_.name, what));
  }

  void check_geometry() {
    if (options_.wave_size < 1 || options_.wave_size > 64)
      launch_error(fmt::format("InterpretOptions::wave_size is {}; waves have 1 to 64 lanes", options_.wave_size));
    const char* axis[] = {"x", "y", "z"};
    int64_t g[] = {grid_.x, grid_.y, grid_.z}, b[] = {block_.x, block_.y, block_.z};
    for (int d = 0; d < 3; ++d) {
      if (g[d] <= 0) launch_error(fmt::format("grid.{} is {}; every grid dimension must be at least 1", axis[d], g[d]));
      if (b[d] <= 0) launch_error(fmt::format("block.{} is {}; every block dimension must be at least 1", axis[d], b[d]));
      if (b[d] > 1024) launch_error(fmt::format("block.{} is {}; a block holds at most 1024 work-items", axis[d], b[d]));
      int64_t total = 0;
      if (__builtin_mul_overflow(g[d], b[d], &total) || total > std::numeric_limits<int32_t>::max())
        launch_error(fmt::format("grid.{} of {} groups of {} work-items exceeds 2^31 - 1 work-items; global ids are 32-bit",
                                 axis[d], g[d], b[d]));
    }
    if (block_.count() > k_.max_block_size)
      launch_error(fmt::format("a block of {}x{}x{} = {} work-items exceeds the kernel's declared maximum of {}",
                               block_.x, block_.y, block_.z, block_.count(), k_.max_block_size));
  }

  void bind(std::span<const InterpretArgument> args) {
    if (args.size() != k_.params.size())
      launch_error(fmt::format("it takes {} arguments, {} were given", k_.params.size(), args.size()));
    scalars_.assign(k_.values.size(), 0);
    views_.resize(k_.memories.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const ir::Param& p = k_.params[i];
      const InterpretArgument& a = args[i];
      if (p.kind == ir::Param::Kind::scalar) {
        if (a.kind != InterpretArgument::Kind::scalar || a.type != p.type)
          launch_error(fmt::format("argument {} ('{}') must be a scalar {}", i, p.name, ir::type_name(p.type)));
        scalars_[p.value] = normalise(p.type, a.bits);
        continue;
      }
      const ir::Memory& m = k_.memories[p.memory];
      auto bad = [&](const std::string& why) {
        launch_error(fmt::format("argument {} ('{}', array<{}, {}, {}>): {}", i, p.name, ir::type_name(m.element), m.rank,
                                 ir::layout_name(m.layout), why));
      };
      if (a.kind != InterpretArgument::Kind::array) bad("a scalar was given");
      if (a.type != m.element) bad(fmt::format("the buffer holds {}", ir::type_name(a.type)));
      if (a.size < 0 || (a.size > 0 && a.data == nullptr)) bad("the buffer is invalid");
      ArrayView& v = views_[p.memory];
      v.data = static_cast<std::byte*>(a.data);
      v.size = a.size;
      v.shape = a.shape;
      if (v.shape.empty() && m.rank == 1) v.shape = {a.size};
      if (v.shape.size() != m.rank) bad(fmt::format("{} extents were given", v.shape.size()));
      if (!m.shape.empty() && v.shape != m.shape)
        bad(fmt::format("its shape ({}) is not the fixed one ({})", fmt::join(v.shape, ", "), fmt::join(m.shape, ", ")));
      for (int64_t e : v.shape)
        if (e < 0 || e > std::numeric_limits<int32_t>::max())
          bad(fmt::format("extent {} is outside 0..2^31 - 1 (kernels index with 32-bit extents)", e));
      if (m.layout == ir::Layout::strided) {
        if (a.strides.size() != m.rank) bad(fmt::format("{} strides were given for a strided array", a.strides.size()));
        v.strides = a.strides;
      } else {
        if (!a.strides.empty()) bad("strides were given, but the layout defines them");
        int64_t elements = 1;
        for (int64_t e : v.shape)
          if (__builtin_mul_overflow(elements, e, &elements)) bad("the extents overflow");
        if (elements > a.size) bad(fmt::format("its shape holds {} elements, the buffer {}", elements, a.size));
        v.strides = contiguous_strides(v.shape, m.layout);
      }
    }
    for (ir::MemoryId id = 0; id < k_.memories.size(); ++id) {
      const ir::Memory& m = k_.memories[id];
      if (m.space == MemorySpace::global) continue;
      ArrayView& v = views_[id];
      if (m.dynamic) {  // every dynamic array views the same bytes, given at launch
        v.size = static_cast<int64_t>(options_.dynamic_shared_bytes / ir::byte_size(m.element));
        v.shape = {v.size};
        v.strides = {1};
        dynamic_shared_.resize(std::max<size_t>(dynamic_shared_.size(), options_.dynamic_shared_bytes));
        continue;
      }
      v.shape = m.shape;
      v.size = m.element_count();
      v.strides = contiguous_strides(m.shape, m.layout == ir::Layout::F ? ir::Layout::F : ir::Layout::C);
      if (m.space == MemorySpace::shared) {
        shared_[id].resize(static_cast<size_t>(v.size * ir::byte_size(m.element)));
        shared_written_[id].resize(static_cast<size_t>(v.size));
      }
    }
  }

  // --- Groups and phases ---------------------------------------------------------------------

  void run_group() {
    uniform_values_.clear();
    for (auto& [id, bytes] : shared_) std::fill(bytes.begin(), bytes.end(), std::byte{0});
    for (auto& [id, flags] : shared_written_) std::fill(flags.begin(), flags.end(), uint8_t{0});
    std::fill(dynamic_shared_.begin(), dynamic_shared_.end(), std::byte{0});
    for (Item& it : items_) {
      it.slots.assign(k_.slots.size(), 0);
      it.slot_written.assign(k_.slots.size(), 0);
      for (ir::MemoryId id = 0; id < k_.memories.size(); ++id) {
        const ir::Memory& m = k_.memories[id];
        if (m.space != MemorySpace::local) continue;
        it.locals[id].assign(static_cast<size_t>(m.element_count() * ir::byte_size(m.element)), std::byte{0});
        it.local_written[id].assign(static_cast<size_t>(m.element_count()), 0);
      }
      it.frames.clear();
      it.frames.push_back(Frame{&k_.body, 0, Frame::Kind::block, nullptr});
      it.waiting = nullptr;
      it.uniform_runs.clear();
    }
    for (Item& it : items_) it.held = false;
    while (true) {
      for (Item& it : items_)
        if (!it.held) run_until_barrier(it);
      for (Item& it : items_) it.held = true;
      const Item& first = items_.front();
      bool together = true;
      for (const Item& it : items_) together &= it.waiting == first.waiting;
      if (together) {
        if (!first.waiting) return;  // all ended
        if (ir::computes_collectively(*first.waiting)) run_collective(*first.waiting, 0, items_.size());
        for (Item& it : items_) it.held = false;
        continue;
      }
      // Not the whole group at one op: a wave whose lanes all stopped at the same wave-scope op
      // (a wave operation or wavebarrier in wave-uniform control) runs it and goes on.
      bool progress = false;
      const size_t width = options_.wave_size;
      for (size_t w0 = 0; w0 < items_.size(); w0 += width) {
        const size_t end = std::min(items_.size(), w0 + width);
        const Op* at = items_[w0].waiting;
        bool same = at && ir::op_info(at->kind).sync == ir::SyncScope::wavefront;
        for (size_t i = w0; i < end && same; ++i) same = items_[i].waiting == at;
        if (!same) continue;
        if (ir::computes_collectively(*at)) run_collective(*at, w0, end);
        for (size_t i = w0; i < end; ++i) items_[i].held = false;
        progress = true;
      }
      if (progress) continue;
      for (const Item& it : items_) {
        if (it.waiting == first.waiting) continue;
        const Item& at = it.waiting ? it : first;
        const Item& other = it.waiting ? first : it;
        auto where = [&](const Item& x) {
          return x.waiting ? fmt::format("at the {} at {}", ir::op_kind_name(x.waiting->kind), x.waiting->loc.str())
                           : std::string("at the end of the kernel");
        };
        launch_error(fmt::format("work-items of group {} stopped at different barriers: work-item {} {}, work-item {} {}; "
                                 "every work-item of a group must reach the same barriers",
                                 group_name(), item_name(at), where(at), item_name(other), where(other)));
      }
    }
  }

  // uniform(x) promises one value for the whole group: the n-th time each work-item runs the op,
  // it gets the value the first work-item to get there got.
  void check_uniform(Item& it, const Op& op, Bits value) {
    std::vector<std::pair<Bits, size_t>>& seen = uniform_values_[&op];
    const size_t run = it.uniform_runs[&op]++;
    const size_t self = static_cast<size_t>(&it - items_.data());
    if (run == seen.size()) {
      seen.emplace_back(value, self);
      return;
    }
    if (seen[run].first == value) return;
    const Type t = op.type;
    auto shown = [&](Bits b) {
      if (ir::is_float(t) && !narrow(t)) return t == Type::f32 ? fmt::format("{}", std::bit_cast<float>(static_cast<uint32_t>(b)))
                                                                : fmt::format("{}", std::bit_cast<double>(b));
      if (ir::is_signed(t)) return fmt::format("{}", extend(t, b));
      return fmt::format("{}", b);
    };
    launch_error(fmt::format("uniform() at {} got {} in work-item {} but {} in work-item {} of group {}; uniform(x) "
                             "promises one value for the whole work-group",
                             op.loc.str(), shown(value), item_name(it), shown(seen[run].first),
                             item_name(items_[seen[run].second]), group_name()));
  }

  // The work-items [begin, end) stopped together at `op`, which computes across them.
  void run_collective(const Op& op, size_t begin, size_t end) {
    switch (op.kind) {
      case OpKind::wave: return run_wave_op(op, begin, end);
      case OpKind::mma: return run_mma(op, begin, end);
      // ir::computes_collectively holds for none of these.
      case OpKind::constant: case OpKind::binary: case OpKind::unary: case OpKind::compare: case OpKind::select:
      case OpKind::cast: case OpKind::bitcast: case OpKind::math: case OpKind::workitem: case OpKind::shape:
      case OpKind::load: case OpKind::store: case OpKind::atomic: case OpKind::var_load: case OpKind::var_store:
      case OpKind::barrier: case OpKind::wavebarrier: case OpKind::fence: case OpKind::uniform:
      case OpKind::make_vector: case OpKind::extract: case OpKind::if_: case OpKind::for_: case OpKind::while_:
      case OpKind::condition: case OpKind::break_: case OpKind::continue_: case OpKind::return_:
      case OpKind::print: case OpKind::assert_:
        break;
    }
    throw Error(fmt::format("internal error: {} is not a collective computation", ir::op_kind_name(op.kind)));
  }

  // The work-items [begin, end) stopped at wave op `op`: run it for each of their waves.
  void run_wave_op(const Op& op, size_t begin, size_t end) {
    const unsigned width = options_.wave_size;
    std::vector<Bits> a(width), b(width), out(width);
    const Type type = k_.value_type(op.operands[0]);
    for (size_t w0 = begin; w0 < end; w0 += width) {
      const auto active = static_cast<unsigned>(std::min<size_t>(width, end - w0));
      for (unsigned l = 0; l < active; ++l) {
        const Item& it = items_[w0 + l];
        a[l] = it.values[op.operands[0]];
        b[l] = op.operands.size() > 1 ? it.values[op.operands[1]] : 0;
      }
      interpret_wave(op.wave_op(), type, a.data(), b.data(), out.data(), active, width);
      for (unsigned l = 0; l < active; ++l) items_[w0 + l].values[op.result] = out[l];
    }
  }

  // The work-items [begin, end) stopped at mma `op`: ir::mma::interpret for each of their waves,
  // which must be whole 64-lane waves (mma computes over every lane).
  void run_mma(const Op& op, size_t begin, size_t end) {
    const auto& attrs = op.get<ir::MmaAttrs>();
    const ir::mma::Shape shape{attrs.m, attrs.n, attrs.k};
    const ir::mma::Counts n = ir::mma::counts(shape);
    const unsigned width = options_.wave_size;
    if (width != ir::mma::wave_lanes)
      launch_error(fmt::format("the mma at {} needs 64-lane waves; InterpretOptions::wave_size is {}", op.loc.str(),
                               width));
    const ir::ValueId c = op.operands[0], a = op.operands[1], b = op.operands[2];
    std::vector<Bits> cv(width * n.c), av(width * n.a), bv(width * n.b), out(width * n.c);
    auto gather = [&](const Item& it, ir::ValueId v, unsigned count, Bits* to) {
      for (unsigned e = 0; e < count; ++e) to[e] = count > 1 ? it.lanes[lane_base_[v] + e] : it.values[v];
    };
    for (size_t w0 = begin; w0 < end; w0 += width) {
      if (end - w0 < width)
        launch_error(fmt::format("the mma at {} is reached by a wave of {} work-items in group {}; mma needs whole "
                                 "64-lane waves (a work-group size that is a multiple of 64)",
                                 op.loc.str(), end - w0, group_name()));
      for (unsigned l = 0; l < width; ++l) {
        const Item& it = items_[w0 + l];
        gather(it, c, n.c, &cv[l * n.c]);
        gather(it, a, n.a, &av[l * n.a]);
        gather(it, b, n.b, &bv[l * n.b]);
      }
      ir::mma::interpret(shape, k_.value_type(a).element_of(), op.type.element_of(), av.data(), bv.data(), cv.data(),
                         out.data(), mma_model_, attrs.precision);
      for (unsigned l = 0; l < width; ++l) {
        Item& it = items_[w0 + l];
        for (unsigned e = 0; e < n.c; ++e) {
          if (n.c > 1) it.lanes[lane_base_[op.result] + e] = out[l * n.c + e];
          else it.values[op.result] = out[l * n.c + e];
        }
      }
    }
  }

  std::string group_name() const { return fmt::format("({}, {}, {})", group_[0], group_[1], group_[2]); }
  std::string item_name(const Item& it) const {
    return fmt::format("({}, {}, {})", it.local[0], it.local[1], it.local[2]);
  }

  // Runs one work-item until it reaches a barrier (it.waiting) or ends (it.waiting = nullptr).
  void run_until_barrier(Item& it) {
    it.waiting = nullptr;
    while (!it.frames.empty()) {
      Frame& f = it.frames.back();
      if (f.pc == f.region->ops.size()) {
        end_of_region(it);
        continue;
      }
      const Op& op = *f.region->ops[f.pc++];
      if (options_.max_operations && ++operations_ > options_.max_operations)
        launch_error(fmt::format("did not finish within {} operations (InterpretOptions::max_operations); "
                                 "work-item {} of group {} was at the {} at {}",
                                 options_.max_operations, item_name(it), group_name(), ir::op_kind_name(op.kind),
                                 op.loc.str()));
      switch (op.kind) {
        case OpKind::barrier:
        case OpKind::wavebarrier:
        case OpKind::wave:
        case OpKind::mma:
          it.waiting = &op;  // a sync point (ir::is_sync_point): the group goes on together
          return;
        case OpKind::if_: {
          bool taken = it.values[op.operands[0]] != 0;
          it.frames.push_back(Frame{&op.regions[taken ? 0 : 1], 0, Frame::Kind::block, nullptr});
          break;
        }
        case OpKind::for_: {
          Bits begin = it.values[op.operands[0]];
          if (for_runs(op.type, begin, it.values[op.operands[1]], it.values[op.operands[2]])) {
            it.values[op.result] = begin;
            it.frames.push_back(Frame{&op.regions[0], 0, Frame::Kind::for_body, &op});
          }
          break;
        }
        case OpKind::while_:
          it.frames.push_back(Frame{&op.regions[0], 0, Frame::Kind::while_cond, &op});
          break;
        case OpKind::condition: {
          // Ends a while's condition region: run the body, or leave the loop.
          const Op* loop = f.loop;
          if (it.values[op.operands[0]] != 0)
            f = Frame{&loop->regions[1], 0, Frame::Kind::while_body, loop};
          else
            it.frames.pop_back();
          break;
        }
        case OpKind::break_:
          while (true) {
            Frame::Kind k = it.frames.back().kind;
            it.frames.pop_back();
            if (k == Frame::Kind::for_body || k == Frame::Kind::while_body) break;
          }
          break;
        case OpKind::continue_:
          // Leave the blocks inside the loop body and finish the body: end_of_region steps.
          while (it.frames.back().kind != Frame::Kind::for_body && it.frames.back().kind != Frame::Kind::while_body)
            it.frames.pop_back();
          it.frames.back().pc = it.frames.back().region->ops.size();
          break;
        case OpKind::return_:
          it.frames.clear();
          break;
        case OpKind::constant: case OpKind::binary: case OpKind::unary: case OpKind::compare: case OpKind::select:
        case OpKind::cast: case OpKind::bitcast: case OpKind::math: case OpKind::workitem: case OpKind::shape:
        case OpKind::load: case OpKind::store: case OpKind::atomic: case OpKind::var_load: case OpKind::var_store:
        case OpKind::fence: case OpKind::uniform: case OpKind::make_vector: case OpKind::extract:
          execute(it, op);
          break;
        case OpKind::print:
        case OpKind::assert_:
          device_output(it, op);
          break;
      }
    }
  }

  void end_of_region(Item& it) {
    Frame& f = it.frames.back();
    switch (f.kind) {
      case Frame::Kind::block: it.frames.pop_back(); return;
      case Frame::Kind::for_body: {
        const Op& op = *f.loop;
        Bits next = 0;
        if (for_step(op.type, it.values[op.result], it.values[op.operands[2]], next) &&
            for_runs(op.type, next, it.values[op.operands[1]], it.values[op.operands[2]])) {
          it.values[op.result] = next;
          f.pc = 0;
        } else {
          it.frames.pop_back();
        }
        return;
      }
      case Frame::Kind::while_cond: it.frames.pop_back(); return;  // unreachable: `condition` ends it
      case Frame::Kind::while_body:
        if (f.loop->regions.size() > 2 && !f.loop->regions[2].ops.empty()) {
          f = Frame{&f.loop->regions[2], 0, Frame::Kind::while_step, f.loop};
          return;
        }
        [[fallthrough]];
      case Frame::Kind::while_step: f = Frame{&f.loop->regions[0], 0, Frame::Kind::while_cond, f.loop}; return;
    }
  }

  // --- Device output ---------------------------------------------------------------------------

  // print and assert: the record every target writes (device_print.hpp), into the launch's
  // print buffer, by the algorithm of the compiled code (targets/lowering.cpp, device_output).
  void device_output(const Item& it, const Op& op) {
    const bool is_assert = op.kind == OpKind::assert_;
    if (is_assert && (options_.asserts == AssertMode::off || it.values[op.operands[0]] != 0)) return;
    if (print_sites_.empty()) print_sites_ = print_site_ids(k_);
    std::byte* buffer = static_cast<std::byte*>(options_.print_buffer);
    if (!buffer) launch_error(fmt::format("the {} at {} has no print buffer (InterpretOptions::print_buffer)",
                                          ir::op_kind_name(op.kind), op.loc.str()));
    auto u32 = [&](uint32_t at) -> uint32_t& { return *reinterpret_cast<uint32_t*>(buffer + at); };
    std::vector<uint64_t> words;
    for (size_t i = is_assert ? 1 : 0; i < op.operands.size(); ++i) {
      const ir::ValueId v = op.operands[i];
      const Type t = k_.value_type(v);
      for (unsigned lane = 0; lane < t.lanes; ++lane)
        words.push_back(normalise(t.element_of(), t.lanes > 1 ? it.lanes[lane_base_[v] + lane] : it.values[v]));
    }
    auto write_record = [&](uint32_t at) {
      uint32_t head[8] = {print_sites_.at(&op)};
      for (unsigned d = 0; d < 3; ++d) {
        head[1 + d] = static_cast<uint32_t>(group_[d]);
        head[4 + d] = static_cast<uint32_t>(it.local[d]);
      }
      std::memcpy(buffer + at, head, sizeof head);
      std::memcpy(buffer + at + print_buffer::record_header, words.data(), 8 * words.size());
    };
    if (is_assert) {
      if (u32(print_buffer::failures)++ == 0) write_record(print_buffer::assert_slot);
      return;
    }
    const uint32_t bytes = print_buffer::record_header + 8 * static_cast<uint32_t>(words.size());
    const uint32_t capacity = u32(print_buffer::capacity), used = u32(print_buffer::used);
    if (used < capacity) {
      u32(print_buffer::used) = used + bytes;
      if (used + bytes <= capacity && used + bytes >= used) return write_record(records_offset_ + used);
      u32(records_offset_ + used) = UINT32_MAX;  // the host reads no further
    }
    ++u32(print_buffer::dropped);
  }

  // --- Straight-line ops ---------------------------------------------------------------------

  int64_t workitem(const Item& it, ir::WorkItem w, unsigned d) const {
    int64_t size[] = {block_.x, block_.y, block_.z}, groups[] = {grid_.x, grid_.y, grid_.z};
    switch (w) {
      case ir::WorkItem::local_id: return it.local[d];
      case ir::WorkItem::group_id: return group_[d];
      case ir::WorkItem::local_size: return size[d];
      case ir::WorkItem::num_groups: return groups[d];
      case ir::WorkItem::global_id: return group_[d] * size[d] + it.local[d];
      case ir::WorkItem::global_size: return groups[d] * size[d];
      case ir::WorkItem::lane_id:
        return (it.local[0] + size[0] * (it.local[1] + size[1] * it.local[2])) % options_.wave_size;
      case ir::WorkItem::wave_size: return options_.wave_size;
    }
    return 0;
  }

  // The element an access op names, after checking its indices: its address and, for shared and
  // local arrays, its written-yet flag.
  struct Access {
    std::byte* address;
    uint8_t* written;  // nullptr for global arrays
  };
  Access element(Item& it, const Op& op) {
    const ir::Memory& m = k_.memories[op.memory()];
    const ArrayView& v = views_[op.memory()];
    int64_t index[3] = {0, 0, 0};
    bool inside = true;
    // A vector access (along a contiguous last dimension) at (..., i) reads or writes elements
    // (..., N*i) ... (..., N*i+N-1).
    const int64_t lanes = ir::access_lanes(k_, op);
    const unsigned last = m.rank - 1;
    for (unsigned d = 0; d < m.rank; ++d) {
      index[d] = extend(k_.value_type(op.operands[d]), it.values[op.operands[d]]);
      const int64_t n = d == last ? lanes : 1;
      if (index[d] < 0 || index[d] >= v.shape[d] / n) inside = false;  // (index + 1) * n > extent
    }
    if (lanes > 1 && inside) index[last] *= lanes;
    if (lanes > 1 && !inside) vector_out_of_bounds(it, op, index, lanes);
    int64_t linear = 0;
    for (unsigned d = 0; d < m.rank && inside; ++d) {
      int64_t term = 0;
      if (__builtin_mul_overflow(index[d], v.strides[d], &term) || __builtin_add_overflow(linear, term, &linear))
        inside = false;
    }
    if (!inside || linear < 0 || linear >= v.size) out_of_bounds(it, op, index, inside, linear);
    if (m.dynamic) return Access{dynamic_shared_.data() + linear * ir::byte_size(m.element), nullptr};
    std::byte* base = m.space == MemorySpace::global  ? v.data
                      : m.space == MemorySpace::shared ? shared_[op.memory()].data()
                                                       : it.locals[op.memory()].data();
    uint8_t* written = m.space == MemorySpace::global  ? nullptr
                       : m.space == MemorySpace::shared ? &shared_written_[op.memory()][static_cast<size_t>(linear)]
                                                        : &it.local_written[op.memory()][static_cast<size_t>(linear)];
    return Access{base + linear * ir::byte_size(m.element), written};
  }

  // Reading shared or local memory, or a variable, before anything was written there has no
  // single meaning on devices (their first contents are unspecified).
  void check_written(const Item& it, const Op& op, const uint8_t* written) const {
    if (!options_.check_uninitialized || !written || *written) return;
    if (op.kind == OpKind::var_load)
      launch_error(fmt::format("var.load at {} reads variable '{}' before work-item {} of group {} stored to it; "
                               "variables start undefined on devices",
                               op.loc.str(), k_.slots[op.slot()].name, item_name(it), group_name()));
    const ir::Memory& m = k_.memories[op.memory()];
    std::vector<int64_t> idx;
    for (unsigned d = 0; d < m.rank; ++d) idx.push_back(extend(k_.value_type(op.operands[d]), it.values[op.operands[d]]));
    launch_error(fmt::format("{} at {} reads element ({}) of {} array '{}' before {} wrote it (work-item {} of group {}); "
                             "{} memory starts undefined on devices",
                             op.kind == OpKind::atomic ? "atomic" : ir::op_kind_name(op.kind), op.loc.str(), fmt::join(idx, ", "),
                             ir::space_name(m.space), m.name,
                             m.space == MemorySpace::shared ? "any work-item of the group" : "the work-item",
                             item_name(it), group_name(), ir::space_name(m.space)));
  }

  [[noreturn]] void vector_out_of_bounds(const Item& it, const Op& op, const int64_t* index, int64_t lanes) const {
    const ir::Memory& m = k_.memories[op.memory()];
    launch_error(fmt::format("out-of-bounds vector {} of {} array '{}' at {}: {}, outside shape ({}) (work-item {} of "
                             "group {})",
                             ir::op_kind_name(op.kind), ir::space_name(m.space), m.name, op.loc.str(),
                             ir::describe_vector_access(std::span<const int64_t>(index, m.rank), lanes),
                             fmt::join(views_[op.memory()].shape, ", "), item_name(it), group_name()));
  }

  [[noreturn]] void out_of_bounds(const Item& it, const Op& op, const int64_t* index, bool inside, int64_t linear) const {
    const ir::Memory& m = k_.memories[op.memory()];
    const ArrayView& v = views_[op.memory()];
    std::vector<int64_t> idx(index, index + m.rank);
    std::string why = inside ? fmt::format("index ({}) is element {} of a buffer of {} elements (strides {})",
                                           fmt::join(idx, ", "), linear, v.size, fmt::join(v.strides, ", "))
                             : fmt::format("index ({}) is outside shape ({})", fmt::join(idx, ", "), fmt::join(v.shape, ", "));
    launch_error(fmt::format("out-of-bounds {} of {} array '{}' at {}: {} (work-item {} of group {})",
                             op.kind == OpKind::atomic ? "atomic" : ir::op_kind_name(op.kind), ir::space_name(m.space),
                             m.name, op.loc.str(), why, item_name(it), group_name()));
  }

  void execute(Item& it, const Op& op) {
    auto operand = [&](size_t i) { return it.values[op.operands[i]]; };
    Bits r = 0;
    switch (op.kind) {
      case OpKind::constant:
        r = ir::is_float(op.type) ? (op.type == Type::f32 ? bits(static_cast<float>(op.float_value()))
                                     : narrow(op.type)      ? narrow_bits(op.type, op.float_value())
                                                            : bits(op.float_value()))
                                  : normalise(op.type, static_cast<Bits>(op.int_value()));
        break;
      case OpKind::binary: r = binary(op.binary_op(), op.type, operand(0), operand(1)); break;
      case OpKind::unary: r = unary(op.unary_op(), op.type, operand(0)); break;
      case OpKind::compare: r = compare(op.pred(), k_.value_type(op.operands[0]), operand(0), operand(1)); break;
      case OpKind::select: r = operand(0) ? operand(1) : operand(2); break;
      case OpKind::cast: r = cast(k_.value_type(op.operands[0]), op.type, operand(0)); break;
      case OpKind::bitcast: r = normalise(op.type, operand(0)); break;
      case OpKind::math:
        r = math(op.math_fn(), op.type, operand(0), op.operands.size() > 1 ? operand(1) : 0,
                 op.operands.size() > 2 ? operand(2) : 0);
        break;
      case OpKind::workitem: r = static_cast<Bits>(workitem(it, op.workitem(), op.dim())); break;
      case OpKind::shape: r = static_cast<Bits>(views_[op.memory()].shape[op.dim()]); break;
      case OpKind::load: {
        const ir::Memory& m = k_.memories[op.memory()];
        Access a = element(it, op);
        for (unsigned lane = 0; lane < op.type.lanes; ++lane) {
          check_written(it, op, a.written ? a.written + lane : nullptr);
          r = read_element(m.element, a.address + lane * ir::byte_size(m.element));
          if (op.type.is_vector()) it.lanes[lane_base_[op.result] + lane] = r;
        }
        if (op.type.is_vector()) return;
        break;
      }
      case OpKind::store: {
        const ir::Memory& m = k_.memories[op.memory()];
        Access a = element(it, op);
        const ir::ValueId v = op.operands[m.rank];
        const unsigned lanes = k_.value_type(v).lanes;
        for (unsigned lane = 0; lane < lanes; ++lane) {
          write_element(m.element, a.address + lane * ir::byte_size(m.element),
                        lanes > 1 ? it.lanes[lane_base_[v] + lane] : it.values[v]);
          if (a.written) a.written[lane] = 1;
        }
        return;
      }
      case OpKind::make_vector:
        for (size_t lane = 0; lane < op.operands.size(); ++lane) it.lanes[lane_base_[op.result] + lane] = operand(lane);
        return;
      case OpKind::extract: r = it.lanes[lane_base_[op.operands[0]] + op.lane()]; break;
      case OpKind::atomic: {
        const ir::Memory& m = k_.memories[op.memory()];
        Access a = element(it, op);
        std::byte* p = a.address;
        if (op.atomic_op() == ir::AtomicOp::store) {
          write_element(m.element, p, operand(m.rank));
          if (a.written) *a.written = 1;
          return;
        }
        check_written(it, op, a.written);
        if (op.atomic_op() == ir::AtomicOp::load) {
          r = read_element(m.element, p);
          break;
        }
        if (a.written) *a.written = 1;
        Bits old = read_element(m.element, p);
        Bits desired = op.atomic_op() == ir::AtomicOp::compare_exchange ? operand(m.rank + 1) : 0;
        write_element(m.element, p, atomic_update(op.atomic_op(), m.element, old, operand(m.rank), desired));
        r = old;
        break;
      }
      case OpKind::uniform:  // a promise: the n-th run of the op gives every work-item one value
        r = operand(0);
        check_uniform(it, op, r);
        break;
      case OpKind::var_load:
        check_written(it, op, &it.slot_written[op.slot()]);
        r = it.slots[op.slot()];
        break;
      case OpKind::var_store:
        it.slots[op.slot()] = operand(0);
        it.slot_written[op.slot()] = 1;
        return;
      // One work-item at a time in program order: a fence orders nothing more.
      case OpKind::fence: return;
      // run_until_barrier runs these itself.
      case OpKind::barrier: case OpKind::wavebarrier: case OpKind::wave: case OpKind::mma: case OpKind::if_:
      case OpKind::for_: case OpKind::while_: case OpKind::condition: case OpKind::break_: case OpKind::continue_:
      case OpKind::return_: case OpKind::print: case OpKind::assert_:
        throw Error(fmt::format("internal error: {} reached Interpreter::execute", ir::op_kind_name(op.kind)));
    }
    if (op.result) it.values[op.result] = r;
  }

  std::unordered_map<const Op*, std::vector<std::pair<Bits, size_t>>> uniform_values_;  // per uniform op, per run
  const ir::Kernel& k_;
  Dim3 grid_, block_;
  InterpretOptions options_;
  // The numerics of mma (Settings::mma_model, read when the run starts).
  ir::mma::Model mma_model_ =
      ir::mma::model_named(support::current_settings()->mma_model).value_or(ir::mma::Model::cdna3);
  std::vector<Bits> scalars_;                          // by ValueId: scalar parameters
  std::vector<uint32_t> lane_base_;                    // by ValueId: a vector's first lane in Item::lanes
  uint32_t vector_lanes_ = 0;                          // lanes of all vector values
  std::vector<ArrayView> views_;                       // by MemoryId
  std::map<ir::MemoryId, std::vector<std::byte>> shared_;  // one group's shared arrays
  std::map<ir::MemoryId, std::vector<uint8_t>> shared_written_;  // per element: written in this group?
  std::vector<std::byte> dynamic_shared_;  // the group's dynamic shared memory (not checked for unwritten reads)
  std::vector<Item> items_;
  int64_t group_[3] = {0, 0, 0};
  uint64_t operations_ = 0;
  std::unordered_map<const ir::Op*, uint32_t> print_sites_;  // print_site_ids(k_), on first use
  uint32_t records_offset_ = print_table(k_).records_offset();
};

}  // namespace

void interpret_wave(ir::WaveOp op, ir::Type type, const uint64_t* a, const uint64_t* b, uint64_t* out,
                    unsigned active, unsigned width) {
  using W = ir::WaveOp;
  const auto lane_ok = [&](int64_t src) { return src >= 0 && src < static_cast<int64_t>(active); };
  const auto lane = [&](unsigned l) { return sext(Type::i32, b[l]); };
  switch (op) {
    case W::shuffle: case W::shuffle_xor: case W::shuffle_up: case W::shuffle_down: case W::broadcast:
    case W::read_first:
      for (unsigned l = 0; l < active; ++l) {
        const int64_t src = ir::semantics::shuffle_source(op, l, op == W::read_first ? 0 : lane(l));
        out[l] = lane_ok(src) ? a[src] : a[l];
      }
      return;
    case W::ballot: case W::any: case W::all: case W::count: {
      uint64_t bits = 0;
      for (unsigned l = 0; l < active; ++l) bits |= (a[l] & 1) << l;
      const uint64_t all_lanes = active == 64 ? ~uint64_t{0} : (uint64_t{1} << active) - 1;
      const uint64_t r = op == W::ballot ? bits
                         : op == W::any  ? bits != 0
                         : op == W::all  ? bits == all_lanes
                                         : static_cast<uint64_t>(std::popcount(bits));
      for (unsigned l = 0; l < active; ++l) out[l] = r;
      return;
    }
    case W::reduce_add: case W::reduce_min: case W::reduce_max: case W::reduce_and: case W::reduce_or:
    case W::reduce_xor: case W::inclusive_scan_add: case W::exclusive_scan_add: {
      // The trees of rocjit/compiler/semantics.hpp, with this interpreter's arithmetic.
      const ir::semantics::WaveRule rule = ir::semantics::wave_rule(op);
      const auto combine = [&](Bits x, Bits y) { return binary(rule.combine, type, x, y); };
      std::array<Bits, 64> x{};
      std::copy(a, a + active, x.begin());
      if (rule.form == ir::semantics::WaveForm::reduce) {
        std::fill(out, out + active, ir::semantics::reduce_tree(x.data(), active, width, combine));
        return;
      }
      ir::semantics::scan_tree(x.data(), active, width, combine);
      for (unsigned l = 0; l < active; ++l) out[l] = !rule.exclusive ? x[l] : l == 0 ? Bits{0} : x[l - 1];
      return;
    }
  }
}

void check_interpretable(const ir::Kernel& kernel) { passes::check(kernel); }

void interpret(const ir::Kernel& kernel, Dim3 grid, Dim3 block, std::span<const InterpretArgument> args,
               const InterpretOptions& options) {
  passes::check(kernel);
  const PrintTable table = print_table(kernel);
  if (table.empty() || options.print_buffer) return Interpreter(kernel, grid, block, args, options).run();
  // A kernel that prints, run without a buffer of the caller's: its own, delivered at the end.
  const auto capacity = static_cast<uint32_t>(support::current_settings()->print_buffer_bytes);
  std::vector<uint8_t> buffer = print_buffer_header(table, capacity);
  buffer.resize(buffer.size() + capacity);
  InterpretOptions with_buffer = options;
  with_buffer.print_buffer = buffer.data();
  Interpreter(kernel, grid, block, args, with_buffer).run();
  PrintDelivery d = deliver_prints(table, buffer, kernel.name, grid, block, support::current_settings()->print_sorted);
  if (d.assertion) throw *d.assertion;
}

}  // namespace rocjit
