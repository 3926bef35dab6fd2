// mma (dsl::mma) on the device under test: the fragment layout (load -> per-element and
// load -> store identities) for every shape and type, mma against the device's numerics model
// bit for bit (rocjit/compiler/mma.hpp: a C++ chain of fmas in k order, or ir::mma::interpret
// for f16/bf16 under cdna2/cdna3) and within a K-scaled bound of the exact product (every model;
// on cpu and interp under each ROCJIT_MMA_MODEL in turn), a
// GEMM over a K loop with tiles in shared memory and odd sizes, F-order arrays, and the errors.
// On sim:gfx942 and sim:gfx90a the supported shapes run as MFMA instructions, on sim:gfx1100
// 16x16x16 f16/bf16/i8 as WMMA (wave64 for these kernels); the other shapes there, and everything
// on the CPU and the interpreter, are computed from ordinary operations.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "e2e.hpp"
#include "scoped_settings.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

namespace {

namespace layout = rocjit::ir::mma;

// A small value of T from an integer in [-8, 8] (exact in every type).
template <class T>
T small(int v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return T(float(v) * 0.25f);
  else if constexpr (std::is_floating_point_v<T>) return T(v) * T(0.25);
  else return T(v);
}

template <class T>
double as_double(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return double(float(v));
  else return double(v);
}

template <class T>
std::vector<T> random_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<T> v(n);
  for (auto& x : v) x = small<T>(dist(rng));
  return v;
}

// The three fragments of shape s, loaded from the top-left tiles of x, y and z.
template <class I, class C>
struct Loaded {
  mma::A<I> a;
  mma::B<I> b;
  mma::Accumulator<C> c;
  Loaded(layout::Shape s, const ArrayRef& x, const ArrayRef& y, const ArrayRef& z) : a(s), b(s), c(s) {
    mma::load(a, x, 0, 0);
    mma::load(b, y, 0, 0);
    mma::load(c, z, 0, 0);
  }
};

// Every (role, element) of one shape: each lane writes its fragment's elements where row(e),
// col(e) say, after loading them from the tile; the output must be the tile.
template <class I, class C>
void check_layout(layout::Shape s) {
  INFO("shape " << layout::shape_name(s) << " input " << ir::type_name(ir::type_of<I>()));
  Kernel k = kernel("mma_layout", [s](Array<I, 2> a, Array<I, 2> b, Array<C, 2> c, Array<I, 2> a_out, Array<I, 2> b_out,
                                      Array<C, 2> c_out, Array<C, 2> c_copy) {
    Loaded<I, C> f(s, a, b, c);
    auto &fa = f.a, &fb = f.b, &fc = f.c;
    for (unsigned e = 0; e < fa.size(); ++e) a_out(fa.row(e), fa.col(e)) = fa[e];
    for (unsigned e = 0; e < fb.size(); ++e) b_out(fb.row(e), fb.col(e)) = fb[e];
    for (unsigned e = 0; e < fc.size(); ++e) c_out(fc.row(e), fc.col(e)) = fc[e];
    mma::store(c_copy, 0, 0, fc);
  });
  auto a = random_values<I>(s.m * s.k, 1), b = random_values<I>(s.k * s.n, 2);
  auto c = random_values<C>(s.m * s.n, 3);
  auto da = to_device(std::span<const I>(a), {s.m, s.k}), db = to_device(std::span<const I>(b), {s.k, s.n});
  auto dc = to_device(std::span<const C>(c), {s.m, s.n});
  auto ao = device_array<I>({s.m, s.k}), bo = device_array<I>({s.k, s.n});
  auto co = device_array<C>({s.m, s.n}), cc = device_array<C>({s.m, s.n});
  k[{{1}, {64}}](da, db, dc, ao, bo, co, cc);
  auto same = [](const auto& x, const auto& y) {
    REQUIRE(x.size() == y.size());
    for (size_t i = 0; i < x.size(); ++i) REQUIRE(as_double(x[i]) == as_double(y[i]));
  };
  same(ao.copy_to_host().to_vector(), a);
  same(bo.copy_to_host().to_vector(), b);
  same(co.copy_to_host().to_vector(), c);
  same(cc.copy_to_host().to_vector(), c);
}

