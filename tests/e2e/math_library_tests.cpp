// The math library on the device under test: every <cmath> function of the DSL against the C
// library (the CPU device calls glibc, so it matches to the bit or nearly; GPU code calls ocml,
// within a few ulp), the exact functions to the bit everywhere, classification, the integer bit
// functions and bitcast. tests/accuracy measures the error bounds themselves against MPFR.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using rocjit::testing::test_device;

namespace {

template <class T>
using lim = std::numeric_limits<T>;

// Distance in representable values between two floats of one type (0: the same bits, or both NaN),
// computed on integers: the floats' bits mapped to a line ordered like the values.
template <class T>
double ulp_distance(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : lim<double>::infinity();
  if (a == b) return 0;
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  auto ordered = [](T v) {
    __int128 i = std::bit_cast<I>(v);
    return i < 0 ? __int128(lim<I>::min()) - i : i;
  };
  __int128 d = ordered(a) - ordered(b);
  return static_cast<double>(d < 0 ? -d : d);
}

template <class T>
struct Fn {
  const char* name;
  std::function<Value(const Operand&, const Operand&)> dsl;
  std::function<T(T, T)> host;
  T lo, hi;  // the first argument's range; the second one's is [0.5, 4]
};

// Every <cmath> function the DSL offers with an approximate result, f32 or f64.
template <class T>
std::vector<Fn<T>> approximate_functions() {
  return {
      {"exp", [](auto& x, auto&) { return exp(x); }, [](T x, T) { return std::exp(x); }, -20, 20},
      {"exp2", [](auto& x, auto&) { return exp2(x); }, [](T x, T) { return std::exp2(x); }, -20, 20},
      {"exp10", [](auto& x, auto&) { return exp10(x); }, [](T x, T) { return sizeof(T) == 4 ? ::exp10f(x) : ::exp10(x); }, -10, 10},
      {"expm1", [](auto& x, auto&) { return expm1(x); }, [](T x, T) { return std::expm1(x); }, -5, 5},
      {"log", [](auto& x, auto&) { return log(x); }, [](T x, T) { return std::log(x); }, 1e-3, 1e3},
      {"log2", [](auto& x, auto&) { return log2(x); }, [](T x, T) { return std::log2(x); }, 1e-3, 1e3},
      {"log10", [](auto& x, auto&) { return log10(x); }, [](T x, T) { return std::log10(x); }, 1e-3, 1e3},
      {"log1p", [](auto& x, auto&) { return log1p(x); }, [](T x, T) { return std::log1p(x); }, -0.9, 10},
      {"sin", [](auto& x, auto&) { return sin(x); }, [](T x, T) { return std::sin(x); }, -100, 100},
      {"cos", [](auto& x, auto&) { return cos(x); }, [](T x, T) { return std::cos(x); }, -100, 100},
      {"tan", [](auto& x, auto&) { return tan(x); }, [](T x, T) { return std::tan(x); }, -1.5, 1.5},
      {"asin", [](auto& x, auto&) { return asin(x); }, [](T x, T) { return std::asin(x); }, -1, 1},
      {"acos", [](auto& x, auto&) { return acos(x); }, [](T x, T) { return std::acos(x); }, -1, 1},
      {"atan", [](auto& x, auto&) { return atan(x); }, [](T x, T) { return std::atan(x); }, -50, 50},
      {"atan2", [](auto& x, auto& y) { return atan2(x, y); }, [](T x, T y) { return std::atan2(x, y); }, -5, 5},
      {"sinh", [](auto& x, auto&) { return sinh(x); }, [](T x, T) { return std::sinh(x); }, -10, 10},
      {"cosh", [](auto& x, auto&) { return cosh(x); }, [](T x, T) { return std::cosh(x); }, -10, 10},
      {"tanh", [](auto& x, auto&) { return tanh(x); }, [](T x, T) { return std::tanh(x); }, -10, 10},
      {"asinh", [](auto& x, auto&) { return asinh(x); }, [](T x, T) { return std::asinh(x); }, -50, 50},
      {"acosh", [](auto& x, auto&) { return acosh(x); }, [](T x, T) { return std::acosh(x); }, 1, 50},
      {"atanh", [](auto& x, auto&) { return atanh(x); }, [](T x, T) { return std::atanh(x); }, -0.99, 0.99},
      {"pow", [](auto& x, auto& y) { return pow(x, y); }, [](T x, T y) { return std::pow(x, y); }, 0.01, 10},
      {"cbrt", [](auto& x, auto&) { return cbrt(x); }, [](T x, T) { return std::cbrt(x); }, -1000, 1000},
      {"hypot", [](auto& x, auto& y) { return hypot(x, y); }, [](T x, T y) { return std::hypot(x, y); }, -100, 100},
      {"erf", [](auto& x, auto&) { return erf(x); }, [](T x, T) { return std::erf(x); }, -4, 4},
      {"erfc", [](auto& x, auto&) { return erfc(x); }, [](T x, T) { return std::erfc(x); }, -2, 8},
      {"tgamma", [](auto& x, auto&) { return tgamma(x); }, [](T x, T) { return std::tgamma(x); }, 0.1, 20},
      {"lgamma", [](auto& x, auto&) { return lgamma(x); }, [](T x, T) { return std::lgamma(x); }, 0.1, 50},
  };
}

template <class T>
void check_approximate(double gpu_bound) {
  const bool cpu = test_device().kind() == "cpu";
  constexpr int n = 512;
  for (const Fn<T>& f : approximate_functions<T>()) {
    Kernel k = kernel(std::string("lib_") + f.name, [&](Array<T> x, Array<T> y, Array<T> out) {
      Int i = global_id(0);
      If(i < x.shape(0), [&] { out(i) = f.dsl(x(i), y(i)); });
    });
    std::vector<T> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      x[i] = f.lo + (f.hi - f.lo) * T(i) / T(n - 1);
      y[i] = T(0.5) + T(3.5) * T((i * 37) % n) / T(n);
    }
    auto dout = device_array<T>({n});
    k[{n / 64, 64}](to_device(x), to_device(y), dout);
    std::vector<T> out = dout.copy_to_host().to_vector();
    double worst = 0;
    int worst_at = 0;
    for (int i = 0; i < n; ++i) {
      double d = ulp_distance(out[i], f.host(x[i], y[i]));
      if (d > worst) worst = d, worst_at = i;
    }
    INFO(f.name << " on " << test_device().id() << ": worst " << worst << " ulp from the C library at x = "
                << x[worst_at] << ", y = " << y[worst_at]);
    // The CPU device calls the same C library (up to the last bit, in case LLVM folds a call).
    CHECK(worst <= (cpu ? 1.0 : gpu_bound));
  }
}

}  // namespace

