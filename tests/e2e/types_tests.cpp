// The 8- and 16-bit integer types and the 16-bit floats (half, bfloat16) on the device under test:
// arrays, arithmetic, conversions and promotion. Integer results are C++'s, wrapped to the
// type's width; float results must be the correctly rounded ones to the bit (README, "Types and
// promotion"), so the CPU and every GPU agree.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using rocjit::testing::test_device;

namespace {

template <class T>
std::string type_label() {
  return ir::type_name(ir::type_of<T>());
}

// C++'s result of an integer operation, wrapped to T (the DSL's i8 + i8 is an i8).
template <class T>
T wrap(int64_t v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<uint64_t>(v)));
}

template <class T>
void check_small_integer() {
  const int n = 256;
  std::vector<T> a(n), b(n);
  std::mt19937 rng(7);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<T>(rng());
    b[i] = static_cast<T>(rng());
  }
  a[0] = std::numeric_limits<T>::min(), b[0] = static_cast<T>(-1);  // INT_MIN / -1 wraps
  b[1] = 0;                                                         // x / 0 = 0, x % 0 = x
  constexpr int ops = 12;
  Kernel k = kernel("small_int_" + type_label<T>(), [](Array<T> x, Array<T> y, Array<T, 2> out, Array<int64_t> wide) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] {
      Expr<T> u = x(i), v = y(i);
      out(0, i) = u + v;
      out(1, i) = u - v;
      out(2, i) = u * v;
      out(3, i) = u / v;
      out(4, i) = u % v;
      out(5, i) = u & v;
      out(6, i) = u | v;
      out(7, i) = u ^ v;
      out(8, i) = u << (v & 7);
      out(9, i) = u >> (v & 7);
      out(10, i) = min(u, v);
      out(11, i) = max(u, v);
      // Widening is implicit and exact; a literal takes the type when it fits (u16 + 1000 is a
      // u16), otherwise the operation is on int (i8 + 1000).
      Long w = u;
      wide(i) = w * 1000 + cast<int64_t>(u + 1000);
    });
  });
  auto out = device_array<T>({ops, n});
  auto wide = device_array<int64_t>({n});
  k[{n / 64, 64}](to_device(a), to_device(b), out, wide);
  std::vector<T> o = out.copy_to_host().to_vector();
  std::vector<int64_t> w = wide.copy_to_host().to_vector();
  constexpr int bits = 8 * sizeof(T);
  for (int i = 0; i < n; ++i) {
    const int64_t x = a[i], y = b[i];
    INFO(type_label<T>() << ": x = " << x << ", y = " << y);
    const int64_t q = y == 0 ? 0 : (y == -1 ? -x : x / y);
    const int64_t r = y == 0 ? x : (y == -1 ? 0 : x % y);
    const int s = static_cast<int>(y & 7) % bits;
    const int64_t shr = std::is_signed_v<T> ? (x >> s) : static_cast<int64_t>(static_cast<uint64_t>(x) >> s);
    const T want[ops] = {wrap<T>(x + y), wrap<T>(x - y), wrap<T>(x * y), wrap<T>(q), wrap<T>(r), wrap<T>(x & y),
                         wrap<T>(x | y), wrap<T>(x ^ y), wrap<T>(x << s), wrap<T>(shr), static_cast<T>(std::min(x, y)),
                         static_cast<T>(std::max(x, y))};
    for (int j = 0; j < ops; ++j) {
      INFO("op " << j);
      CHECK(int64_t(o[j * n + i]) == int64_t(want[j]));
    }
    // u + 1000 stays T when 1000 fits T (wrapping), else it is an int.
    const bool fits = 1000 <= std::numeric_limits<T>::max();
    CHECK(w[i] == x * 1000 + (fits ? int64_t(wrap<T>(x + 1000)) : x + 1000));
  }
}

template <class H>
uint16_t bits_of(H h) {
  return h.bits();
}
template <class H>
H round_double(double d) {
  return H(d);
}
template <class H>
bool same_value(H a, H b) {
  const float x = a, y = b;
  return (std::isnan(x) && std::isnan(y)) || a.bits() == b.bits();
}

// Operands: random values across the type's range, their neighbours, and the specials.
template <class H>
std::vector<H> float16_samples(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<H> v;
  const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3c01, 0x7bff,
                              0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x3555, 0x4248, 0x7f7f, 0x0080, 0x007f, 0x3f80};
  for (uint16_t s : special) v.push_back(H::from_bits(s));
  while (static_cast<int>(v.size()) < n) {
    const uint16_t b = static_cast<uint16_t>(rng());
    const float x = H::from_bits(b);
    if (std::isnan(x)) continue;
    v.push_back(H::from_bits(b));
  }
  return v;
}