// The definition: C[i][j] + sum over kk in order, one fma per step in C's type.
template <class I, class C>
std::vector<C> reference(layout::Shape s, const std::vector<I>& a, const std::vector<I>& b, const std::vector<C>& c) {
  std::vector<C> d(c.size());
  for (unsigned i = 0; i < s.m; ++i)
    for (unsigned j = 0; j < s.n; ++j) {
      C sum = c[i * s.n + j];
      for (unsigned kk = 0; kk < s.k; ++kk) {
        if constexpr (std::is_integral_v<C>)
          sum = C(uint32_t(sum) + uint32_t(int32_t(a[i * s.k + kk]) * int32_t(b[kk * s.n + j])));
        else
          sum = std::fma(C(as_double(a[i * s.k + kk])), C(as_double(b[kk * s.n + j])), sum);
      }
      d[i * s.n + j] = sum;
    }
  return d;
}

// The numerics model of the device under test: its processor's on a simulator (or GPU), the
// setting (ROCJIT_MMA_MODEL) on the CPU device and the interpreter.
layout::Model device_model() {
  Device& d = rocjit::testing::test_device();
  if (d.kind() == "sim" || d.kind() == "hip") return layout::model_of(d.processor());
  return layout::model_named(rocjit::settings().mma_model).value_or(layout::Model::cdna3);
}

// Runs `check` under each model the device under test can compute: every model on the CPU device
// and the interpreter (ROCJIT_MMA_MODEL selects it), its processor's elsewhere; the settings are
// restored afterwards, a failed check included.
template <class F>
void for_each_model(F&& check) {
  Device& d = rocjit::testing::test_device();
  const bool host = d.kind() == "cpu" || d.kind() == "interp";
  const rocjit::testing::ScopedSettings restore([](Settings&) {});
  std::vector<layout::Model> models{device_model()};
  if (host) models = {layout::Model::fma_chain, layout::Model::cdna2, layout::Model::cdna3};
  for (layout::Model model : models) {
    INFO("model " << layout::model_name(model));
    if (host) update_settings([&](Settings& st) { st.mma_model = std::string(layout::model_name(model)); });
    REQUIRE(device_model() == model);
    check(model);
  }
}

template <class T>
constexpr bool sixteen_bit = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// D under `model`: the definition (ir::mma::interpret) for f16/bf16 under a model with groups,
// which the simulators implement independently; else the C++ chain above.
template <class I, class C>
std::vector<C> model_reference(layout::Model model, layout::Shape s, const std::vector<I>& a, const std::vector<I>& b,
                               const std::vector<C>& c) {
  if constexpr (sixteen_bit<I>) {
    if (layout::numerics(model, ir::type_of<I>()).group > 1) {
      const layout::Counts n = layout::counts(s);
      std::vector<uint64_t> fa(64 * n.a), fb(64 * n.b), fc(64 * n.c), out(64 * n.c);
      for (unsigned l = 0; l < 64; ++l) {
        for (unsigned e = 0; e < n.a; ++e)
          fa[l * n.a + e] = std::bit_cast<uint16_t>(a[layout::a_row(s, l, e) * s.k + layout::a_col(s, l, e)]);
        for (unsigned e = 0; e < n.b; ++e)
          fb[l * n.b + e] = std::bit_cast<uint16_t>(b[layout::b_row(s, l, e) * s.n + layout::b_col(s, l, e)]);
        for (unsigned e = 0; e < n.c; ++e)
          fc[l * n.c + e] = std::bit_cast<uint32_t>(c[layout::c_row(s, l, e) * s.n + layout::c_col(s, l, e)]);
      }
      layout::interpret(s, ir::type_of<I>(), ir::Type::f32, fa.data(), fb.data(), fc.data(), out.data(), model);
      std::vector<C> d(c.size());
      for (unsigned l = 0; l < 64; ++l)
        for (unsigned e = 0; e < n.c; ++e)
          d[layout::c_row(s, l, e) * s.n + layout::c_col(s, l, e)] = std::bit_cast<float>(uint32_t(out[l * n.c + e]));
      return d;
    }
  }
  return reference(s, a, b, c);
}

