// Total semantics (README, "Semantics"): every integer and conversion operation has one defined
// result on every device. One case per rule, run on the device under test with exact values.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

namespace {
template <class T>
using lim = std::numeric_limits<T>;

// Runs `k(x, y, out0, out1)` with one work-item per element and returns {out0, out1}.
template <class T, class R = T>
std::pair<std::vector<R>, std::vector<R>> run_binary(const Kernel& k, const std::vector<T>& x, const std::vector<T>& y) {
  REQUIRE(x.size() == y.size());
  DeviceArray<T> dx = to_device(x), dy = to_device(y);
  DeviceArray<R> d0 = device_array<R>({static_cast<int64_t>(x.size())});
  DeviceArray<R> d1 = device_array<R>({static_cast<int64_t>(x.size())});
  k[{1, static_cast<uint32_t>(x.size())}](dx, dy, d0, d1);
  return {d0.copy_to_host().to_vector(), d1.copy_to_host().to_vector()};
}

template <class T>
Kernel div_rem_kernel(const char* name) {
  return kernel(name, [](Array<T> x, Array<T> y, Array<T> q, Array<T> r) {
    Int i = global_id(0);
    If(i < x.shape(0), [&] {
      q(i) = x(i) / y(i);
      r(i) = x(i) % y(i);
    });
  });
}
}  // namespace

TEST_CASE("integer division by zero is 0 and the remainder is the dividend") {
  SECTION("i32") {
    std::vector<int32_t> x{7, -7, 0, lim<int32_t>::min(), lim<int32_t>::max(), 7, -7};
    std::vector<int32_t> y{0, 0, 0, 0, 0, 2, 2};
    auto [q, r] = run_binary(div_rem_kernel<int32_t>("div0_i32"), x, y);
    CHECK(q == std::vector<int32_t>{0, 0, 0, 0, 0, 3, -3});
    CHECK(r == std::vector<int32_t>{7, -7, 0, lim<int32_t>::min(), lim<int32_t>::max(), 1, -1});
  }
  SECTION("u32") {
    std::vector<uint32_t> x{7, 0, lim<uint32_t>::max(), 7};
    std::vector<uint32_t> y{0, 0, 0, 2};
    auto [q, r] = run_binary(div_rem_kernel<uint32_t>("div0_u32"), x, y);
    CHECK(q == std::vector<uint32_t>{0, 0, 0, 3});
    CHECK(r == std::vector<uint32_t>{7, 0, lim<uint32_t>::max(), 1});
  }
  SECTION("i64 and u64") {
    std::vector<int64_t> x{int64_t{1} << 40, -5};
    std::vector<int64_t> y{0, 0};
    auto [q, r] = run_binary(div_rem_kernel<int64_t>("div0_i64"), x, y);
    CHECK(q == std::vector<int64_t>{0, 0});
    CHECK(r == std::vector<int64_t>{int64_t{1} << 40, -5});
    std::vector<uint64_t> ux{lim<uint64_t>::max()}, uy{0};
    auto [uq, ur] = run_binary(div_rem_kernel<uint64_t>("div0_u64"), ux, uy);
    CHECK(uq == std::vector<uint64_t>{0});
    CHECK(ur == std::vector<uint64_t>{lim<uint64_t>::max()});
  }
  SECTION("a zero divisor computed at run time (a constant 0 is refused when the kernel is traced)") {
    Kernel k = kernel("div0_computed", [](Array<int32_t> x, Array<int32_t> y, Array<int32_t> q, Array<int32_t> r) {
      Int i = global_id(0);
      Int zero = i - i;
      q(i) = x(i) / zero;
      r(i) = y(i) % zero;
    });
    auto [q, r] = run_binary(k, std::vector<int32_t>{5, -9}, std::vector<int32_t>{11, -3});
    CHECK(q == std::vector<int32_t>{0, 0});
    CHECK(r == std::vector<int32_t>{11, -3});
  }
}

TEST_CASE("INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0") {
  std::vector<int32_t> x{lim<int32_t>::min(), lim<int32_t>::min(), 9, lim<int32_t>::max()};
  std::vector<int32_t> y{-1, 1, -1, -1};
  auto [q, r] = run_binary(div_rem_kernel<int32_t>("div_min_i32"), x, y);
  CHECK(q == std::vector<int32_t>{lim<int32_t>::min(), lim<int32_t>::min(), -9, -lim<int32_t>::max()});
  CHECK(r == std::vector<int32_t>{0, 0, 0, 0});
  std::vector<int64_t> x64{lim<int64_t>::min(), -8};
  std::vector<int64_t> y64{-1, -1};
  auto [q64, r64] = run_binary(div_rem_kernel<int64_t>("div_min_i64"), x64, y64);
  CHECK(q64 == std::vector<int64_t>{lim<int64_t>::min(), 8});
  CHECK(r64 == std::vector<int64_t>{0, 0});
}

