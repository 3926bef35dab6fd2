// vectorize and guvectorize (Numba's ufunc and gufunc builders), after Numba's
// test_ufuncbuilding and test_gufuncbuilding: results checked against the host on every device,
// and the errors checked for the builder's name and the caller's file:line.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "e2e.hpp"

using namespace rocjit;
using Catch::Matchers::Contains;

namespace {

// 0, 1, 2, ... scaled, as floats (exact in float for the sizes used here).
std::vector<float> ramp(size_t n, float scale = 1.0f, float offset = 0.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = offset + scale * static_cast<float>(i);
  return v;
}

// "vectorize_tests.cpp:<line>": how errors name a call on that line.
std::string at_line(int line) { return "vectorize_tests.cpp:" + std::to_string(line); }

}  // namespace

// ---- vectorize ----------------------------------------------------------------------------

TEST_CASE("vectorize: a generic add over 1-D arrays gives the host's sums") {
  auto add = vectorize("add", [](auto x, auto y) { return x + y; });
  const std::vector<float> a = ramp(300), b = ramp(300, 0.5f, 3.0f);
  DeviceArray<float> r = add(to_device(a), to_device(b));
  REQUIRE(r.shape() == Shape{300});
  HostArray<float> h = r.copy_to_host();
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(h(i) == a[i] + b[i]);

  // Integers: a second kernel from the same lambda, with an integer result.
  const std::vector<int32_t> ia = {1, -2, 3, 40000, -7}, ib = {10, 20, -30, 5, 7};
  DeviceArray<int32_t> ir = add(to_device(ia), to_device(ib));
  CHECK(ir.copy_to_host().to_vector() == std::vector<int32_t>{11, 18, -27, 40005, 0});
  CHECK(add.kernel_count() == 2);
}

TEST_CASE("vectorize: N-D arrays, Fortran order and slices are elementwise") {
  auto fma3 = vectorize("fma3", [](auto x, auto y, auto z) { return x * y + z; });
  // 2-D and 3-D C-contiguous arrays (the contiguous path).
  auto a2 = to_device(ramp(12 * 20), {12, 20});
  auto b2 = to_device(ramp(12 * 20, 2.0f), {12, 20});
  auto c2 = to_device(ramp(12 * 20, 1.0f, -5.0f), {12, 20});
  HostArray<float> r2 = fma3(a2, b2, c2).copy_to_host();
  REQUIRE(r2.shape() == Shape{12, 20});
  for (int64_t i = 0; i < 12; ++i)
    for (int64_t j = 0; j < 20; ++j) {
      const float k = static_cast<float>(i * 20 + j);
      REQUIRE(r2(i, j) == k * (2.0f * k) + (k - 5.0f));
    }
  auto a3 = to_device(ramp(4 * 5 * 6, 0.25f), {4, 5, 6});
  HostArray<float> r3 = fma3(a3, a3, a3).copy_to_host();
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t k = 0; k < 6; ++k) {
        const float x = 0.25f * static_cast<float>((i * 5 + j) * 6 + k);
        REQUIRE(r3(i, j, k) == x * x + x);
      }
  // A Fortran-ordered array and a strided slice take the strided path; the result is C-ordered.
  const std::vector<float> host = ramp(6 * 8);
  auto f = to_device(host, {6, 8}, Order::F);  // stored column by column; f(i, j) == host[i * 8 + j]
  REQUIRE(f.is_f_contiguous());
  auto c = to_device(host, {6, 8});
  auto sliced = c.slice({{0, Slice::end, 2}, {1, 7}});  // rows 0, 2, 4; columns 1..6: shape (3, 6)
  auto f_part = f.slice({{1, 4}, {0, 6}});              // rows 1..3, columns 0..5: shape (3, 6)
  HostArray<float> rf = fma3(f, c, c).copy_to_host();
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 8; ++j) REQUIRE(rf(i, j) == host[i * 8 + j] * host[i * 8 + j] + host[i * 8 + j]);
  HostArray<float> rs = fma3(sliced, f_part, 1.0f).copy_to_host();
  REQUIRE(rs.shape() == Shape{3, 6});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 6; ++j)
      REQUIRE(rs(i, j) == host[2 * i * 8 + (j + 1)] * host[(i + 1) * 8 + j] + 1.0f);
}