// The exact D (in double) and the bound every model keeps to: (k + 1) units of f32 rounding
// (2^-24) of |C| + sum |a b|, plus what flushing subnormal inputs can lose (each product's other
// factor times the largest subnormal of I) and a subnormal C or result (2^-126).
template <class I, class C>
void check_bound(layout::Shape s, const std::vector<I>& a, const std::vector<I>& b, const std::vector<C>& c,
                 const std::vector<C>& got) {
  const double subnormal = std::is_same_v<I, half> ? 0x1p-14 : 0x1p-126;
  for (unsigned i = 0; i < s.m; ++i)
    for (unsigned j = 0; j < s.n; ++j) {
      double exact = as_double(c[i * s.n + j]), size = std::fabs(exact), flushable = 0x1p-125;
      for (unsigned kk = 0; kk < s.k; ++kk) {
        const double x = as_double(a[i * s.k + kk]), y = as_double(b[kk * s.n + j]);
        exact += x * y;
        size += std::fabs(x * y);
        flushable += subnormal * (std::fabs(x) + std::fabs(y));
      }
      const double bound = (s.k + 1) * 0x1p-24 * size + flushable;
      INFO("D(" << i << ", " << j << ") = " << got[i * s.n + j] << ", exactly " << exact << ", bound " << bound);
      REQUIRE(std::fabs(double(got[i * s.n + j]) - exact) <= bound);
    }
}

template <class I, class C>
void check_mma(layout::Shape s, unsigned seed) {
  INFO("shape " << layout::shape_name(s) << " input " << ir::type_name(ir::type_of<I>()));
  Kernel k = kernel("mma_once", [s](Array<I, 2> a, Array<I, 2> b, Array<C, 2> c, Array<C, 2> d) {
    Loaded<I, C> f(s, a, b, c);
    mma::mma(f.c, f.a, f.b);
    mma::store(d, 0, 0, f.c);
  });
  // Values whose products and sums round (not small integers): the result must still match the
  // definition bit for bit.
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  std::vector<I> a(s.m * s.k), b(s.k * s.n);
  std::vector<C> c(s.m * s.n);
  for (auto& x : a) x = std::is_integral_v<I> ? I(int(dist(rng) * 60)) : I(float(dist(rng)));
  for (auto& x : b) x = std::is_integral_v<I> ? I(int(dist(rng) * 60)) : I(float(dist(rng)));
  for (auto& x : c) x = std::is_integral_v<C> ? C(int(dist(rng) * 1000)) : C(dist(rng) / 3.0);
  if constexpr (sixteen_bit<I>) {
    // Subnormal inputs and accumulators, which the cdna2 model flushes.
    const float tiny = std::is_same_v<I, half> ? 0x1p-16f : 0x1p-129f;
    for (size_t i = 0; i < a.size(); i += 37) a[i] = I(tiny * float(1 + i % 3) * (i % 2 ? -1.0f : 1.0f));
    for (size_t i = 5; i < b.size(); i += 41) b[i] = I(tiny * 3.0f);
    for (size_t i = 3; i < c.size(); i += 29) c[i] = C(-0x1p-130f);
    if (std::is_same_v<I, half>)  // products of subnormals that sum visibly: 2^-16 * 2 next to 2^-23
      for (size_t i = 2; i < c.size(); i += 31) c[i] = C(0x1p-10f);
  }
  auto da = to_device(std::span<const I>(a), {s.m, s.k}), db = to_device(std::span<const I>(b), {s.k, s.n});
  auto dc = to_device(std::span<const C>(c), {s.m, s.n});
  auto dd = device_array<C>({s.m, s.n});
  // Two waves in a group of 2 x 64: each wave computes the same tile.
  k[{{1}, {64, 2}}](da, db, dc, dd);
  std::vector<C> want = model_reference(device_model(), s, a, b, c), got = dd.copy_to_host().to_vector();
  INFO("model " << layout::model_name(device_model()));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    if constexpr (std::is_integral_v<C>) REQUIRE(got[i] == want[i]);
    else REQUIRE(std::bit_cast<std::conditional_t<sizeof(C) == 4, uint32_t, uint64_t>>(got[i]) ==
                 std::bit_cast<std::conditional_t<sizeof(C) == 4, uint32_t, uint64_t>>(want[i]));
  }
  if constexpr (sixteen_bit<I>) check_bound(s, a, b, c, got);
}

template <class I, class C>
void for_each_shape(void (*f)(layout::Shape)) {
  for (const layout::Shape& s : layout::defined_shapes(ir::type_of<I>(), ir::type_of<C>())) f(s);
}

}  // namespace

