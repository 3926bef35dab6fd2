// The functions rocjit-accuracy measures: one row each, naming the DSL expression, the MPFR
// reference, where the interesting inputs lie and the documented error bound.
//
// Adding a function is one row in functions(): a lambda of one, two or three DSL operands (its
// parameter count is the function's arity), the MPFR function through ref<...> (any MPFR function
// of the form f(rop, op..., rnd), or f(rop, op) like mpfr_floor) or a Reference of its own, the
// bounds in ULPs, and the domain the "interesting" half of the samples is drawn from, one interval
// per argument. For example:
//   {"tanh",  [](Arg x) { return dsl::tanh(x); },            ref<mpfr_tanh>,   {2, 2}, {1, 2}, {{-10, 10}}},
//   {"atan2", [](Arg y, Arg x) { return dsl::atan2(y, x); }, ref<mpfr_atan2>,  {2, 2}, {1, 2}, {{-10, 10}, {-10, 10}}},
//   {"lgamma", [](Arg x) { return dsl::lgamma(x); },         ref<lgamma_abs>,  ...},
//   {"nextafter", [](Arg x, Arg y) { return dsl::nextafter(x, y); }, nextafter_ref, {0, 0}, {0, 0}, ...},
#pragma once

#include <cmath>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <mpfr.h>

#include <rocjit/rocjit.hpp>

namespace rocjit::accuracy {

/// A floating-point format of the device: f32 or f64.
struct Format {
  std::string_view name;  ///< "f32", "f64"
  int precision;          ///< significand bits including the implicit one: 24, 53
  int min_exponent;       ///< of the smallest normal, 2^min_exponent: -126, -1022
  int max_exponent;       ///< of the largest binade, [2^max_exponent, 2^(max_exponent + 1)): 127, 1023
};
inline constexpr Format f32{"f32", 24, -126, 127};
inline constexpr Format f64{"f64", 53, -1022, 1023};

/// The DSL side: a function of one, two or three operands returning the traced result.
using Arg = const dsl::Operand&;
using Dsl = std::variant<dsl::Value (*)(Arg), dsl::Value (*)(Arg, Arg), dsl::Value (*)(Arg, Arg, Arg)>;

/// The exact result: `out` (256 bits) = f(args), rounded to nearest. Every argument holds a value
/// of the device's format exactly. `type` is that format, for the few functions whose result
/// depends on it (nextafter steps to the neighbouring value of the format, not of `out`).
using Reference = void (*)(mpfr_ptr out, std::span<const mpfr_srcptr> args, const Format& type);

/// Adapts an MPFR function to a Reference: ref<mpfr_sin>, ref<mpfr_pow>, ref<mpfr_fma>, and the
/// exact functions without a rounding mode, ref<mpfr_floor>.
template <auto F>
void ref(mpfr_ptr out, std::span<const mpfr_srcptr> a, const Format&) {
  using Fn = decltype(F);
  if constexpr (std::is_invocable_v<Fn, mpfr_ptr, mpfr_srcptr, mpfr_rnd_t>)
    F(out, a[0], MPFR_RNDN);
  else if constexpr (std::is_invocable_v<Fn, mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t>)
    F(out, a[0], a[1], MPFR_RNDN);
  else if constexpr (std::is_invocable_v<Fn, mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t>)
    F(out, a[0], a[1], a[2], MPFR_RNDN);
  else if constexpr (std::is_invocable_v<Fn, mpfr_ptr, mpfr_srcptr>)
    F(out, a[0]);
  else
    static_assert(!sizeof(Fn), "ref<F>: F must be f(rop, op..., rnd) with 1 to 3 operands, or f(rop, op)");
}

/// 1/sqrt(x) as IEEE 754's rSqrt: -inf at -0, where mpfr_rec_sqrt gives +inf (its manual warns).
inline int rsqrt_ieee(mpfr_ptr out, mpfr_srcptr x, mpfr_rnd_t rnd) {
  if (mpfr_zero_p(x) && mpfr_signbit(x)) {
    mpfr_set_inf(out, -1);
    return 0;
  }
  return mpfr_rec_sqrt(out, x, rnd);
}

/// log |Γ(x)| (C's lgamma), also where Γ(x) < 0, where mpfr_lngamma gives NaN.
inline int lgamma_abs(mpfr_ptr out, mpfr_srcptr x, mpfr_rnd_t rnd) {
  int sign;
  return mpfr_lgamma(out, &sign, x, rnd);
}

/// nextafter(x, y) in the device's format. Exact in the format, so the C library's is the reference.
inline void nextafter_ref(mpfr_ptr out, std::span<const mpfr_srcptr> a, const Format& t) {
  const double x = mpfr_get_d(a[0], MPFR_RNDN), y = mpfr_get_d(a[1], MPFR_RNDN);  // exact: values of the format
  const double r = t.precision == f32.precision ? std::nextafter(static_cast<float>(x), static_cast<float>(y))
                                                : std::nextafter(x, y);
  mpfr_set_d(out, r, MPFR_RNDN);
}

/// The documented maximum error in ULPs (fractional: a correctly rounded function is within 0.5)
/// on each target family.
struct Bound {
  double cpu;           ///< the CPU device (LLVM's host code and libm)
  double amdgpu;        ///< HIP GPUs and the amdsim simulator, with ROCm's ocml
  double builtin = -1;  ///< the same without ocml.bc: rocjit's built-in library; -1: as amdgpu
};

/// A closed interval of inputs.
struct Interval {
  double lo, hi;
};
/// One interval per argument.
using Domain = std::vector<Interval>;

/// One row of the table.
struct Function {
  std::string_view name;
  Dsl dsl;
  Reference reference;
  Bound f32_bound, f64_bound;
  Domain domain;      ///< where half of the samples lie, for f32
  Domain f64_domain;  ///< the same for f64; empty: `domain`