TEST_CASE("vectorize: scalars mix with arrays and take part in the result type") {
  auto axpb = vectorize("axpb", [](auto a, auto x, auto b) { return a * x + b; });
  const std::vector<float> x = ramp(100, 0.5f);
  auto dx = to_device(x);
  // float scalars with a float array: a float result.
  DeviceArray<float> r = axpb(3.0f, dx, 1.5f);
  HostArray<float> h = r.copy_to_host();
  for (size_t i = 0; i < x.size(); ++i) REQUIRE(h(i) == 3.0f * x[i] + 1.5f);
  // A double scalar promotes the result to double, as the DSL's arithmetic does.
  auto rd = axpb(2.0, dx, 1);
  static_assert(std::is_same_v<decltype(rd), DeviceArray<double>>);
  HostArray<double> hd = rd.copy_to_host();
  for (size_t i = 0; i < x.size(); ++i) REQUIRE(hd(i) == 2.0 * static_cast<double>(x[i]) + 1.0);
  // An int scalar with an int array stays int; the scalar may come first or last.
  const std::vector<int32_t> xi = {1, 2, 3, -4};
  auto ri = axpb(5, to_device(xi), -1);
  static_assert(std::is_same_v<decltype(ri), DeviceArray<int32_t>>);
  CHECK(ri.copy_to_host().to_vector() == std::vector<int32_t>{4, 9, 14, -21});
  // Only scalars: one element.
  DeviceArray<float> one = axpb(2.0f, 3.0f, 4.0f);
  CHECK(one.shape() == Shape{1});
  CHECK(one.copy_to_host()(0) == 10.0f);
}

TEST_CASE("vectorize: shapes broadcast as in NumPy") {
  auto sub = vectorize("sub", [](auto x, auto y) { return x - y; });
  // (4, 1) with (1, 5): (4, 5).
  auto col = to_device(ramp(4, 10.0f), {4, 1});
  auto row = to_device(ramp(5), {1, 5});
  HostArray<float> h = sub(col, row).copy_to_host();
  REQUIRE(h.shape() == Shape{4, 5});
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 5; ++j) REQUIRE(h(i, j) == 10.0f * static_cast<float>(i) - static_cast<float>(j));
  // Ranks align at the right: (3) with (2, 3), and (2, 1, 4) with (3, 1).
  auto v = to_device(ramp(3, 1.0f, 100.0f));
  auto m = to_device(ramp(6), {2, 3});
  HostArray<float> hm = sub(m, v).copy_to_host();
  REQUIRE(hm.shape() == Shape{2, 3});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) REQUIRE(hm(i, j) == static_cast<float>(i * 3 + j) - (100.0f + j));
  auto p = to_device(ramp(8), {2, 1, 4});
  auto q = to_device(ramp(3, 2.0f), {3, 1});
  HostArray<float> hp = sub(p, q).copy_to_host();
  REQUIRE(hp.shape() == Shape{2, 3, 4});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) REQUIRE(hp(i, j, k) == static_cast<float>(i * 4 + k) - 2.0f * j);
  // An empty dimension broadcasts to an empty result, and nothing is launched.
  auto empty = device_array<float>({0, 3});
  CHECK(sub(empty, v).shape() == Shape{0, 3});
}