TEST_CASE("mma fragments: load then row(e)/col(e)/[e] and load then store give back the tile, every shape and type") {
  for_each_shape<half, float>(check_layout<half, float>);
  for_each_shape<bfloat16, float>(check_layout<bfloat16, float>);
  for_each_shape<float, float>(check_layout<float, float>);
  for_each_shape<double, double>(check_layout<double, double>);
  for_each_shape<int8_t, int32_t>(check_layout<int8_t, int32_t>);
}

TEST_CASE("mma computes the device's numerics model bit for bit, every shape and type") {
  unsigned seed = 10;
  for (const auto& s : layout::defined_shapes(ir::Type::f16, ir::Type::f32)) check_mma<half, float>(s, seed++);
  for (const auto& s : layout::defined_shapes(ir::Type::bf16, ir::Type::f32)) check_mma<bfloat16, float>(s, seed++);
  for (const auto& s : layout::defined_shapes(ir::Type::f32, ir::Type::f32)) check_mma<float, float>(s, seed++);
  for (const auto& s : layout::defined_shapes(ir::Type::f64, ir::Type::f64)) check_mma<double, double>(s, seed++);
  for (const auto& s : layout::defined_shapes(ir::Type::i8, ir::Type::i32)) check_mma<int8_t, int32_t>(s, seed++);
}

// On the CPU device and the interpreter under each ROCJIT_MMA_MODEL (elsewhere the device's
// model): that model bit for bit, and every model within a K-scaled bound of the exact product.
TEST_CASE("mma under each numerics model: bit for bit, and within a K-scaled bound") {
  unsigned seed = 40;
  for_each_model([&](layout::Model model) {
    for (const auto& s : layout::defined_shapes(ir::Type::f16, ir::Type::f32)) check_mma<half, float>(s, seed++);
    for (const auto& s : layout::defined_shapes(ir::Type::bf16, ir::Type::f32)) check_mma<bfloat16, float>(s, seed++);
    // Wide-ranging values with cancellation: the models' results differ, each within the bound.
    const layout::Shape s{16, 16, 32};
    Kernel k = kernel("mma_bound", [s](Array<half, 2> a, Array<half, 2> b, Array<float, 2> c, Array<float, 2> out) {
      Loaded<half, float> f(s, a, b, c);
      mma::mma(f.c, f.a, f.b);
      mma::store(out, 0, 0, f.c);
    });
    std::mt19937 rng(seed++);
    std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
    std::uniform_int_distribution<int> expo(-16, 8);
    std::vector<half> a(s.m * s.k), b(s.k * s.n);
    std::vector<float> c(s.m * s.n);
    for (auto& x : a) x = half(std::ldexp(mant(rng), expo(rng)));
    for (auto& x : b) x = half(std::ldexp(mant(rng), expo(rng)));
    for (auto& x : c) x = std::ldexp(mant(rng), expo(rng));
    auto da = to_device(std::span<const half>(a), {s.m, s.k}), db = to_device(std::span<const half>(b), {s.k, s.n});
    auto dc = to_device(std::span<const float>(c), {s.m, s.n});
    auto dout = device_array<float>({s.m, s.n});
    k[{{1}, {64}}](da, db, dc, dout);
    const std::vector<float> got = dout.copy_to_host().to_vector(), want = model_reference(model, s, a, b, c);
    for (size_t i = 0; i < got.size(); ++i) REQUIRE(std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(want[i]));
    check_bound(s, a, b, c, got);
  });
}