  int arity() const { return static_cast<int>(dsl.index()) + 1; }
  const Bound& bound(const Format& t) const { return t.precision == f32.precision ? f32_bound : f64_bound; }
  const Domain& domain_for(const Format& t) const {
    return t.precision == f64.precision && !f64_domain.empty() ? f64_domain : domain;
  }
};

/// The table, in the order of the report.
inline const std::vector<Function>& functions() {
  // clang-format off
  static const std::vector<Function> table = {
    // name     DSL expression                                     MPFR reference       bound {cpu, amdgpu[, builtin]} domain (f32)      domain (f64)
    //                                                                                  f32         f64
    {"sqrt",  [](Arg x) { return dsl::sqrt(x); },                  ref<mpfr_sqrt>,      {0.5, 0.5}, {0.5, 0.5}, {{0, 100}}},
    {"rsqrt", [](Arg x) { return dsl::rsqrt(x); },                 ref<rsqrt_ieee>,     {2, 2},     {2, 2},     {{0, 100}}},
    {"exp",   [](Arg x) { return dsl::exp(x); },                   ref<mpfr_exp>,       {1, 1},     {1, 2},     {{-104, 89}},            {{-746, 710}}},
    {"exp2",  [](Arg x) { return dsl::exp2(x); },                  ref<mpfr_exp2>,      {1, 1},     {1, 2},     {{-150, 128}},           {{-1075, 1024}}},
    {"log",   [](Arg x) { return dsl::log(x); },                   ref<mpfr_log>,       {1, 1.5},     {1, 2},     {{0, 10}}},
    {"log2",  [](Arg x) { return dsl::log2(x); },                  ref<mpfr_log2>,      {1, 1},     {1, 2},     {{0, 10}}},
    {"sin",   [](Arg x) { return dsl::sin(x); },                   ref<mpfr_sin>,       {1, 2},     {1, 2},     {{-100, 100}}},
    {"cos",   [](Arg x) { return dsl::cos(x); },                   ref<mpfr_cos>,       {1, 2},     {1, 2},     {{-100, 100}}},
    {"tan",   [](Arg x) { return dsl::tan(x); },                   ref<mpfr_tan>,       {1, 2},     {1, 2},     {{-100, 100}}},
    {"pow",   [](Arg x, Arg y) { return dsl::pow(x, y); },         ref<mpfr_pow>,       {2, 2},     {1, 2},     {{0, 10}, {-40, 40}},    {{0, 10}, {-300, 300}}},
    {"fma",   [](Arg a, Arg b, Arg c) { return dsl::fma(a, b, c); }, ref<mpfr_fma>,     {0.5, 0.5}, {0.5, 0.5}, {{-10, 10}, {-10, 10}, {-10, 10}}},
    {"fabs",  [](Arg x) { return dsl::fabs(x); },                  ref<mpfr_abs>,       {0, 0},     {0, 0},     {{-100, 100}}},
    {"floor", [](Arg x) { return dsl::floor(x); },                 ref<mpfr_floor>,     {0, 0},     {0, 0},     {{-10, 10}}},
    {"ceil",  [](Arg x) { return dsl::ceil(x); },                  ref<mpfr_ceil>,      {0, 0},     {0, 0},     {{-10, 10}}},
    {"fmin",  [](Arg x, Arg y) { return dsl::fmin(x, y); },        ref<mpfr_min>,       {0, 0},     {0, 0},     {{-10, 10}, {-10, 10}}},
    {"fmax",  [](Arg x, Arg y) { return dsl::fmax(x, y); },        ref<mpfr_max>,       {0, 0},     {0, 0},     {{-10, 10}, {-10, 10}}},
    {"asin",  [](Arg x) { return dsl::asin(x); },                  ref<mpfr_asin>,      {1, 4},     {1, 4},     {{-1, 1}}},
    {"acos",  [](Arg x) { return dsl::acos(x); },                  ref<mpfr_acos>,      {1, 4},     {1, 4},     {{-1, 1}}},
    {"atan",  [](Arg x) { return dsl::atan(x); },                  ref<mpfr_atan>,      {1, 4},     {1, 4},     {{-100, 100}}},
    {"atan2", [](Arg y, Arg x) { return dsl::atan2(y, x); },       ref<mpfr_atan2>,     {2, 4},     {1, 4},     {{-10, 10}, {-10, 10}}},
    {"sinh",  [](Arg x) { return dsl::sinh(x); },                  ref<mpfr_sinh>,      {2, 4},     {2, 4},     {{-90, 90}},             {{-710, 710}}},
    {"cosh",  [](Arg x) { return dsl::cosh(x); },                  ref<mpfr_cosh>,      {2, 4},     {2, 4},     {{-90, 90}},             {{-710, 710}}},
    {"tanh",  [](Arg x) { return dsl::tanh(x); },                  ref<mpfr_tanh>,      {2, 4},     {2, 4},     {{-10, 10}},             {{-20, 20}}},
    {"asinh", [](Arg x) { return dsl::asinh(x); },                 ref<mpfr_asinh>,     {2, 4},     {2, 4},     {{-100, 100}}},
    {"acosh", [](Arg x) { return dsl::acosh(x); },                 ref<mpfr_acosh>,     {2, 4},     {2, 4},     {{1, 100}}},
    {"atanh", [](Arg x) { return dsl::atanh(x); },                 ref<mpfr_atanh>,     {2, 4},     {2, 4},     {{-1, 1}}},
    {"exp10", [](Arg x) { return dsl::exp10(x); },                 ref<mpfr_exp10>,     {1, 2},     {2, 4},     {{-45, 38}},             {{-323, 308}}},
    {"expm1", [](Arg x) { return dsl::expm1(x); },                 ref<mpfr_expm1>,     {1, 4},     {1, 4},     {{-10, 10}}},
    {"log10", [](Arg x) { return dsl::log10(x); },                 ref<mpfr_log10>,     {2, 2},     {2, 4},     {{0, 10}}},
    {"log1p", [](Arg x) { return dsl::log1p(x); },                 ref<mpfr_log1p>,     {1, 4},     {1, 4},     {{-1, 10}}},
    {"cbrt",  [](Arg x) { return dsl::cbrt(x); },                  ref<mpfr_cbrt>,      {1, 4},     {4, 4},     {{-1000, 1000}}},
    {"hypot", [](Arg x, Arg y) { return dsl::hypot(x, y); },       ref<mpfr_hypot>,     {1, 4},     {1, 4},     {{-100, 100}, {-100, 100}}},
    {"erf",   [](Arg x) { return dsl::erf(x); },                   ref<mpfr_erf>,       {1, 4},     {1, 4},     {{-5, 5}}},
    {"erfc",  [](Arg x) { return dsl::erfc(x); },                  ref<mpfr_erfc>,      {4, 8},     {4, 8},     {{-5, 12}},              {{-6, 28}}},
    {"tgamma", [](Arg x) { return dsl::tgamma(x); },               ref<mpfr_gamma>,     {6, 2},     {5, 10, 64}, {{-10, 35}},             {{-20, 171}}},
    {"lgamma", [](Arg x) { return dsl::lgamma(x); },               ref<lgamma_abs>,     {4, 2},     {4, 64},     {{0, 100}}},
    {"fmod",  [](Arg x, Arg y) { return dsl::fmod(x, y); },        ref<mpfr_fmod>,      {0, 0},     {0, 0},     {{-100, 100}, {-10, 10}}},
    {"remainder", [](Arg x, Arg y) { return dsl::remainder(x, y); }, ref<mpfr_remainder>, {0, 0}, {0, 0},       {{-100, 100}, {-10, 10}}},
    {"trunc", [](Arg x) { return dsl::trunc(x); },                 ref<mpfr_trunc>,     {0, 0},     {0, 0},     {{-10, 10}}},
    {"round", [](Arg x) { return dsl::round(x); },                 ref<mpfr_round>,     {0, 0},     {0, 0},     {{-10, 10}}},
    {"rint",  [](Arg x) { return dsl::rint(x); },                  ref<mpfr_rint>,      {0, 0},     {0, 0},     {{-10, 10}}},
    {"copysign", [](Arg x, Arg y) { return dsl::copysign(x, y); }, ref<mpfr_copysign>,  {0, 0},     {0, 0},     {{-10, 10}, {-10, 10}}},
    {"nextafter", [](Arg x, Arg y) { return dsl::nextafter(x, y); }, nextafter_ref,     {0, 0},     {0, 0},     {{-10, 10}, {-10, 10}}},
  };
  // clang-format on
  return table;
}

}  // namespace rocjit::accuracy
