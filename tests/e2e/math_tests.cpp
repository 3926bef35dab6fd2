// Floating-point arithmetic and math functions on the device under test, checked against the C++
// library: exactly for the correctly rounded operations (+ - * / sqrt fma floor min max, f32 and
// f64), within stated bounds for the approximate ones (exp, exp2, log, log2, sin, cos in f32).
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

namespace {

// Inputs spanning signs, magnitudes and awkward quotients (denormal and near-overflow f32 results
// are included: division must stay correctly rounded there too).
std::vector<float> inputs_a() {
  std::vector<float> v;
  for (int i = 0; i < 300; ++i) v.push_back(std::ldexp(float(i % 37) - 18.25f, (i % 11) - 5) + 0.001f * float(i));
  v.push_back(3.0e38f);
  v.push_back(1.0e-38f);
  v.push_back(-7.5f);
  return v;
}
std::vector<float> inputs_b(size_t n) {
  std::vector<float> v;
  for (size_t i = 0; i < n; ++i) v.push_back(std::ldexp(float((i * 7) % 29) + 0.75f, int(i % 9) - 4) * ((i % 3) ? 1.f : -1.f));
  v[n - 3] = 1.0e-3f;   // 3e38 / 1e-3 overflows to inf
  v[n - 2] = 3.0e5f;    // 1e-38 / 3e5: a denormal quotient
  return v;
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

}  // namespace

TEST_CASE("f32 arithmetic is correctly rounded and math functions are within their bounds") {
  constexpr int ops = 15;
  Kernel k = kernel("math_f32", [](Array<float> x, Array<float> y, Array<float, 2> out) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] {
      Float a = x(i), b = y(i);
      out(0, i) = a + b;
      out(1, i) = a - b;
      out(2, i) = a * b;
      out(3, i) = a / b;
      out(4, i) = sqrt(fabs(a));
      out(5, i) = fma(a, b, a);
      out(6, i) = floor(a);
      out(7, i) = fmin(a, b);
      out(8, i) = fmax(a, b);
      Float small = fmin(fmax(a, -20.0f), 20.0f);
      out(9, i) = exp(small);
      out(10, i) = exp2(small);
      out(11, i) = log(fabs(a) + 1.0f);
      out(12, i) = log2(fabs(a) + 1.0f);
      out(13, i) = sin(small);
      out(14, i) = cos(small);
    });
  });
  auto a = inputs_a();
  auto b = inputs_b(a.size());
  int64_t n = static_cast<int64_t>(a.size());
  auto da = to_device(a), db = to_device(b);
  auto dout = device_array<float>({ops, n});
  k[{static_cast<int>((n + 63) / 64), 64}](da, db, dout);
  std::vector<float> out = dout.copy_to_host().to_vector();
  for (int64_t i = 0; i < n; ++i) {
    float x = a[i], y = b[i];
    auto at = [&](int op) { return out[op * n + i]; };
    INFO("i = " << i << ", a = " << x << ", b = " << y);
    CHECK(bits(at(0)) == bits(x + y));
    CHECK(bits(at(1)) == bits(x - y));
    CHECK(bits(at(2)) == bits(x * y));
    CHECK(bits(at(3)) == bits(x / y));
    CHECK(bits(at(4)) == bits(std::sqrt(std::fabs(x))));
    CHECK(bits(at(5)) == bits(std::fma(x, y, x)));
    CHECK(bits(at(6)) == bits(std::floor(x)));
    CHECK(bits(at(7)) == bits(std::fmin(x, y)));
    CHECK(bits(at(8)) == bits(std::fmax(x, y)));
    float s = std::fmin(std::fmax(x, -20.0f), 20.0f);
    // Approximate functions: relative error 2^-20 (about 8 ulp) for exp/log, absolute 2^-16 for
    // sin/cos of arguments up to 20 (the hardware reduces the argument in f32).
    auto rel = [](double got, double want) { return std::fabs(got - want) <= std::ldexp(std::fabs(want), -20) + 1e-37; };
    CHECK(rel(at(9), std::exp(double(s))));
    CHECK(rel(at(10), std::exp2(double(s))));
    double log_argument = std::fabs(x) + 1.0f;  // rounded to f32 as in the kernel
    CHECK(rel(at(11), std::log(log_argument)));
    CHECK(rel(at(12), std::log2(log_argument)));
    CHECK(std::fabs(at(13) - std::sin(double(s))) <= std::ldexp(1.0, -16));
    CHECK(std::fabs(at(14) - std::cos(double(s))) <= std::ldexp(1.0, -16));
  }
}