namespace {

// C (m x n, f32) = A (m x kdim, f16, C or F order) . B (kdim x n, f16): 16x16x16 tiles staged in
// shared memory with zero padding at the edges, four waves per group (a 32 x 32 block of C).
template <ir::Layout LA>
Kernel gemm_kernel() {
  return kernel("mma_gemm", [](Array<half, 2, LA> A, Array<half, 2> B, Array<float, 2> C) {
    constexpr mma::Shape S{16, 16, 16};
    Int m = A.shape(0), kdim = A.shape(1), n = B.shape(1);
    Int wave = local_id(1);  // 4 waves: a 2 x 2 arrangement of 16 x 16 tiles
    Int row0 = group_id(1) * 32 + wave / 2 * 16, col0 = group_id(0) * 32 + wave % 2 * 16;
    // The four waves' A and B tiles, one above the other: wave w's are rows 16w .. 16w + 15.
    auto sA = shared::array<half>({64, 16}), sB = shared::array<half>({64, 16});
    mma::A<half> a(S);
    mma::B<half> b(S);
    mma::Accumulator<float> acc(S, 0.0f);
    For(0, kdim, 16, [&](Int k0) {
      // Each lane stages 4 elements of its wave's A tile and of its B tile (zero past the edges).
      for (int e = 0; e < 4; ++e) {
        Int t = lane_id() * 4 + e, r = t / 16, c = t % 16;
        Var<half> x = 0.0f, y = 0.0f;
        If(row0 + r < m && k0 + c < kdim, [&] { x = A(row0 + r, k0 + c); });
        If(k0 + r < kdim && col0 + c < n, [&] { y = B(k0 + r, col0 + c); });
        sA(wave * 16 + r, c) = x;
        sB(wave * 16 + r, c) = y;
      }
      wavebarrier();
      mma::load(a, sA, wave * 16, 0);
      mma::load(b, sB, wave * 16, 0);
      wavebarrier();
      mma::mma(acc, a, b);
    });
    for (unsigned e = 0; e < acc.size(); ++e) {
      Int r = row0 + acc.row(e), c = col0 + acc.col(e);
      If(r < m && c < n, [&] { C(r, c) = acc[e]; });
    }
  });
}

}  // namespace

TEST_CASE("an mma GEMM over a K loop with shared-memory tiles matches the definition, odd sizes and F-order A") {
  struct Size {
    int64_t m, n, k;
  };
  for (auto [m, n, kd] : {Size{32, 32, 16}, Size{45, 37, 50}, Size{64, 17, 33}}) {
    INFO("m " << m << " n " << n << " k " << kd);
    auto a = random_values<half>(m * kd, 5), b = random_values<half>(kd * n, 6);
    // The definition, tile by tile: 16-long fma chains over each k tile, padding adding zeros.
    std::vector<float> want(m * n, 0.0f);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float sum = 0;
        for (int64_t kk = 0; kk < (kd + 15) / 16 * 16; ++kk) {
          const float x = kk < kd ? float(a[i * kd + kk]) : 0.0f, y = kk < kd ? float(b[kk * n + j]) : 0.0f;
          sum = std::fma(x, y, sum);
        }
        want[i * n + j] = sum;
      }
    const Dim3 grid((n + 31) / 32, (m + 31) / 32);
    auto db = to_device(std::span<const half>(b), {n == 0 ? 1 : kd, n});
    auto dc = device_array<float>({m, n});
    {
      auto da = to_device(std::span<const half>(a), {m, kd});
      gemm_kernel<ir::Layout::C>()[{grid, {64, 4}}](da, db, dc);
      REQUIRE(dc.copy_to_host().to_vector() == want);
    }
    {
      // The same A stored in Fortran order (to_device takes the elements in C order and lays
      // the device array out column-major).
      auto da = to_device(std::span<const half>(a), {m, kd}, Order::F);
      auto dc2 = device_array<float>({m, n});
      gemm_kernel<ir::Layout::F>()[{grid, {64, 4}}](da, db, dc2);
      REQUIRE(dc2.copy_to_host().to_vector() == want);
    }
  }
}