TEST_CASE("vectorize: out() writes into a given array, a view, or another element type") {
  auto mul = vectorize("mul", [](auto x, auto y) { return x * y; });
  const std::vector<float> a = ramp(50, 0.5f), b = ramp(50, 1.0f, 1.0f);
  auto da = to_device(a), db = to_device(b);
  auto r = device_array<float>({50});
  DeviceArray<float> same = mul.out(r)(da, db);
  CHECK(same.device_pointer() == r.device_pointer());
  HostArray<float> h = r.copy_to_host();
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(h(i) == a[i] * b[i]);
  // Into every other element of a larger array (a strided view).
  auto big = device_array<float>({100});
  big.fill(-1.0f);
  mul.out(big.slice({{0, Slice::end, 2}}))(da, 2.0f);
  HostArray<float> hb = big.copy_to_host();
  for (size_t i = 0; i < 100; ++i) REQUIRE(hb(i) == (i % 2 == 0 ? a[i / 2] * 2.0f : -1.0f));
  // A double output for float arguments: the result is converted.
  auto rd = device_array<double>({50});
  mul.out(rd)(da, db);
  HostArray<double> hd = rd.copy_to_host();
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(hd(i) == static_cast<double>(a[i] * b[i]));
  // An int output takes the float result truncated, as cast<int32_t>.
  auto ri = device_array<int32_t>({50});
  mul.out(ri)(da, 3.0f);
  HostArray<int32_t> hi = ri.copy_to_host();
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(hi(i) == static_cast<int32_t>(a[i] * 3.0f));
  // In place: each element is read before the same work-item writes it.
  mul.out(da)(da, db);
  HostArray<float> hp = da.copy_to_host();
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(hp(i) == a[i] * b[i]);
}

TEST_CASE("vectorize: one generic lambda makes one kernel per type combination and path, once") {
  auto twice_plus = vectorize("twice_plus", [](auto x, auto y) { return x + x + y; });
  auto f = to_device(ramp(64));
  auto d = to_device(std::vector<double>{1.5, 2.5, 3.5});
  auto i = to_device(std::vector<int32_t>{1, 2, 3});
  auto u = to_device(std::vector<uint32_t>{1, 2, 3});
  CHECK(twice_plus(f, f).copy_to_host()(10) == 30.0f);
  CHECK(twice_plus.kernel_count() == 1);
  CHECK(twice_plus(f, f).copy_to_host()(63) == 189.0f);  // the same types: the cached kernel
  CHECK(twice_plus.kernel_count() == 1);
  CHECK(twice_plus(d, d).copy_to_host()(2) == 10.5);
  CHECK(twice_plus(i, i).copy_to_host()(2) == 9);
  CHECK(twice_plus(u, i).copy_to_host()(1) == 6u);  // uint32 with int32: uint32
  static_assert(std::is_same_v<decltype(twice_plus(u, i)), DeviceArray<uint32_t>>);
  CHECK(twice_plus(i, 0.5f).copy_to_host()(0) == 2.5f);  // int32 with a float scalar: float
  CHECK(twice_plus.kernel_count() == 5);
  // A strided view is the strided kernel of the same types; a copy of the ufunc shares the cache.
  auto copy = twice_plus;
  CHECK(copy(f.slice({{0, Slice::end, 3}}), 1.0f).copy_to_host()(2) == 13.0f);
  CHECK(twice_plus.kernel_count() == 6);
  CHECK(copy(f, 1.0f).copy_to_host()(1) == 3.0f);
  CHECK(twice_plus.kernel_count() == 7);
}