// add, sub, mul, div, sqrt and fma correctly rounded, and the conversions, to the bit.
template <class H>
void check_float16() {
  const int n = 512;
  std::vector<H> a = float16_samples<H>(n, 11), b = float16_samples<H>(n, 12), c = float16_samples<H>(n, 13);
  std::shuffle(b.begin(), b.end(), std::mt19937(3));
  std::vector<float> f(n);
  std::vector<double> d(n);
  std::vector<int64_t> l(n);
  std::mt19937_64 rng(5);
  for (int i = 0; i < n; ++i) {
    f[i] = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    d[i] = std::ldexp(static_cast<double>(static_cast<int64_t>(rng() >> 11)), static_cast<int>(rng() % 60) - 60 - 40);
    l[i] = static_cast<int64_t>(rng()) >> (rng() % 64);
  }
  // Integers on both sides of a bfloat16 / half midpoint by less than a double's precision can
  // tell a single rounding from a double one.
  l[0] = (int64_t{1} << 62) + (int64_t{1} << 54) + 1;
  l[1] = -l[0];
  l[2] = (int64_t{1} << 24) + (int64_t{1} << 16) + 1;
  l[3] = 65519;
  l[4] = 65520;
  constexpr int ops = 10;
  Kernel k = kernel("float16_" + type_label<H>(), [](Array<H> x, Array<H> y, Array<H> z, Array<float> xf,
                                                      Array<double> xd, Array<int64_t> xl, Array<H, 2> out,
                                                      Array<int32_t> xi, Array<float> back) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] {
      Expr<H> u = x(i), v = y(i), w = z(i);
      out(0, i) = u + v;
      out(1, i) = u - v;
      out(2, i) = u * v;
      out(3, i) = u / v;
      out(4, i) = sqrt(u);
      out(5, i) = fma(u, v, w);
      out(6, i) = cast<H>(xf(i));
      out(7, i) = cast<H>(xd(i));
      out(8, i) = cast<H>(xl(i));
      out(9, i) = -u * 2;  // the literal takes u's type
      xi(i) = cast<int32_t>(u);
      back(i) = u;  // widening to float is exact and implicit
    });
  });
  auto out = device_array<H>({ops, n});
  auto xi = device_array<int32_t>({n});
  auto back = device_array<float>({n});
  k[{n / 64, 64}](to_device(a), to_device(b), to_device(c), to_device(f), to_device(d), to_device(l), out, xi, back);
  std::vector<H> o = out.copy_to_host().to_vector();
  std::vector<int32_t> ints = xi.copy_to_host().to_vector();
  std::vector<float> wide = back.copy_to_host().to_vector();
  int checked = 0;
  for (int i = 0; i < n; ++i) {
    const double x = float(a[i]), y = float(b[i]), z = float(c[i]);
    INFO(type_label<H>() << ": x = " << x << " (" << a[i].bits() << "), y = " << y << ", z = " << z);
    // In double, each of these is exact or rounded with 53 bits, more than twice the 16-bit
    // formats' precision plus two: the one rounding to H below is then the correct one.
    H want[ops] = {H(x + y), H(x - y), H(x * y), H(x / y), H(std::sqrt(x)), H(0.0), H(double(f[i])), H(d[i]),
                   H(l[i]), H(-x * 2)};
    // fma: the exact x * y + z is representable in double when the exponents are close enough.
    const double p = x * y;
    const bool exact_in_double = std::isfinite(p) && (p == 0 || z == 0 || std::fabs(std::ilogb(p) - std::ilogb(z)) < 25);
    want[5] = H(p + z);
    for (int j = 0; j < ops; ++j) {
      if (j == 5 && !exact_in_double) continue;
      INFO("op " << j << ": got " << float(o[j * n + i]) << " (" << o[j * n + i].bits() << "), want "
                 << float(want[j]) << " (" << want[j].bits() << ")");
      CHECK(same_value(o[j * n + i], want[j]));
      ++checked;
    }
    CHECK((wide[i] == float(a[i]) || (std::isnan(wide[i]) && std::isnan(float(a[i])))));
    const float xf = a[i];
    const int32_t want_int = std::isnan(xf) ? 0 : xf >= 0x1p31f ? INT32_MAX : xf < -0x1p31f ? INT32_MIN : int32_t(xf);
    CHECK(ints[i] == want_int);
  }
  CHECK(checked > n * 9);
}