TEST_CASE("mma errors: undefined shapes and types, mixed fragments, divergent control, partial waves") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(kernel("bad_shape", [](Array<float, 2> x) { mma::A<half> a(mma::Shape{8, 8, 8}); }),
                    Contains("mma has no shape 8x8x8") && Contains("mma_tests.cpp"));
  CHECK_THROWS_WITH(kernel("bad_types", [](Array<float, 2> x) {
                      constexpr mma::Shape S{16, 16, 16};
                      mma::A<half> a(S);
                      mma::B<half> b(S);
                      mma::Accumulator<double> c(S);
                      mma::mma(c, a, b);
                    }),
                    Contains("got f16 with f64"));
  CHECK_THROWS_WITH(kernel("mixed_shapes", [](Array<float, 2> x) {
                      mma::A<half> a(mma::Shape{16, 16, 16});
                      mma::B<half> b(mma::Shape{32, 32, 8});
                      mma::Accumulator<float> c(mma::Shape{16, 16, 16});
                      mma::mma(c, a, b);
                    }),
                    Contains("must be one shape"));
  CHECK_THROWS_WITH(kernel("not_2d", [](Array<half> x) {
                      mma::A<half> a(mma::Shape{16, 16, 16});
                      mma::load(a, x, 0, 0);
                    }),
                    Contains("needs a 2-D array"));
  CHECK_THROWS_WITH(kernel("divergent_mma", [](Array<float, 2> x) {
                      constexpr mma::Shape S{16, 16, 16};
                      mma::A<half> a(S);
                      mma::B<half> b(S);
                      mma::Accumulator<float> c(S);
                      If(lane_id() < 32, [&] { mma::mma(c, a, b); });
                      mma::store(x, 0, 0, c);
                    }),
                    Contains("mma") && Contains("lane_id"));
  Kernel k = kernel("partial_wave", [](Array<float, 2> x) {
    constexpr mma::Shape S{16, 16, 16};
    mma::A<half> a(S);
    mma::B<half> b(S);
    mma::Accumulator<float> c(S);
    mma::mma(c, a, b);
    mma::store(x, 0, 0, c);
  });
  auto x = device_array<float>({16, 16});
  CHECK_THROWS_AS((k[{{1}, {96}}](x)), LaunchError);
  CHECK_THROWS_WITH((k[{{1}, {96}}](x)), Contains("whole 64-lane waves") && Contains("mma_tests.cpp"));
}

TEST_CASE("mma::shapes lists the matrix-core shapes of a target") {
  using S = mma::Shape;
  CHECK(mma::shapes<half, float>(Target::host()).empty());
  CHECK(mma::shapes<half, float>(Target::amdgpu("gfx1030")).empty());
  CHECK(mma::shapes<half, float>(Target::amdgpu("gfx942")) == std::vector<S>{{16, 16, 16}, {32, 32, 8}});
  CHECK(mma::shapes<half, float>(Target::amdgpu("gfx950")) ==
        std::vector<S>{{16, 16, 16}, {32, 32, 8}, {16, 16, 32}, {32, 32, 16}});
  CHECK(mma::shapes<int8_t, int32_t>(Target::amdgpu("gfx90a")) == std::vector<S>{{16, 16, 16}, {32, 32, 8}});
  CHECK(mma::shapes<int8_t, int32_t>(Target::amdgpu("gfx942")) == std::vector<S>{{16, 16, 32}, {32, 32, 16}});
  CHECK(mma::shapes<double, double>(Target::amdgpu("gfx90a")) == std::vector<S>{{16, 16, 4}});
  for (const char* p : {"gfx1100", "gfx1151", "gfx1201"}) {  // WMMA
    CHECK(mma::shapes<half, float>(Target::amdgpu(p)) == std::vector<S>{{16, 16, 16}});
    CHECK(mma::shapes<bfloat16, float>(Target::amdgpu(p)) == std::vector<S>{{16, 16, 16}});
    CHECK(mma::shapes<int8_t, int32_t>(Target::amdgpu(p)) == std::vector<S>{{16, 16, 16}});
    CHECK(mma::shapes<float, float>(Target::amdgpu(p)).empty());
  }
}

// ---- xf32: A<mma::xf32>, B<mma::xf32> over float arrays, float accumulators ----------------------
// Every device computes one definition (docs/mma.md, "Numerics"): A and B cut to xf32 by
// ir::mma::to_xf32 (toward zero, 10 fraction bits), then the f32 chain of fmas in k order, the
// same under every model. sim:gfx942 runs v_mfma_f32_16x16x8_xf32 / _32x32x4_xf32; sim:gfx90a,
// sim:gfx950 and sim:gfx1100 (no xf32 instructions), the CPU and the interpreter compute it from
// ordinary operations.