TEST_CASE("vectorize: typed results, a named result type, math and literals") {
  using namespace rocjit::dsl;
  // A named result type converts the lambda's value: a comparison stored as int32_t 0 or 1.
  auto less = vectorize<int32_t>("less", [](auto x, auto y) { return x < y; });
  auto lt = less(to_device(std::vector<float>{1, 5, 3}), 3.0f);
  static_assert(std::is_same_v<decltype(lt), DeviceArray<int32_t>>);
  CHECK(lt.copy_to_host().to_vector() == std::vector<int32_t>{1, 0, 0});
  // An Expr<T> result names its own type.
  auto halve = vectorize("halve", [](auto x) { return Double(cast<double>(x) / 2); });
  auto hv = halve(to_device(std::vector<int32_t>{1, 2, 7}));
  static_assert(std::is_same_v<decltype(hv), DeviceArray<double>>);
  CHECK(hv.copy_to_host().to_vector() == std::vector<double>{0.5, 1.0, 3.5});
  // Math functions and weak literals keep the argument's type.
  auto hyp = vectorize("hyp", [](auto x, auto y) { return sqrt(x * x + y * y) * 2.0; });
  HostArray<float> hh = hyp(to_device(std::vector<float>{3, 5, 8}), to_device(std::vector<float>{4, 12, 15}))
                            .copy_to_host();
  CHECK(hh(0) == Approx(10.0f));
  CHECK(hh(1) == Approx(26.0f));
  CHECK(hh(2) == Approx(34.0f));
  // The deduced type is the DSL's promotion, not C++'s: two int8_t stay int8_t (and wrap).
  static_assert(std::is_same_v<promoted_t<int8_t, int8_t>, int8_t>);
  static_assert(std::is_same_v<promoted_t<int8_t, int16_t>, int16_t>);
  static_assert(std::is_same_v<promoted_t<uint32_t, int32_t>, uint32_t>);
  static_assert(std::is_same_v<promoted_t<uint32_t, int64_t>, int64_t>);
  static_assert(std::is_same_v<promoted_t<half, bfloat16>, float>);
  static_assert(std::is_same_v<promoted_t<int64_t, float, double>, double>);
  static_assert(std::is_same_v<promoted_t<bool, bool>, int32_t>);
  auto add8 = vectorize("add8", [](auto x, auto y) { return x + y; });
  auto r8 = add8(to_device(std::vector<int8_t>{100, -3}), to_device(std::vector<int8_t>{100, 5}));
  static_assert(std::is_same_v<decltype(r8), DeviceArray<int8_t>>);
  CHECK(r8.copy_to_host().to_vector() == std::vector<int8_t>{-56, 2});
  // half and bfloat16 arguments.
  auto h16 = vectorize("h16", [](auto x, auto y) { return x * y; });
  auto hr = h16(to_device(std::vector<half>{half(1.5f), half(-2.0f)}), half(4.0f));
  static_assert(std::is_same_v<decltype(hr), DeviceArray<half>>);
  CHECK(static_cast<float>(hr.copy_to_host()(1)) == -8.0f);
}

TEST_CASE("vectorize: on(stream) launches on the stream") {
  auto add = vectorize("add_on_stream", [](auto x, auto y) { return x + y; });
  Stream s = stream(rocjit::testing::test_device());
  const std::vector<float> a = ramp(200), b = ramp(200, -1.0f);
  auto da = to_device(a, s), db = to_device(b, s);
  DeviceArray<float> r = add.on(s)(da, db);
  auto r2 = device_array<float>({200});
  add.on(s).out(r2)(r, 1.0f);
  HostArray<float> h = r2.copy_to_host(s);
  s.synchronize();
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(h(i) == 1.0f);
}

TEST_CASE("vectorize: threads calling one ufunc share its kernel") {
  auto scale = vectorize("scale_threads", [](auto x, auto factor) { return x * factor; });
  auto a = to_device(ramp(128));
  // Catch's assertions are not thread-safe: each thread records whether its result was right.
  std::vector<int> right(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Stream s = stream(rocjit::testing::test_device());
      HostArray<float> h = scale.on(s)(a, static_cast<float>(t)).copy_to_host(s);
      s.synchronize();
      bool all = true;
      for (int64_t i = 0; i < 128; ++i) all = all && h(i) == static_cast<float>(i * t);
      right[t] = all;
    });
  for (std::thread& t : threads) t.join();
  CHECK(right == std::vector<int>{1, 1, 1, 1});
  CHECK(scale.kernel_count() == 1);
}

