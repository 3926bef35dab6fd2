// Rounding to binary16 and bfloat16 (rocjit/compiler/float16.hpp). Every double, int64_t and
// uint64_t is exact in x87's 64-bit-significand long double, so each conversion below rounds
// exactly once: the quantum of the result's binade is found, the value is scaled so that the
// quantum is 1, rounded to the nearest integer (ties to even) and scaled back.
#include "rocjit/compiler/float16.hpp"

#include <bit>
#include <cmath>

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

}  // namespace

uint16_t half_bits(double x) { return round_to(binary16, x); }
uint16_t half_bits(int64_t x) { return round_to(binary16, static_cast<long double>(x)); }
uint16_t half_bits(uint64_t x) { return round_to(binary16, static_cast<long double>(x)); }
uint16_t bfloat16_bits(double x) { return round_to(bfloat, x); }
uint16_t bfloat16_bits(int64_t x) { return round_to(bfloat, static_cast<long double>(x)); }
uint16_t bfloat16_bits(uint64_t x) { return round_to(bfloat, static_cast<long double>(x)); }

float half_value(uint16_t bits) {
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