namespace {

float cut_xf32(float x) { return std::bit_cast<float>(layout::to_xf32(std::bit_cast<uint32_t>(x))); }

// The definition: C + the products of the cut A and B, one f32 fma per k in order.
std::vector<float> xf32_reference(layout::Shape s, const std::vector<float>& a, const std::vector<float>& b,
                                  const std::vector<float>& c, bool cut = true) {
  std::vector<float> d(c.size());
  for (unsigned i = 0; i < s.m; ++i)
    for (unsigned j = 0; j < s.n; ++j) {
      float sum = c[i * s.n + j];
      for (unsigned kk = 0; kk < s.k; ++kk) {
        const float x = a[i * s.k + kk], y = b[kk * s.n + j];
        sum = std::fma(cut ? cut_xf32(x) : x, cut ? cut_xf32(y) : y, sum);
      }
      d[i * s.n + j] = sum;
    }
  return d;
}

// Floats with all 23 fraction bits in use (so the cut changes them), a few subnormals and values
// whose cut is exact.
std::vector<float> xf32_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  for (size_t i = 3; i < n; i += 23) v[i] = (i % 2 ? -1.0f : 1.0f) * (0x1p-130f + 0x1p-145f);  // subnormal
  for (size_t i = 5; i < n; i += 19) v[i] = cut_xf32(v[i]);
  return v;
}

void check_xf32_layout(layout::Shape s) {
  INFO("xf32 shape " << layout::shape_name(s));
  Kernel k = kernel("mma_xf32_layout", [s](Array<float, 2> a, Array<float, 2> b, Array<float, 2> c,
                                           Array<float, 2> a_out, Array<float, 2> b_out, Array<float, 2> c_out) {
    Loaded<mma::xf32, float> f(s, a, b, c);
    for (unsigned e = 0; e < f.a.size(); ++e) a_out(f.a.row(e), f.a.col(e)) = f.a[e];
    for (unsigned e = 0; e < f.b.size(); ++e) b_out(f.b.row(e), f.b.col(e)) = f.b[e];
    mma::store(c_out, 0, 0, f.c);
  });
  // The fragments hold the float values as they are (the cut happens in mma).
  const auto a = xf32_values(s.m * s.k, 1), b = xf32_values(s.k * s.n, 2), c = xf32_values(s.m * s.n, 3);
  auto da = to_device(std::span<const float>(a), {s.m, s.k}), db = to_device(std::span<const float>(b), {s.k, s.n});
  auto dc = to_device(std::span<const float>(c), {s.m, s.n});
  auto ao = device_array<float>({s.m, s.k}), bo = device_array<float>({s.k, s.n}), co = device_array<float>({s.m, s.n});
  k[{{1}, {64}}](da, db, dc, ao, bo, co);
  auto same = [](const std::vector<float>& x, const std::vector<float>& y) {
    REQUIRE(x.size() == y.size());
    for (size_t i = 0; i < x.size(); ++i) REQUIRE(std::bit_cast<uint32_t>(x[i]) == std::bit_cast<uint32_t>(y[i]));
  };
  same(ao.copy_to_host().to_vector(), a);
  same(bo.copy_to_host().to_vector(), b);
  same(co.copy_to_host().to_vector(), c);
}

void check_xf32_mma(layout::Shape s, unsigned seed) {
  INFO("xf32 shape " << layout::shape_name(s));
  Kernel k = kernel("mma_xf32", [s](Array<float, 2> a, Array<float, 2> b, Array<float, 2> c, Array<float, 2> d) {
    Loaded<mma::xf32, float> f(s, a, b, c);
    mma::mma(f.c, f.a, f.b);
    mma::store(d, 0, 0, f.c);
  });
  const auto a = xf32_values(s.m * s.k, seed), b = xf32_values(s.k * s.n, seed + 1);
  std::vector<float> c = xf32_values(s.m * s.n, seed + 2);
  for (auto& x : c) x /= 3.0f;
  auto da = to_device(std::span<const float>(a), {s.m, s.k}), db = to_device(std::span<const float>(b), {s.k, s.n});
  auto dc = to_device(std::span<const float>(c), {s.m, s.n});
  auto dd = device_array<float>({s.m, s.n});
  k[{{1}, {64, 2}}](da, db, dc, dd);  // two waves, each the same tile
  const std::vector<float> got = dd.copy_to_host().to_vector(), want = xf32_reference(s, a, b, c);
  const std::vector<float> uncut = xf32_reference(s, a, b, c, false);
  size_t differs_from_f32 = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", definition " << want[i]);
    REQUIRE(std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(want[i]));
    differs_from_f32 += got[i] != uncut[i];
  }
  CHECK(differs_from_f32 > got.size() / 2);  // the cut is visible: this is not the f32 product
  // Within a K-scaled bound of the exact product of the uncut values in double: each cut loses
  // less than 2^-10 of its value (a product less than 2^-9 of itself), each fma step rounds once
  // (2^-24 of the running size), and a cut subnormal loses less than 2^-136.
  for (unsigned i = 0; i < s.m; ++i)
    for (unsigned j = 0; j < s.n; ++j) {
      double exact = c[i * s.n + j], size = std::fabs(exact), tiny = 0;
      for (unsigned kk = 0; kk < s.k; ++kk) {
        const double x = a[i * s.k + kk], y = b[kk * s.n + j];
        exact += x * y;
        size += std::fabs(x * y);
        tiny += 0x1p-136 * (std::fabs(x) + std::fabs(y) + 1);
      }
      const double bound = ((s.k + 1) * 0x1p-24 + 0x1p-9) * size + tiny + 0x1p-149;
      INFO("D(" << i << ", " << j << ") = " << got[i * s.n + j] << ", exactly " << exact << ", bound " << bound);
      REQUIRE(std::fabs(double(got[i * s.n + j]) - exact) <= bound);
    }
}

}  // namespace