TEST_CASE("vectorize: errors name the ufunc, the argument, the shapes and the call's line") {
  auto add = vectorize("add", [](auto x, auto y) { return x + y; });
  auto a = device_array<float>({3, 4});
  auto b = device_array<float>({5});
  const int line = __LINE__ + 1;
  CHECK_THROWS_WITH(add(a, b), Contains("vectorize 'add'") && Contains("argument 1") && Contains("(3, 4)") && Contains("(5)") && Contains(at_line(line)));
  CHECK_THROWS_AS(add(a, b), LaunchError);
  // A given output of the wrong shape.
  auto wrong = device_array<float>({4, 3});
  const int out_line = __LINE__ + 1;
  CHECK_THROWS_WITH(add.out(wrong)(a, 1.0f), Contains("vectorize 'add'") && Contains("out has shape (4, 3)") && Contains("(3, 4)") && Contains(at_line(out_line)));
  // A lambda that returns untyped bool values, whose result type was deduced as the arguments'.
  auto cmp = vectorize("cmp", [](auto x, auto y) { return x < y; });
  CHECK_THROWS_WITH(cmp(a, a), Contains("vectorize 'cmp'") && Contains("returns a bool value") && Contains("vectorize<T>"));
  // Empty arrays are refused by name.
  CHECK_THROWS_WITH(add(DeviceArray<float>(), 1.0f), Contains("argument 0 is an empty DeviceArray"));
}

// ---- guvectorize --------------------------------------------------------------------------

namespace {

// Numba's gufunc matrix multiply: C[i, j] = sum over k of A[i, k] * B[k, j].
auto make_matmul() {
  using namespace rocjit::dsl;
  return guvectorize("(m,n),(n,p)->(m,p)", "matmul", [](auto a, auto b, auto c) {
    using T = typename decltype(c)::element_type;
    For(0, c.shape(0), [&](Int i) {
      For(0, c.shape(1), [&](Int j) {
        Var<T> acc = 0;
        For(0, a.shape(1), [&](Int k) { acc += a(i, k) * b(k, j); });
        c(i, j) = acc;
      });
    });
  });
}

}  // namespace

TEST_CASE("guvectorize: a batched matrix multiply (m,n),(n,p)->(m,p)") {
  auto matmul = make_matmul();
  const int64_t batch = 4, m = 3, n = 5, p = 2;
  const std::vector<float> a = ramp(batch * m * n, 0.5f), b = ramp(batch * n * p, 0.25f, -1.0f);
  DeviceArray<float> c = matmul(to_device(a, {batch, m, n}), to_device(b, {batch, n, p}));
  // Each product against the host's, B's matrix z being at b_stride * z.
  auto check = [&](const DeviceArray<float>& product, int64_t b_stride) {
    REQUIRE(product.shape() == Shape{batch, m, p});
    HostArray<float> h = product.copy_to_host();
    for (int64_t z = 0; z < batch; ++z)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < p; ++j) {
          float acc = 0;
          for (int64_t k = 0; k < n; ++k) acc += a[(z * m + i) * n + k] * b[z * b_stride + k * p + j];
          REQUIRE(h(z, i, j) == Approx(acc).epsilon(1e-6));
        }
  };
  check(c, n * p);
  // One B for every A of the batch: B has no loop dimensions and broadcasts.
  check(matmul(to_device(a, {batch, m, n}), to_device(std::vector<float>(b.begin(), b.begin() + n * p), {n, p})), 0);
  // No loop dimensions at all: one matrix product. Doubles: a second kernel.
  const std::vector<double> ad = {1, 2, 3, 4, 5, 6}, bd = {7, 8, 9, 10, 11, 12};
  HostArray<double> hd = matmul(to_device(ad, {2, 3}), to_device(bd, {3, 2})).copy_to_host();
  CHECK(hd.to_vector() == std::vector<double>{58, 64, 139, 154});
  CHECK(matmul.kernel_count() == 2);
}