TEST_CASE("shift amounts are taken modulo the bit width") {
  Kernel k = kernel("shifts", [](Array<int32_t> x, Array<int32_t> s, Array<int32_t> left, Array<int32_t> right) {
    Int i = global_id(0);
    left(i) = x(i) << s(i);
    right(i) = x(i) >> s(i);
  });
  std::vector<int32_t> x{1, 1, -16, -16, 3, 0x40000000};
  std::vector<int32_t> s{32, 33, 36, 32, -1, 65};
  auto [l, r] = run_binary(k, x, s);
  CHECK(l == std::vector<int32_t>{1, 2, -256, -16, lim<int32_t>::min(), lim<int32_t>::min()});
  CHECK(r == std::vector<int32_t>{1, 0, -1, -16, 0, 0x20000000});

  Kernel ku = kernel("shifts_u64", [](Array<uint64_t> x, Array<uint64_t> s, Array<uint64_t> left, Array<uint64_t> right) {
    Int i = global_id(0);
    left(i) = x(i) << s(i);
    right(i) = x(i) >> s(i);
  });
  auto [lu, ru] = run_binary(ku, std::vector<uint64_t>{1, lim<uint64_t>::max()}, std::vector<uint64_t>{64, 127});
  CHECK(lu == std::vector<uint64_t>{1, uint64_t{1} << 63});
  CHECK(ru == std::vector<uint64_t>{1, 1});
}

TEST_CASE("float to integer conversion saturates and maps NaN to 0") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  Kernel k = kernel("f2i", [](Array<float> x, Array<int32_t> s, Array<uint32_t> u) {
    Int i = global_id(0);
    s(i) = cast<int32_t>(x(i));
    u(i) = cast<uint32_t>(x(i));
  });
  std::vector<float> x{3.7f, -3.7f, 1e10f, -1e10f, nan, inf, -inf, 4e9f, -0.5f};
  DeviceArray<float> dx = to_device(x);
  auto ds = device_array<int32_t>({static_cast<int64_t>(x.size())});
  auto du = device_array<uint32_t>({static_cast<int64_t>(x.size())});
  k[{1, static_cast<uint32_t>(x.size())}](dx, ds, du);
  CHECK(ds.copy_to_host().to_vector() == std::vector<int32_t>{3, -3, lim<int32_t>::max(), lim<int32_t>::min(), 0,
                                                              lim<int32_t>::max(), lim<int32_t>::min(),
                                                              lim<int32_t>::max(), 0});
  CHECK(du.copy_to_host().to_vector() == std::vector<uint32_t>{3, 0, lim<uint32_t>::max(), 0, 0, lim<uint32_t>::max(), 0,
                                                               4000000000u, 0});

  Kernel k64 = kernel("d2l", [](Array<double> x, Array<int64_t> s) {
    Int i = global_id(0);
    s(i) = cast<int64_t>(x(i));
  });
  std::vector<double> xd{1e300, -1e300, std::nan(""), -2.5, 9007199254740993.0};
  DeviceArray<double> dxd = to_device(xd);
  auto dl = device_array<int64_t>({static_cast<int64_t>(xd.size())});
  k64[{1, static_cast<uint32_t>(xd.size())}](dxd, dl);
  CHECK(dl.copy_to_host().to_vector() ==
        std::vector<int64_t>{lim<int64_t>::max(), lim<int64_t>::min(), 0, -2, 9007199254740992});
}

TEST_CASE("signed integer arithmetic wraps in two's complement") {
  Kernel k = kernel("wraps", [](Array<int32_t> x, Array<int32_t> y, Array<int32_t> sum, Array<int32_t> other) {
    Int i = global_id(0);
    sum(i) = x(i) + y(i);
    other(i) = x(i) * y(i) - (-x(i)) + abs(x(i));
  });
  const int32_t max = lim<int32_t>::max(), min = lim<int32_t>::min();
  auto [s, o] = run_binary(k, std::vector<int32_t>{max, min, 3}, std::vector<int32_t>{1, -1, 2});
  CHECK(s == std::vector<int32_t>{min, max, 5});
  // The expected values wrap the exact (64-bit) results to 32 bits.
  auto wrap = [](int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); };
  CHECK(o == std::vector<int32_t>{wrap(int64_t{max} * 1 + max + max), wrap(int64_t{min} * -1 + min + min), 6 + 3 + 3});
}

TEST_CASE("For loops end instead of wrapping their counter") {
  // Counts the iterations of For(begin, end, step) where i + step overflows after the last one.
  Kernel k = kernel("for_no_wrap", [](Array<int32_t> begin, Array<int32_t> end, Array<int32_t> step, Array<int32_t> count) {
    Int t = global_id(0);
    Var<int32_t> n = 0;
    For(begin(t), end(t), step(t), [&](Int) {
      n += 1;
      If(n > 1000, [&] { Break(); });  // a wrapping counter would run (almost) forever
    });
    count(t) = n;
  });
  const int32_t max = lim<int32_t>::max(), min = lim<int32_t>::min();
  std::vector<int32_t> begin{max - 5, min + 5, 0, max - 1};
  std::vector<int32_t> end{max, min, 10, max};
  std::vector<int32_t> step{4, -4, 3, 1};
  DeviceArray<int32_t> db = to_device(begin), de = to_device(end), ds = to_device(step);
  auto dc = device_array<int32_t>({4});
  k[{1, 4}](db, de, ds, dc);
  CHECK(dc.copy_to_host().to_vector() == std::vector<int32_t>{2, 2, 4, 1});

  Kernel kc = kernel("for_no_wrap_const", [](Array<int32_t> count) {
    Var<int32_t> n = 0;
    For(lim<int32_t>::max() - 10, lim<int32_t>::max(), 7, [&](Int) {
      n += 1;
      If(n > 1000, [&] { Break(); });
    });
    count(0) = n;
  });
  auto dk = device_array<int32_t>({1});
  kc[{1, 1}](dk);
  CHECK(dk.copy_to_host().to_vector() == std::vector<int32_t>{2});
}