TEST_CASE("mma xf32 fragments: load then row(e)/col(e)/[e] and load then store give back the float tile") {
  for (const auto& s : layout::defined_shapes(ir::Type::f32, ir::Type::f32, layout::Precision::xf32))
    check_xf32_layout(s);
}

TEST_CASE("mma xf32 computes A and B cut to xf32 and the f32 fma chain bit for bit, under every model") {
  unsigned seed = 70;
  const auto shapes = layout::defined_shapes(ir::Type::f32, ir::Type::f32, layout::Precision::xf32);
  REQUIRE(shapes == std::vector<layout::Shape>{{16, 16, 8}, {32, 32, 4}});
  for_each_model([&](layout::Model) {
    for (const auto& s : shapes) check_xf32_mma(s, seed += 3);
  });
}

TEST_CASE("mma xf32 errors name the kernel and the line: shapes, mixed precision, accumulator type") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(kernel("xf32_bad_shape", [](Array<float, 2> x) { mma::A<mma::xf32> a(mma::Shape{16, 16, 4}); }),
                    Contains("kernel 'xf32_bad_shape'") && Contains("mma has no shape 16x16x4 for xf32") &&
                        Contains("mma_tests.cpp:"));
  CHECK_THROWS_WITH(kernel("xf32_f32_shape", [](Array<float, 2> x) {
                      constexpr mma::Shape S{16, 16, 8};
                      mma::A<float> a(S);
                    }),
                    Contains("mma has no shape 16x16x8") && Contains("32x32x4 for xf32"));
  // A float B cannot join an xf32 A: no f32 shape is an xf32 one.
  CHECK_THROWS_WITH(kernel("xf32_mixed", [](Array<float, 2> x) {
                      constexpr mma::Shape S{16, 16, 8};
                      mma::A<mma::xf32> a(S);
                      mma::B<float> b(mma::Shape{16, 16, 4});
                      mma::Accumulator<float> c(S);
                      mma::mma(c, a, b);
                    }),
                    Contains("must be one shape"));
  CHECK_THROWS_WITH(kernel("xf32_double_accumulator", [](Array<float, 2> x) {
                      constexpr mma::Shape S{16, 16, 8};
                      mma::A<mma::xf32> a(S);
                      mma::B<mma::xf32> b(S);
                      mma::Accumulator<double> c(S);
                      mma::mma(c, a, b);
                    }),
                    Contains("kernel 'xf32_double_accumulator'") && Contains("xf32") && Contains("f64") &&
                        Contains("mma_tests.cpp:"));
}

TEST_CASE("mma::shapes<mma::xf32, float> lists the xf32 MFMA shapes of gfx940-gfx942 and nothing elsewhere") {
  using S = mma::Shape;
  for (const char* p : {"gfx940", "gfx941", "gfx942"})
    CHECK(mma::shapes<mma::xf32, float>(Target::amdgpu(p)) == std::vector<S>{{16, 16, 8}, {32, 32, 4}});
  for (const char* p : {"gfx90a", "gfx950", "gfx1100", "gfx1201", "gfx1030"})
    CHECK(mma::shapes<mma::xf32, float>(Target::amdgpu(p)).empty());
  CHECK(mma::shapes<mma::xf32, float>(Target::host()).empty());
  CHECK(mma::shapes<float, float>(Target::amdgpu("gfx942")) == std::vector<S>{{16, 16, 4}, {32, 32, 2}});
}
