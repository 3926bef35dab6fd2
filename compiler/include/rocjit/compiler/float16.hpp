// rocjit::half (IEEE 754 binary16) and rocjit::bfloat16 (the upper half of a binary32): the
// C++ types of f16 and bf16 array elements and kernel scalars on the host.
#pragma once

#include <compare>
#include <concepts>
#include <cstdint>
#include <limits>

namespace rocjit {

namespace detail {
/// The binary16 bits nearest to `x` (round to nearest, ties to even; NaN stays NaN, overflow is
/// infinity). The integer forms round the exact integer, so every int64_t and uint64_t rounds once.
///@{
uint16_t half_bits(double x);
uint16_t half_bits(int64_t x);
uint16_t half_bits(uint64_t x);
///@}
/// The bfloat16 bits nearest to `x`, rounded the same way.
///@{
uint16_t bfloat16_bits(double x);
uint16_t bfloat16_bits(int64_t x);
uint16_t bfloat16_bits(uint64_t x);
///@}
/// The value of binary16 bits (exact in float).
float half_value(uint16_t bits);
/// half_bits(double), half_value and bfloat16_bits(double) computed in software only: the
/// reference the fast paths (F16C, _Float16, the bfloat16 bit rule) are tested against.
///@{
uint16_t half_bits_reference(double x);
float half_value_reference(uint16_t bits);
uint16_t bfloat16_bits_reference(double x);
///@}
/// The value of bfloat16 bits (exact in float).
inline float bfloat16_value(uint16_t bits) {
  uint32_t word = uint32_t{bits} << 16;
  float f;
  __builtin_memcpy(&f, &word, sizeof f);
  return f;
}

/// The shared shape of half and bfloat16: 16 bits, conversions that round to nearest even, and
/// arithmetic computed in float and rounded once (correctly rounded: float carries more than
/// twice the precision of either format plus two bits, so the double rounding is harmless).
template <class Self, uint16_t (*FromDouble)(double), uint16_t (*FromInt)(int64_t),
          uint16_t (*FromUInt)(uint64_t), float (*ToFloat)(uint16_t)>
class Float16Base {
 public:
  /// +0.
  constexpr Float16Base() = default;
  /// The nearest value (ties to even). Explicit, as narrowing is.
  explicit Float16Base(double x) : bits_(FromDouble(x)) {}
  /// The nearest value (ties to even) of an integer, rounded once.
  template <std::integral I>
  explicit Float16Base(I i)
      : bits_(std::is_signed_v<I> ? FromInt(static_cast<int64_t>(i)) : FromUInt(static_cast<uint64_t>(i))) {}
  /// The value, exactly.
  operator float() const { return ToFloat(bits_); }
  /// The value from its bit pattern.
  static Self from_bits(uint16_t bits) {
    Self s;
    s.bits_ = bits;
    return s;
  }
  /// The bit pattern.
  constexpr uint16_t bits() const { return bits_; }

  /// Arithmetic, correctly rounded.
  ///@{
  friend Self operator+(Self a, Self b) { return Self(static_cast<double>(float(a) + float(b))); }
  friend Self operator-(Self a, Self b) { return Self(static_cast<double>(float(a) - float(b))); }
  friend Self operator*(Self a, Self b) { return Self(static_cast<double>(float(a) * float(b))); }
  friend Self operator/(Self a, Self b) { return Self(static_cast<double>(float(a) / float(b))); }
  friend Self operator-(Self a) { return from_bits(static_cast<uint16_t>(a.bits_ ^ 0x8000u)); }
  Self& operator+=(Self b) { return self() = self() + b; }
  Self& operator-=(Self b) { return self() = self() - b; }
  Self& operator*=(Self b) { return self() = self() * b; }
  Self& operator/=(Self b) { return self() = self() / b; }
  ///@}
  /// IEEE comparisons (NaN unordered, -0 == +0).
  ///@{
  friend bool operator==(Self a, Self b) { return float(a) == float(b); }
  friend std::partial_ordering operator<=>(Self a, Self b) { return float(a) <=> float(b); }
  ///@}

 private:
  Self& self() { return static_cast<Self&>(*this); }
  uint16_t bits_ = 0;
};
}  // namespace detail

/// IEEE 754 binary16: 1 sign, 5 exponent, 10 fraction bits; the kernel type f16 (`Half`).
class half : public detail::Float16Base<half, detail::half_bits, detail::half_bits, detail::half_bits,
                                        detail::half_value> {
 public:
  using Float16Base::Float16Base;
};

/// bfloat16: 1 sign, 8 exponent, 7 fraction bits (a float's upper half, rounded to nearest
/// even); the kernel type bf16 (`BFloat16`).
class bfloat16 : public detail::Float16Base<bfloat16, detail::bfloat16_bits, detail::bfloat16_bits,
                                            detail::bfloat16_bits, detail::bfloat16_value> {
 public:
  using Float16Base::Float16Base;
};

}  // namespace rocjit

/// \cond INTERNAL
// numeric_limits for the two types, as for float.
template <>
struct std::numeric_limits<rocjit::half> {
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, is_exact = false;
  static constexpr bool has_infinity = true, has_quiet_NaN = true, is_iec559 = true;
  static constexpr int digits = 11, max_exponent = 16, min_exponent = -13;
  static rocjit::half min() { return rocjit::half::from_bits(0x0400); }         ///< 2^-14
  static rocjit::half max() { return rocjit::half::from_bits(0x7bff); }         ///< 65504
  static rocjit::half lowest() { return rocjit::half::from_bits(0xfbff); }      ///< -65504
  static rocjit::half epsilon() { return rocjit::half::from_bits(0x1400); }     ///< 2^-10
  static rocjit::half denorm_min() { return rocjit::half::from_bits(0x0001); }  ///< 2^-24
  static rocjit::half infinity() { return rocjit::half::from_bits(0x7c00); }
  static rocjit::half quiet_NaN() { return rocjit::half::from_bits(0x7e00); }
};
template <>
struct std::numeric_limits<rocjit::bfloat16> {
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, is_exact = false;
  static constexpr bool has_infinity = true, has_quiet_NaN = true, is_iec559 = false;
  static constexpr int digits = 8, max_exponent = 128, min_exponent = -125;
  static rocjit::bfloat16 min() { return rocjit::bfloat16::from_bits(0x0080); }         ///< 2^-126
  static rocjit::bfloat16 max() { return rocjit::bfloat16::from_bits(0x7f7f); }
  static rocjit::bfloat16 lowest() { return rocjit::bfloat16::from_bits(0xff7f); }
  static rocjit::bfloat16 epsilon() { return rocjit::bfloat16::from_bits(0x3c00); }     ///< 2^-7
  static rocjit::bfloat16 denorm_min() { return rocjit::bfloat16::from_bits(0x0001); }  ///< 2^-133
  static rocjit::bfloat16 infinity() { return rocjit::bfloat16::from_bits(0x7f80); }
  static rocjit::bfloat16 quiet_NaN() { return rocjit::bfloat16::from_bits(0x7fc0); }
};
/// \endcond