TEST_CASE("guvectorize: (n)->() sums each row into one value") {
  using namespace rocjit::dsl;
  auto sum = guvectorize("(n)->()", "row_sum", [](auto x, auto out) {
    Var<float> acc = 0.0f;
    For(0, x.shape(0), [&](Int i) { acc += x(i); });
    out() = acc;
  });
  const std::vector<float> a = ramp(6 * 50, 1.0f, -20.0f);
  DeviceArray<float> r = sum(to_device(a, {6, 50}));
  REQUIRE(r.shape() == Shape{6});
  HostArray<float> h = r.copy_to_host();
  for (int64_t row = 0; row < 6; ++row) {
    float acc = 0;
    for (int64_t i = 0; i < 50; ++i) acc += a[row * 50 + i];
    REQUIRE(h(row) == acc);
  }
  // A 1-D input has no loop dimensions: a one-element result. A column slice is a strided core.
  CHECK(sum(to_device(ramp(10))).copy_to_host().to_vector() == std::vector<float>{45.0f});
  auto m = to_device(ramp(4 * 3), {4, 3});
  HostArray<float> cols = sum(m.slice({{}, {1, 2}})).copy_to_host();  // shape (4, 1): each row's column 1
  CHECK(cols.to_vector() == std::vector<float>{1.0f, 4.0f, 7.0f, 10.0f});
  // The 3-D case: loop (2, 3), core (4).
  HostArray<float> h3 = sum(to_device(ramp(24), {2, 3, 4})).copy_to_host();
  REQUIRE(h3.shape() == Shape{2, 3});
  CHECK(h3(1, 2) == 20.0f + 21.0f + 22.0f + 23.0f);
}

TEST_CASE("guvectorize: saxpy (),(t),(t)->(t) with a scalar or a per-row array for ()") {
  using namespace rocjit::dsl;
  auto saxpy = guvectorize("(),(t),(t)->(t)", "saxpy", [](auto a, auto x, auto y, auto out) {
    For(0, x.shape(0), [&](Int i) { out(i) = a * x(i) + y(i); });
  });
  const std::vector<float> x = ramp(3 * 40, 0.5f), y = ramp(3 * 40, -1.0f, 7.0f);
  auto dx = to_device(x, {3, 40}), dy = to_device(y, {3, 40});
  HostArray<float> h = saxpy(2.5f, dx, dy).copy_to_host();
  REQUIRE(h.shape() == Shape{3, 40});
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t i = 0; i < 40; ++i) REQUIRE(h(r, i) == 2.5f * x[r * 40 + i] + y[r * 40 + i]);
  // One a per row: an array of shape (3) for the "()" input, whose loop dimensions match x's.
  const std::vector<float> a = {1.0f, -2.0f, 0.5f};
  HostArray<float> h2 = saxpy(to_device(a), dx, dy).copy_to_host();
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t i = 0; i < 40; ++i) REQUIRE(h2(r, i) == a[r] * x[r * 40 + i] + y[r * 40 + i]);
}

TEST_CASE("guvectorize: given out arrays, a named output type, and a stream") {
  using namespace rocjit::dsl;
  auto dot = guvectorize<double>("(n),(n)->()", "dot", [](auto a, auto b, auto out) {
    Var<double> acc = 0.0;
    For(0, a.shape(0), [&](Int i) { acc += cast<double>(a(i) * b(i)); });
    out() = acc;
  });
  const std::vector<int32_t> a = {1, 2, 3, 4, 5, 6}, b = {6, 5, 4, 3, 2, 1};
  auto da = to_device(a, {2, 3}), db = to_device(b, {2, 3});
  auto r = dot(da, db);
  static_assert(std::is_same_v<decltype(r), DeviceArray<double>>);
  CHECK(r.copy_to_host().to_vector() == std::vector<double>{6 + 10 + 12, 12 + 10 + 6});
  // Into a given array, on a stream.
  Stream s = stream(rocjit::testing::test_device());
  auto out = device_array<double>({2});
  auto same = dot.on(s).out(out)(da, db);
  CHECK(same.device_pointer() == out.device_pointer());
  HostArray<double> h = out.copy_to_host(s);
  s.synchronize();
  CHECK(h.to_vector() == std::vector<double>{28, 28});
  // An output core dimension no input has takes its size from the given output.
  auto fill = guvectorize("()->(k)", "fill_k", [](auto v, auto out) {
    For(0, out.shape(0), [&](Int i) { out(i) = v + i; });
  });
  auto filled = device_array<int32_t>({2, 4});
  fill.out(filled)(to_device(std::vector<int32_t>{10, 20}));
  CHECK(filled.copy_to_host().to_vector() == std::vector<int32_t>{10, 11, 12, 13, 20, 21, 22, 23});
}