TEST_CASE("every approximate <cmath> function runs on the device, close to the C library") {
  // GPU code calls ocml, whose results may differ from glibc's by the sum of both libraries'
  // errors (tgamma: a few ulp each); tests/accuracy bounds each against MPFR.
  SECTION("f32") { check_approximate<float>(8); }
  SECTION("f64") { check_approximate<double>(8); }
}

TEST_CASE("exactly defined math functions give the same bits on every device") {
  const double inf = lim<double>::infinity(), nan = lim<double>::quiet_NaN();
  std::vector<double> x{2.5, -2.5, 3.5, -0.5, 0.5, 5.5, -7.25, 1e300, -0.0, inf, -inf, nan, 1.0, 0x1p-1074, 123456.789};
  std::vector<double> y{2.0, -2.0, 0.75, 3.0, -0.0, -2.0, 2.0, 3.0, 1.0, 1.0, 2.0, 1.0, 2.0, 0.0, -1.0};
  const int n = static_cast<int>(x.size());
  constexpr int fns = 14;
  auto run = [&]<class T>(T) {
    Kernel k = kernel(std::string("exact_") + (sizeof(T) == 4 ? "f32" : "f64"),
                      [](Array<T> a, Array<T> b, Array<T, 2> out, Array<int32_t, 2> flags) {
                        Int i = global_id(0);
                        If(i < a.shape(0), [&] {
                          Value u = a(i), v = b(i);
                          out(0, i) = trunc(u);
                          out(1, i) = round(u);
                          out(2, i) = rint(u);
                          out(3, i) = floor(u);
                          out(4, i) = ceil(u);
                          out(5, i) = fmod(u, v);
                          out(6, i) = remainder(u, v);
                          out(7, i) = copysign(u, v);
                          out(8, i) = nextafter(u, v);
                          out(9, i) = ldexp(u, i - 7);
                          out(10, i) = fabs(u);
                          out(11, i) = fmin(u, v);
                          out(12, i) = fmax(u, v);
                          out(13, i) = sqrt(u);
                          flags(0, i) = cast<int32_t>(isnan(u));
                          flags(1, i) = cast<int32_t>(isinf(u));
                          flags(2, i) = cast<int32_t>(isfinite(u));
                          flags(3, i) = cast<int32_t>(signbit(u));
                        });
                      });
    std::vector<T> a(x.begin(), x.end()), b(y.begin(), y.end());
    auto out = device_array<T>({fns, n});
    auto flags = device_array<int32_t>({4, n});
    k[{1, 64}](to_device(a), to_device(b), out, flags);
    std::vector<T> o = out.copy_to_host().to_vector();
    std::vector<int32_t> f = flags.copy_to_host().to_vector();
    for (int i = 0; i < n; ++i) {
      T u = a[i], v = b[i];
      INFO("x = " << u << ", y = " << v);
      std::vector<T> want{std::trunc(u),          std::round(u),         std::rint(u),       std::floor(u),
                          std::ceil(u),           std::fmod(u, v),       std::remainder(u, v), std::copysign(u, v),
                          std::nextafter(u, v),   std::ldexp(u, i - 7),  std::fabs(u),       std::fmin(u, v),
                          std::fmax(u, v),        std::sqrt(u)};
      for (int j = 0; j < fns; ++j) {
        INFO("function " << j << ": " << o[j * n + i] << " vs " << want[j]);
        CHECK(ulp_distance(o[j * n + i], want[j]) == 0);
        if (!std::isnan(want[j])) CHECK(std::signbit(o[j * n + i]) == std::signbit(want[j]));
      }
      CHECK(f[0 * n + i] == int(std::isnan(u)));
      CHECK(f[1 * n + i] == int(std::isinf(u)));
      CHECK(f[2 * n + i] == int(std::isfinite(u)));
      CHECK(f[3 * n + i] == int(std::signbit(u)));
    }
  };
  SECTION("f32") { run(0.0f); }
  SECTION("f64") { run(0.0); }
}

