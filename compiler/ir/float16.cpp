// Rounding to binary16 and bfloat16 (rocjit/compiler/float16.hpp). Every double, int64_t and
// uint64_t is exact in x87's 64-bit-significand long double, so each conversion below rounds
// exactly once: the quantum of the result's binade is found, the value is scaled so that the
// quantum is 1, rounded to the nearest integer (ties to even) and scaled back.
#include "rocjit/compiler/float16.hpp"

#include <bit>
#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace rocjit::detail {
namespace {

static_assert(std::numeric_limits<long double>::digits >= 64, "the rounding needs a 64-bit-significand long double");

// A 16-bit float format: significand bits (with the hidden one), exponent bias, fraction bits.
struct Format {
  int precision;  // 11 (binary16), 8 (bfloat16)
  int emin;       // exponent of the smallest normal: -14, -126
  int emax;       // exponent of the largest finite: 15, 127
};
constexpr Format binary16{11, -14, 15};
constexpr Format bfloat{8, -126, 127};

uint16_t round_to(const Format& f, long double x) {
  const int fraction = f.precision - 1;
  const int exponent_shift = fraction;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const uint16_t exponent_all_ones = static_cast<uint16_t>(((1 << (15 - fraction)) - 1) << exponent_shift);
  if (std::isnan(x)) return static_cast<uint16_t>(sign | exponent_all_ones | (1u << (fraction - 1)));
  long double a = std::fabs(x);
  if (std::isinf(a)) return sign | exponent_all_ones;
  if (a == 0) return sign;
  // The quantum: 2^(e - fraction) for a in [2^e, 2^(e+1)), never below the subnormal quantum.
  int e = std::max(std::ilogb(a), f.emin);
  long double scaled = std::nearbyint(std::scalbn(a, fraction - e));  // an integer in [0, 2^precision]
  if (scaled >= std::ldexp(1.0L, f.precision)) {                      // rounded up into the next binade
    scaled /= 2;
    ++e;
  }
  if (e > f.emax) return sign | exponent_all_ones;  // overflow rounds to infinity
  auto m = static_cast<uint32_t>(scaled);
  if (m < (1u << fraction)) return static_cast<uint16_t>(sign | m);  // subnormal (or rounded to zero)
  uint32_t biased = static_cast<uint32_t>(e - f.emin + 1);
  return static_cast<uint16_t>(sign | (biased << exponent_shift) | (m - (1u << fraction)));
}

// Hardware conversions where the processor and compiler have them: x86's F16C instructions
// (vcvtps2ph / vcvtph2ps, found at run time) for values exact in float, else the compiler's
// _Float16 conversion (libgcc or compiler-rt: one correct rounding from double). Both round to
// nearest even, as round_to does; NaNs and infinities take round_to's path, which keeps rocjit's
// NaN encoding (a canonical quiet NaN when rounding; the payload when widening).
#if defined(__x86_64__)
__attribute__((target("f16c"))) uint16_t f16c_round(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("f16c"))) float f16c_value(uint16_t bits) { return _cvtsh_ss(bits); }
const bool have_f16c = __builtin_cpu_supports("f16c");
#endif

uint16_t round_to_half(double x) {
  if (!std::isfinite(x)) return round_to(binary16, x);
#if defined(__x86_64__)
  const float f = static_cast<float>(x);
  if (have_f16c && static_cast<double>(f) == x) return f16c_round(f);  // exact in float: one rounding
#endif
#if defined(__FLT16_MANT_DIG__)
  return std::bit_cast<uint16_t>(static_cast<_Float16>(x));
#else
  return round_to(binary16, x);
#endif
}

}  // namespace

uint16_t half_bits_reference(double x) { return round_to(binary16, x); }

uint16_t half_bits(double x) { return round_to_half(x); }
uint16_t half_bits(int64_t x) { return round_to(binary16, static_cast<long double>(x)); }
uint16_t half_bits(uint64_t x) { return round_to(binary16, static_cast<long double>(x)); }
uint16_t bfloat16_bits(double x) {
  // A finite value exact in float: the bit rule (add 0x7fff and the kept part's lowest bit, drop
  // 16 bits) rounds it to nearest even once. Others (not exact in float, NaN, infinities) by
  // round_to, which rounds a double once.
  const float f = static_cast<float>(x);
  if (std::isfinite(x) && static_cast<double>(f) == x) {
    const uint32_t b = std::bit_cast<uint32_t>(f);
    return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
  }
  return round_to(bfloat, x);
}

uint16_t bfloat16_bits_reference(double x) { return round_to(bfloat, x); }
uint16_t bfloat16_bits(int64_t x) { return round_to(bfloat, static_cast<long double>(x)); }
uint16_t bfloat16_bits(uint64_t x) { return round_to(bfloat, static_cast<long double>(x)); }

float half_value(uint16_t bits) {
#if defined(__x86_64__)
  if (have_f16c && (bits & 0x7c00u) != 0x7c00u) return f16c_value(bits);
#endif
  return half_value_reference(bits);
}

float half_value_reference(uint16_t bits) {
  const float sign = bits & 0x8000 ? -1.0f : 1.0f;
  const unsigned exponent = (bits >> 10) & 0x1f, fraction = bits & 0x3ff;
  if (exponent == 0x1f) {
    if (fraction == 0) return sign * std::numeric_limits<float>::infinity();
    // NaN: keep sign and payload in the float's upper fraction bits.
    return std::bit_cast<float>(static_cast<uint32_t>((bits & 0x8000u) << 16 | 0x7f800000u | fraction << 13));
  }
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(fraction), -24);
  return sign * std::ldexp(static_cast<float>(fraction | 0x400), static_cast<int>(exponent) - 25);
}

}  // namespace rocjit::detail