TEST_CASE("f64 arithmetic and sqrt are correctly rounded") {
  constexpr int ops = 9;
  Kernel k = kernel("math_f64", [](Array<double> x, Array<double> y, Array<double, 2> out) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] {
      Double a = x(i), b = y(i);
      out(0, i) = a + b;
      out(1, i) = a - b;
      out(2, i) = a * b;
      out(3, i) = a / b;
      out(4, i) = sqrt(fabs(a));
      out(5, i) = fma(a, b, a);
      out(6, i) = floor(a);
      out(7, i) = fmin(a, b);
      out(8, i) = fmax(a, b);
    });
  });
  std::vector<double> a, b;
  for (int i = 0; i < 257; ++i) {
    a.push_back(std::ldexp(double(i % 41) - 20.125, (i % 23) - 11) + 1e-9 * i);
    b.push_back(std::ldexp(double((i * 5) % 31) + 0.3, (i % 13) - 6) * ((i % 4) ? 1.0 : -1.0));
  }
  a.push_back(1e308), b.push_back(1e-10);    // overflows to inf
  a.push_back(1e-300), b.push_back(1e20);    // a denormal quotient
  int64_t n = static_cast<int64_t>(a.size());
  auto da = to_device(a), db = to_device(b);
  auto dout = device_array<double>({ops, n});
  k[{static_cast<int>((n + 63) / 64), 64}](da, db, dout);
  std::vector<double> out = dout.copy_to_host().to_vector();
  for (int64_t i = 0; i < n; ++i) {
    double x = a[i], y = b[i];
    auto at = [&](int op) { return out[op * n + i]; };
    INFO("i = " << i << ", a = " << x << ", b = " << y);
    CHECK(bits(at(0)) == bits(x + y));
    CHECK(bits(at(1)) == bits(x - y));
    CHECK(bits(at(2)) == bits(x * y));
    CHECK(bits(at(3)) == bits(x / y));
    CHECK(bits(at(4)) == bits(std::sqrt(std::fabs(x))));
    CHECK(bits(at(5)) == bits(std::fma(x, y, x)));
    CHECK(bits(at(6)) == bits(std::floor(x)));
    CHECK(bits(at(7)) == bits(std::fmin(x, y)));
    CHECK(bits(at(8)) == bits(std::fmax(x, y)));
  }
}

TEST_CASE("fmin and fmax ignore a NaN operand and order -0 below +0, also next to a converted integer or a constant") {
  // LLVM 22's X86 llvm.minimumnum returned the NaN when the other operand was known not to be a
  // NaN (an integer converted to float); constants exercise the zero ordering.
  Kernel k = kernel("min_max_nan", [](Array<uint32_t> u, Array<float> y, Array<float, 2> out) {
    Int i = global_id(0);
    If(i < u.shape(0), [&] {
      Float a = cast<float>(u(i)), b = y(i);
      out(0, i) = fmin(a, b);
      out(1, i) = fmax(b, a);
      out(2, i) = min(a, b);
      out(3, i) = fmin(Float(0.0f), b);
      out(4, i) = fmax(b, Float(0.0f));
    });
  });
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<uint32_t> u = {0, 1, 7, 4000000000u, 5, 0};
  std::vector<float> y = {nan, nan, 3.0f, nan, -0.0f, -0.0f};
  int64_t n = static_cast<int64_t>(u.size());
  auto du = to_device(u);
  auto dy = to_device(y);
  auto dout = device_array<float>({5, n});
  k[{1, 64}](du, dy, dout);
  std::vector<float> out = dout.copy_to_host().to_vector();
  for (int64_t i = 0; i < n; ++i) {
    float a = float(u[i]), b = y[i];
    auto at = [&](int op) { return out[op * n + i]; };
    auto min_number = [](float p, float q) {
      if (std::isnan(p)) return q;
      if (std::isnan(q)) return p;
      if (p == 0 && q == 0) return std::signbit(p) ? p : q;
      return std::fmin(p, q);
    };
    auto max_number = [](float p, float q) {
      if (std::isnan(p)) return q;
      if (std::isnan(q)) return p;
      if (p == 0 && q == 0) return std::signbit(p) ? q : p;
      return std::fmax(p, q);
    };
    INFO("i = " << i << ", a = " << a << ", b = " << b);
    CHECK(bits(at(0)) == bits(min_number(a, b)));
    CHECK(bits(at(1)) == bits(max_number(b, a)));
    CHECK(bits(at(2)) == bits(min_number(a, b)));
    CHECK(bits(at(3)) == bits(min_number(0.0f, b)));
    CHECK(bits(at(4)) == bits(max_number(b, 0.0f)));
  }
}