TEST_CASE("integer bit functions and mul_hi match C++ on every integer type") {
  auto run = [&]<class T>(T) {
    using U = std::make_unsigned_t<T>;
    constexpr int w = sizeof(T) * 8;
    std::vector<T> x{0, 1, T(-1), lim<T>::min(), lim<T>::max(), T(0x12345678), T(U(0xF0F0F0F0F0F0F0F0ull)), 96, 7};
    std::vector<T> y{3, T(w + 5), 1, T(-1), 2, T(w - 1), 0, T(-3), lim<T>::max()};
    const int n = static_cast<int>(x.size());
    Kernel k = kernel(std::string("bits_") + (std::is_signed_v<T> ? "i" : "u") + std::to_string(w),
                      [](Array<T> a, Array<T> b, Array<T, 2> out) {
                        Int i = global_id(0);
                        If(i < a.shape(0), [&] {
                          out(0, i) = popcount(a(i));
                          out(1, i) = clz(a(i));
                          out(2, i) = ctz(a(i));
                          out(3, i) = bitreverse(a(i));
                          out(4, i) = rotl(a(i), b(i));
                          out(5, i) = rotr(a(i), b(i));
                          out(6, i) = mul_hi(a(i), b(i));
                        });
                      });
    auto out = device_array<T>({7, n});
    k[{1, 64}](to_device(x), to_device(y), out);
    std::vector<T> o = out.copy_to_host().to_vector();
    for (int i = 0; i < n; ++i) {
      U a = U(x[i]);
      int s = static_cast<int>(U(y[i]) % w);
      U reversed = 0;
      for (int bit = 0; bit < w; ++bit) reversed |= U((a >> bit) & 1) << (w - 1 - bit);
      T high;
      if constexpr (std::is_signed_v<T>) high = T((__int128(x[i]) * __int128(y[i])) >> w);
      else high = T((static_cast<unsigned __int128>(x[i]) * static_cast<unsigned __int128>(y[i])) >> w);
      std::vector<T> want{T(std::popcount(a)), T(std::countl_zero(a)), T(std::countr_zero(a)), T(reversed),
                          T(std::rotl(a, s)),  T(std::rotr(a, s)),     high};
      for (int j = 0; j < 7; ++j) {
        INFO("x = " << +x[i] << ", y = " << +y[i] << ", function " << j);
        CHECK(o[j * n + i] == want[j]);
      }
    }
  };
  SECTION("i32") { run(int32_t{}); }
  SECTION("u32") { run(uint32_t{}); }
  SECTION("i64") { run(int64_t{}); }
  SECTION("u64") { run(uint64_t{}); }
}

TEST_CASE("bitcast reinterprets bits both ways") {
  Kernel k = kernel("bitcasts", [](Array<float> f, Array<uint32_t> u, Array<double> d, Array<int64_t> l) {
    Int i = global_id(0);
    If(i < f.shape(0), [&] {
      Value bits = bitcast<uint32_t>(f(i));
      u(i) = bits ^ 0x80000000u;  // flip the sign bit
      f(i) = bitcast<float>(bits + 1u);  // the next float away from zero
      Value lb = bitcast<int64_t>(d(i));
      l(i) = lb;
      d(i) = bitcast<double>(lb & 0x7fffffffffffffffll);  // |d|
    });
  });
  std::vector<float> f{1.0f, -2.5f, 0.0f, 3e38f};
  std::vector<double> d{-1.0, 2.5, -0.0, -1e300};
  auto df = to_device(f);
  auto dd = to_device(d);
  auto du = device_array<uint32_t>({4});
  auto dl = device_array<int64_t>({4});
  k[{1, 4}](df, du, dd, dl);
  std::vector<float> f2 = df.copy_to_host().to_vector();
  std::vector<uint32_t> u = du.copy_to_host().to_vector();
  std::vector<double> d2 = dd.copy_to_host().to_vector();
  std::vector<int64_t> l = dl.copy_to_host().to_vector();
  for (int i = 0; i < 4; ++i) {
    CHECK(u[i] == (std::bit_cast<uint32_t>(f[i]) ^ 0x80000000u));
    CHECK(f2[i] == std::nextafter(f[i], std::copysign(lim<float>::infinity(), f[i])));
    CHECK(l[i] == std::bit_cast<int64_t>(d[i]));
    CHECK(std::bit_cast<uint64_t>(d2[i]) == std::bit_cast<uint64_t>(std::fabs(d[i])));
  }
}