TEST_CASE("guvectorize: errors name the gufunc, the signature and the line") {
  using namespace rocjit::dsl;
  auto body = [](auto a, auto out) { out() = a(0); };
  const int line = __LINE__ + 1;
  CHECK_THROWS_WITH(guvectorize("(n),(n->()", "bad", body), Contains("guvectorize 'bad'") && Contains("malformed at position 6") && Contains(at_line(line)));
  CHECK_THROWS_WITH(guvectorize("(n)->", "bad", body), Contains("malformed at position 5") && Contains("'('"));
  CHECK_THROWS_WITH(guvectorize("(n,)->()", "bad", body), Contains("a dimension name"));
  CHECK_THROWS_WITH(guvectorize("(1)->()", "bad", body), Contains("position 1"));
  CHECK_THROWS_WITH(guvectorize("(a,b,c,d)->()", "bad", body), Contains("4 core dimensions"));
  CHECK_THROWS_WITH(guvectorize("(n)->(),()", "bad", body), Contains("2 outputs"));
  CHECK_THROWS_AS(guvectorize("(n)(n)->()", "bad", body), Error);

  auto matmul = make_matmul();
  auto a = device_array<float>({2, 3, 4});
  auto b = device_array<float>({2, 5, 6});
  const int sizes_line = __LINE__ + 1;
  CHECK_THROWS_WITH(matmul(a, b), Contains("guvectorize 'matmul'") && Contains("core dimension 'n' is 4") && Contains("but 5") && Contains(at_line(sizes_line)));
  const int count_line = __LINE__ + 1;
  CHECK_THROWS_WITH(matmul(a), Contains("takes 2 inputs") && Contains("1 was given") && Contains(at_line(count_line)));
  CHECK_THROWS_WITH(matmul(device_array<float>({4}), b), Contains("argument 0 has shape (4), of rank 1"));
  CHECK_THROWS_WITH(matmul(a, device_array<float>({3, 4, 6})), Contains("loop dimensions (3)") && Contains("(2)"));
  CHECK_THROWS_WITH(matmul.out(device_array<float>({2, 3, 7}))(a, device_array<float>({2, 4, 6})),
                    Contains("core dimension 'p' is 6") && Contains("the output"));
  auto outer = guvectorize("(n)->(n,n)", "outer", [](auto x, auto out) { out(0, 0) = x(0); });
  CHECK_THROWS_WITH(outer(device_array<float>({2, 3, 4})), Contains("rank at most 3") && Contains("the output"));
  auto first = guvectorize("(n)->()", "first", [](auto, auto out) { out() = 0; });
  CHECK_THROWS_WITH(first(2.0f), Contains("argument 0 is a scalar") && Contains("(n)"));
  auto unknown = guvectorize("(n)->(m)", "unknown", [](auto x, auto out) { out(0) = x(0); });
  CHECK_THROWS_WITH(unknown(device_array<float>({3})), Contains("'m'") && Contains("out(...)"));
  // A lambda that does not take one parameter per input and one for the output.
  auto short_lambda = guvectorize("(n),(n)->()", "short_lambda", [](auto x, auto out) { out() = x(0); });
  CHECK_THROWS_WITH(short_lambda(device_array<float>({3}), device_array<float>({3})),
                    Contains("short_lambda") && Contains("cannot be called with 2 inputs"));
  // Indexing a core view with the wrong number of indices is a trace error naming the gufunc.
  auto misuse = guvectorize("(n)->()", "misuse", [](auto x, auto out) { out() = x(0, 1); });
  CHECK_THROWS_WITH(misuse(device_array<float>({3})), Contains("misuse") && Contains("1 core dimension is indexed with 2 indices"));
}