// fma must round once: x * y lands exactly on a midpoint between two neighbours and z is far too
// small to show in a double sum, yet decides the direction (a double fma then a rounding to H
// would tie to even instead).
template <class H>
void check_fma_single_rounding() {
  constexpr int precision = std::is_same_v<H, half> ? 11 : 8;
  std::vector<H> xs, ys, zs;
  std::vector<H> expected;
  // Search products of H values that land exactly on a midpoint of H.
  for (uint16_t bx = 0x3c01; xs.size() < 16 && bx < 0x3c00 + 0x80; ++bx) {
    for (uint16_t by = 0x3c01; xs.size() < 16 && by < 0x3c00 + 0x80; ++by) {
      const double p = double(float(H::from_bits(bx))) * double(float(H::from_bits(by)));
      // p is a midpoint of H when it lies exactly half an H ulp above an H value m.
      const double ulp = std::ldexp(1.0, std::ilogb(p) - (precision - 1));
      const double m = std::floor(p / ulp) * ulp;
      if (p - m != ulp / 2) continue;
      const double tiny = std::is_same_v<H, half> ? 0x1p-24 : 0x1p-133;  // the smallest subnormal
      for (int sign : {1, -1}) {
        xs.push_back(H::from_bits(bx));
        ys.push_back(H::from_bits(by));
        zs.push_back(H(sign * tiny));
        expected.push_back(H(sign > 0 ? m + ulp : m));
      }
    }
  }
  REQUIRE(xs.size() >= 8);
  Kernel k = kernel("fma_once_" + type_label<H>(), [](Array<H> x, Array<H> y, Array<H> z, Array<H> out) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] { out(i) = fma(x(i), y(i), z(i)); });
  });
  auto out = device_array<H>({static_cast<int64_t>(xs.size())});
  k[{1, 64}](to_device(xs), to_device(ys), to_device(zs), out);
  std::vector<H> o = out.copy_to_host().to_vector();
  for (size_t i = 0; i < xs.size(); ++i) {
    INFO(type_label<H>() << ": fma(" << float(xs[i]) << ", " << float(ys[i]) << ", " << float(zs[i]) << ")");
    CHECK(o[i].bits() == expected[i].bits());
  }
}

}  // namespace

TEST_CASE("8- and 16-bit integers wrap at their width, widen implicitly, on every device") {
  SECTION("int8_t") { check_small_integer<int8_t>(); }
  SECTION("uint8_t") { check_small_integer<uint8_t>(); }
  SECTION("int16_t") { check_small_integer<int16_t>(); }
  SECTION("uint16_t") { check_small_integer<uint16_t>(); }
}

TEST_CASE("half and bfloat16 arithmetic and conversions are correctly rounded on every device") {
  SECTION("half") { check_float16<half>(); }
  SECTION("bfloat16") { check_float16<bfloat16>(); }
}

TEST_CASE("fma on half and bfloat16 rounds once, even when a double fma would round twice") {
  SECTION("half") { check_fma_single_rounding<half>(); }
  SECTION("bfloat16") { check_fma_single_rounding<bfloat16>(); }
}

TEST_CASE("16-bit values in shared memory, variables, wave shuffles and reductions") {
  const int n = 128;
  std::vector<half> h(n);
  std::vector<int16_t> s(n);
  for (int i = 0; i < n; ++i) {
    h[i] = half(0.25 * (i % 40) - 3);
    s[i] = static_cast<int16_t>(i * 997);
  }
  Kernel k = kernel("sixteen_bit_places", [](Array<half> x, Array<int16_t> y, Array<half> out_h, Array<int16_t> out_s,
                                             Array<half> sums) {
    auto tile = shared::array<half>({64});
    Int l = local_id(0), i = global_id(0);
    tile(l) = x(i);
    barrier(CLK_LOCAL_MEM_FENCE);
    Var<half> acc = tile(63 - l);
    acc += half(1.0);
    out_h(i) = acc;
    out_s(i) = wave::shuffle_xor(y(i), 1);
    Value m = wave::reduce_max(x(i));
    If(lane_id() == 0, [&] { sums(i / wave_size()) = m; });
  });
  auto oh = device_array<half>({n});
  auto os = device_array<int16_t>({n});
  const int ws = rocjit::testing::device_wave_size();
  auto sums = device_array<half>({n / ws});
  k[{n / 64, 64}](to_device(h), to_device(s), oh, os, sums);
  std::vector<half> got_h = oh.copy_to_host().to_vector();
  std::vector<int16_t> got_s = os.copy_to_host().to_vector();
  std::vector<half> got_sums = sums.copy_to_host().to_vector();
  for (int i = 0; i < n; ++i) {
    const int g = i / 64 * 64, l = i % 64;
    CHECK((float(got_h[i]) == float(h[g + 63 - l]) + 1.0f));
    CHECK(got_s[i] == s[i ^ 1]);
  }
  for (int w = 0; w < n / ws; ++w) {
    float m = -1e9f;
    for (int i = w * ws; i < (w + 1) * ws; ++i) m = std::max(m, float(h[i]));
    CHECK((float(got_sums[w]) == m));
  }
}
