// The reference interpreter (rocjit/compiler/interpret.hpp) against the CPU back end and against
// plain C++: every sample kernel, every rule of the README's semantics table, every op kind over
// tables of awkward values (bit-exact for integer ops, conversions and correctly rounded float
// ops; within bounds for the approximate math functions), barriers with shared arrays,
// While/Break, every atomic kind, 3-D ids, and the interpreter's own checks (bounds, arguments,
// operation budget). Return/Continue, wave operations, dynamic shared memory and the memory
// model are in interpret_control_tests.cpp.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <rocjit/compiler/interpret.hpp>
#include <rocjit/compiler/parser.hpp>

#include "interpret_harness.hpp"
#include "op_tables.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::dsl;
using Catch::Matchers::Contains;
using namespace rocjit::testing;
using namespace rocjit::testing::ops;

namespace {

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}
int64_t blocks(int64_t n, int64_t b) { return (n + b - 1) / b; }

template <class T>
void pairwise_test(const std::string& name, const std::vector<Row>& rows, const std::vector<std::string>& names) {
  constexpr ir::Type t = InterpretArgument::type_of<T>();
  ir::Kernel k = pairwise_kernel(name, t, t, rows);
  std::vector<T> v = table<T>();
  int64_t n = static_cast<int64_t>(v.size());
  std::vector<T> out(static_cast<size_t>(n * n) * rows.size(), T(0));
  Args args;
  args.array(v).array(v).array(out, {static_cast<int64_t>(rows.size()), n * n});
  auto interp = run_interpreter(k, {blocks(n * n, 64)}, {64}, args.list);
  auto cpu = run_cpu(k, {blocks(n * n, 64)}, {64}, args.list);
  std::string report = compare_rows(cpu[2].as<T>(), interp[2].as<T>(), n * n, names, v, true, "cpu");
  if (!report.empty()) FAIL(name << ": " << report);
  SUCCEED(name << ": the interpreter and the CPU agree");
}

// Every conversion from `From` (see cast_kernel).
template <class From>
void cast_test() {
  constexpr ir::Type from = InterpretArgument::type_of<From>();
  ir::Kernel k = cast_kernel(from);
  std::vector<From> v = table<From>();
  int64_t n = static_cast<int64_t>(v.size());
  Args args;
  args.array(v);
  args.array(std::vector<int32_t>(3 * n), {3, n}).array(std::vector<int64_t>(3 * n), {3, n});
  args.array(std::vector<uint32_t>(3 * n), {3, n}).array(std::vector<uint64_t>(3 * n), {3, n});
  args.array(std::vector<float>(3 * n), {3, n}).array(std::vector<double>(3 * n), {3, n});
  run_both(k, {blocks(n, 64)}, {64}, args);
}

}  // namespace

// --- Every op over value tables: interpreter == CPU bit for bit -----------------------------------

TEST_CASE("interpreter and CPU agree bit for bit on every integer op over a table of awkward values") {
  SECTION("i32") { pairwise_test<int32_t>("int_ops_i32", integer_rows(ir::Type::i32), integer_row_names()); }
  SECTION("u32") { pairwise_test<uint32_t>("int_ops_u32", integer_rows(ir::Type::u32), integer_row_names()); }
  SECTION("i64") { pairwise_test<int64_t>("int_ops_i64", integer_rows(ir::Type::i64), integer_row_names()); }
  SECTION("u64") { pairwise_test<uint64_t>("int_ops_u64", integer_rows(ir::Type::u64), integer_row_names()); }
}

TEST_CASE("interpreter and CPU agree bit for bit on float arithmetic, compares and correctly rounded math") {
  SECTION("f32") { pairwise_test<float>("float_ops_f32", float_rows(ir::Type::f32), float_row_names()); }
  SECTION("f64") { pairwise_test<double>("float_ops_f64", float_rows(ir::Type::f64), float_row_names()); }
}

TEST_CASE("interpreter and CPU agree bit for bit on every conversion, saturating float -> int included") {
  SECTION("from i32") { cast_test<int32_t>(); }
  SECTION("from u32") { cast_test<uint32_t>(); }
  SECTION("from i64") { cast_test<int64_t>(); }
  SECTION("from u64") { cast_test<uint64_t>(); }
  SECTION("from f32") { cast_test<float>(); }
  SECTION("from f64") { cast_test<double>(); }
}

TEST_CASE("the approximate math functions agree with the CPU within a few ulps") {
  for (ir::Type t : {ir::Type::f32, ir::Type::f64}) {
    std::vector<Row> rows;
    for (const char* fn : {"math.exp", "math.exp2", "math.log", "math.log2", "math.sin", "math.cos", "math.tan"})
      rows.push_back(unary_row(fn, t));
    rows.push_back(op_row("math.pow", t));
    ir::Kernel k = pairwise_kernel("approx_math_" + tn(t), t, t, rows);
    std::vector<double> v{0.0, -0.0, 0.5, 1.0, -1.0, 2.0, 3.25, -3.25, 10.0, -10.0, 100.0, 1e-3, 0.75, 1e5};
    int64_t n = static_cast<int64_t>(v.size());
    Args args;
    if (t == ir::Type::f32) {
      std::vector<float> f(v.begin(), v.end());
      args.array(f).array(f).array(std::vector<float>(rows.size() * n * n), {static_cast<int64_t>(rows.size()), n * n});
    } else {
      args.array(v).array(v).array(std::vector<double>(rows.size() * n * n), {static_cast<int64_t>(rows.size()), n * n});
    }
    auto interp = run_interpreter(k, {blocks(n * n, 64)}, {64}, args.list);
    auto cpu = run_cpu(k, {blocks(n * n, 64)}, {64}, args.list);
    auto ulps = [](auto a, auto b) -> int64_t {
      if (std::isnan(a) && std::isnan(b)) return 0;
      if (a == b) return 0;
      if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return lim<int64_t>::max();
      using I = std::conditional_t<sizeof(a) == 4, int32_t, int64_t>;
      auto key = [](auto f) { I i = std::bit_cast<I>(f); return i < 0 ? int64_t(lim<I>::min()) - i : int64_t(i); };
      return std::abs(key(a) - key(b));
    };
    for (size_t e = 0; e < rows.size() * n * n; ++e) {
      int64_t d = t == ir::Type::f32 ? ulps(interp[2].as<float>()[e], cpu[2].as<float>()[e])
                                     : ulps(interp[2].as<double>()[e], cpu[2].as<double>()[e]);
      INFO("type " << tn(t) << " row " << e / (n * n) << " x = " << v[(e % (n * n)) / n] << " y = " << v[e % n]);
      REQUIRE(d <= 4);
    }
  }
}

// --- The semantics table, value by value (the interpreter is the specification) ------------------

namespace {
template <class T>
std::pair<std::vector<T>, std::vector<T>> div_rem(const std::vector<T>& x, const std::vector<T>& y) {
  Kernel k = kernel("div_rem", [](Array<T> a, Array<T> b, Array<T> q, Array<T> r) {
    Int i = global_id(0);
    If(i < a.shape(0), [&] {
      q(i) = a(i) / b(i);
      r(i) = a(i) % b(i);
    });
  });
  std::vector<T> zeros(x.size());
  auto out = run_both(k.ir(), {1}, {static_cast<int64_t>(x.size())}, Args().array(x).array(y).array(zeros).array(zeros));
  return {out[2].template as<T>(), out[3].template as<T>()};
}
}  // namespace

TEST_CASE("semantics: x / 0 = 0, x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0") {
  auto [q, r] = div_rem<int32_t>({7, -7, lim<int32_t>::min(), lim<int32_t>::min(), 9, 7, -7},
                                 {0, 0, 0, -1, -1, 2, 2});
  CHECK(q == std::vector<int32_t>{0, 0, 0, lim<int32_t>::min(), -9, 3, -3});
  CHECK(r == std::vector<int32_t>{7, -7, lim<int32_t>::min(), 0, 0, 1, -1});
  auto [uq, ur] = div_rem<uint32_t>({7, lim<uint32_t>::max(), 7}, {0, 0, 2});
  CHECK(uq == std::vector<uint32_t>{0, 0, 3});
  CHECK(ur == std::vector<uint32_t>{7, lim<uint32_t>::max(), 1});
  auto [q64, r64] = div_rem<int64_t>({lim<int64_t>::min(), lim<int64_t>::min(), -5}, {-1, 0, 0});
  CHECK(q64 == std::vector<int64_t>{lim<int64_t>::min(), 0, 0});
  CHECK(r64 == std::vector<int64_t>{0, lim<int64_t>::min(), -5});
  auto [uq64, ur64] = div_rem<uint64_t>({lim<uint64_t>::max()}, {0});
  CHECK(uq64 == std::vector<uint64_t>{0});
  CHECK(ur64 == std::vector<uint64_t>{lim<uint64_t>::max()});
}

TEST_CASE("semantics: float min/max ignore a NaN operand and order -0 below +0") {
  Kernel k = kernel("minmax", [](Array<float> x, Array<float> y, Array<float> lo, Array<float> hi) {
    Int i = global_id(0);
    lo(i) = fmin(x(i), y(i));
    hi(i) = fmax(x(i), y(i));
  });
  const float nan = lim<float>::quiet_NaN();
  std::vector<float> x{0.0f, -0.0f, nan, 1.0f, nan}, y{-0.0f, 0.0f, 2.0f, nan, nan}, z(5);
  auto out = run_interpreter(k.ir(), {1}, {5}, Args().array(x).array(y).array(z).array(z).list);
  std::vector<float> lo = out[2].as<float>(), hi = out[3].as<float>();
  CHECK(std::bit_cast<uint32_t>(lo[0]) == 0x80000000u);  // min(+0, -0) = -0
  CHECK(std::bit_cast<uint32_t>(lo[1]) == 0x80000000u);
  CHECK(std::bit_cast<uint32_t>(hi[0]) == 0u);           // max(+0, -0) = +0
  CHECK(std::bit_cast<uint32_t>(hi[1]) == 0u);
  CHECK(lo[2] == 2.0f);
  CHECK(hi[3] == 1.0f);
  CHECK(std::isnan(lo[4]));
}

TEST_CASE("semantics: shift amounts modulo the width, >> arithmetic for signed types") {
  Kernel k = kernel("shifts", [](Array<int32_t> x, Array<int32_t> s, Array<int32_t> l, Array<int32_t> r) {
    Int i = global_id(0);
    l(i) = x(i) << s(i);
    r(i) = x(i) >> s(i);
  });
  std::vector<int32_t> x{1, 1, -16, -16, 3, 0x40000000}, s{32, 33, 36, 32, -1, 65}, z(6);
  auto out = run_both(k.ir(), {1}, {6}, Args().array(x).array(s).array(z).array(z));
  CHECK(out[2].as<int32_t>() == std::vector<int32_t>{1, 2, -256, -16, lim<int32_t>::min(), lim<int32_t>::min()});
  CHECK(out[3].as<int32_t>() == std::vector<int32_t>{1, 0, -1, -16, 0, 0x20000000});
}

TEST_CASE("semantics: integer + - * neg abs wrap in two's complement") {
  Kernel k = kernel("wraps", [](Array<int32_t> x, Array<int32_t> y, Array<int32_t> a, Array<int32_t> b) {
    Int i = global_id(0);
    a(i) = x(i) + y(i);
    b(i) = x(i) * y(i) - (-x(i)) + abs(x(i));
  });
  const int32_t max = lim<int32_t>::max(), min = lim<int32_t>::min();
  std::vector<int32_t> z(3);
  auto out = run_both(k.ir(), {1}, {3}, Args().array(std::vector<int32_t>{max, min, 3}).array(std::vector<int32_t>{1, -1, 2}).array(z).array(z));
  auto wrap = [](int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); };
  CHECK(out[2].as<int32_t>() == std::vector<int32_t>{min, max, 5});
  CHECK(out[3].as<int32_t>() == std::vector<int32_t>{wrap(int64_t{max} + max + max), wrap(int64_t{min} * -1 + min + min), 12});
}

TEST_CASE("semantics: float -> integer rounds toward zero, saturates, NaN -> 0; x / 0.0 is IEEE") {
  const float nan = lim<float>::quiet_NaN(), inf = lim<float>::infinity();
  Kernel k = kernel("f2i", [](Array<float> x, Array<int32_t> s, Array<uint32_t> u, Array<float> q) {
    Int i = global_id(0);
    s(i) = cast<int32_t>(x(i));
    u(i) = cast<uint32_t>(x(i));
    q(i) = x(i) / 0.0f;
  });
  std::vector<float> x{3.7f, -3.7f, 1e10f, -1e10f, nan, inf, -inf, 4e9f, -0.5f, 0.0f};
  int64_t n = static_cast<int64_t>(x.size());
  auto out = run_both(k.ir(), {1}, {n}, Args().array(x).array(std::vector<int32_t>(n)).array(std::vector<uint32_t>(n)).array(std::vector<float>(n)));
  CHECK(out[1].as<int32_t>() == std::vector<int32_t>{3, -3, lim<int32_t>::max(), lim<int32_t>::min(), 0, lim<int32_t>::max(),
                                                     lim<int32_t>::min(), lim<int32_t>::max(), 0, 0});
  CHECK(out[2].as<uint32_t>() == std::vector<uint32_t>{3, 0, lim<uint32_t>::max(), 0, 0, lim<uint32_t>::max(), 0, 4000000000u, 0, 0});
  std::vector<float> q = out[3].as<float>();
  CHECK(q[0] == inf);
  CHECK(q[1] == -inf);
  CHECK(std::isnan(q[4]));
  CHECK(std::isnan(q[9]));
}

TEST_CASE("semantics: For counters end where i + step would overflow, in both directions and types") {
  // Iterations of For(begin, end, step) with run-time bounds and steps (capped at 1000).
  Kernel k = kernel("for_count", [](Array<int32_t> b, Array<int32_t> e, Array<int32_t> s, Array<int32_t> count) {
    Int t = global_id(0);
    Var<int32_t> n = 0;
    For(b(t), e(t), s(t), [&](Int) {
      n += 1;
      If(n > 1000, [&] { Break(); });
    });
    count(t) = n;
  });
  const int32_t max = lim<int32_t>::max(), min = lim<int32_t>::min();
  std::vector<int32_t> b{max - 5, min + 5, 0, max - 1, 10, 0, 5, -3};
  std::vector<int32_t> e{max, min, 10, max, 0, 0, 5, 3};
  std::vector<int32_t> s{4, -4, 3, 1, -3, 1, -1, 2};
  auto out = run_both(k.ir(), {1}, {8}, Args().array(b).array(e).array(s).array(std::vector<int32_t>(8)));
  CHECK(out[3].as<int32_t>() == std::vector<int32_t>{2, 2, 4, 1, 4, 0, 0, 3});

  Kernel ku = kernel("for_count_u32", [](Array<uint32_t> b, Array<uint32_t> e, Array<uint32_t> s, Array<int32_t> count) {
    Int t = global_id(0);
    Var<int32_t> n = 0;
    For(b(t), e(t), s(t), [&](UInt) {
      n += 1;
      If(n > 1000, [&] { Break(); });
    });
    count(t) = n;
  });
  const uint32_t umax = lim<uint32_t>::max();
  // Up to the top of the range; a step negative as a signed number counts down to 0.
  std::vector<uint32_t> ub{umax - 5, 0, 10, 10, 7}, ue{umax, 10, 0, 0, 0}, us{4, 3, umax, umax - 2, 0x80000000u};
  auto uout = run_both(ku.ir(), {1}, {5}, Args().array(ub).array(ue).array(us).array(std::vector<int32_t>(5)));
  CHECK(uout[3].as<int32_t>() == std::vector<int32_t>{2, 4, 10, 4, 1});
}

// Once a disagreement: with a *constant* unsigned step whose sign bit is set, the lowering
// counted up (icmp ult + uadd.with.overflow) where the same step passed at run time counts down.
TEST_CASE("a constant u32 For step with its sign bit set counts like a run-time one", "[interpret]") {
  std::string text = R"(kernel @for_const_u32(@count: array<i32, 1, C>) max_block_size(1) {
  var $n: i32
  %1 = const 10 : u32
  %2 = const 0 : u32
  %3 = const 4294967294 : u32
  %4 = const 0 : i32
  %5 = const 1 : i32
  var.store $n, %4 : i32
  for %6 = %1 to %2 step %3 : u32 {
    %7 = var.load $n : i32
    %8 = add %7, %5 : i32
    var.store $n, %8 : i32
  }
  %9 = var.load $n : i32
  store @count[%4], %9 : i32
}
)";
  ir::Kernel k = ir::parse(text, "for_const_u32.rjir");
  auto out = run_interpreter(k, {1}, {1}, Args().array(std::vector<int32_t>(1)).list);
  CHECK(out[0].as<int32_t>()[0] == 5);  // 10, 8, 6, 4, 2 as with a run-time step
  run_both(k, {1}, {1}, Args().array(std::vector<int32_t>(1)));
}

// --- Every sample kernel: interpreter == CPU, and == plain C++ where exact -------------------------

TEST_CASE("every sample kernel runs the same on the interpreter and the CPU") {
  SECTION("saxpy") {
    int n = 1000;
    auto x = random_floats(n, 1), y = random_floats(n, 2);
    auto out = run_both(samples::saxpy().ir(), {blocks(n, 128)}, {128}, Args().scalar(2.5f).array(x).array(y));
    std::vector<float> got = out[2].as<float>();
    for (int i = 0; i < n; ++i) REQUIRE(got[i] == 2.5f * x[i] + y[i]);
  }
  SECTION("reverse") {
    int n = 1000;
    std::vector<float> in(n), o(n, -1.0f);
    std::iota(in.begin(), in.end(), 0.0f);
    auto out = run_both(samples::reverse().ir(), {blocks(n, samples::BLOCK)}, {samples::BLOCK}, Args().array(in).array(o));
    std::vector<float> got = out[1].as<float>();
    for (int base = 0; base < n; base += samples::BLOCK) {
      int len = std::min(samples::BLOCK, n - base);
      for (int t = 0; t < len; ++t) REQUIRE(got[base + t] == in[base + len - 1 - t]);
    }
  }
  SECTION("matmul") {
    int n = 17, m = 33, p = 9;
    auto a = random_floats(n * m, 3), b = random_floats(m * p, 4);
    auto out = run_both(samples::matmul().ir(), {blocks(p, 16), blocks(n, 16)}, {16, 16},
                        Args().array(a, {n, m}).array(b, {m, p}).array(std::vector<float>(n * p), {n, p}));
    std::vector<float> c = out[2].as<float>();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < p; ++j) {
        float ref = 0;  // the kernel's order: tiles of 16, zero-padded
        for (int q = 0; q < (m + 15) / 16 * 16; ++q) ref += (q < m ? a[i * m + q] * b[q * p + j] : 0.0f * 0.0f);
        REQUIRE(c[i * p + j] == ref);
      }
  }
  SECTION("reduce") {
    int n = 1000;
    auto in = random_floats(n, 5);
    int64_t groups = blocks(n, samples::BLOCK);
    auto out = run_both(samples::reduce().ir(), {groups}, {samples::BLOCK}, Args().array(in).array(std::vector<float>(groups)));
    std::vector<float> partial = out[1].as<float>();
    for (int64_t g = 0; g < groups; ++g) {
      double ref = 0;
      for (int64_t i = g * samples::BLOCK; i < std::min<int64_t>(n, (g + 1) * samples::BLOCK); ++i) ref += in[i];
      REQUIRE(partial[g] == Approx(ref).margin(1e-4));
    }
  }
  SECTION("transpose") {
    int rows = 33, cols = 47;
    auto in = random_floats(rows * cols, 6);
    auto out = run_both(samples::transpose().ir(), {blocks(cols, 16), blocks(rows, 16)}, {16, 16},
                        Args().array(in, {rows, cols}).array(std::vector<float>(rows * cols), {cols, rows}));
    std::vector<float> t = out[1].as<float>();
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) REQUIRE(t[j * rows + i] == in[i * cols + j]);
  }
  SECTION("histogram") {
    int n = 5000;
    std::vector<uint32_t> data(n), ref(samples::HISTOGRAM_BINS, 0);
    std::mt19937 rng(7);
    for (auto& v : data) v = rng();
    for (auto v : data) ++ref[v % samples::HISTOGRAM_BINS];
    auto out = run_both(samples::histogram().ir(), {13}, {samples::BLOCK},
                        Args().array(data).array(std::vector<uint32_t>(samples::HISTOGRAM_BINS)));
    CHECK(out[1].as<uint32_t>() == ref);
  }
  SECTION("jacobi") {
    int rows = 17, cols = 29;
    auto in = random_floats(rows * cols, 8);
    auto out = run_both(samples::jacobi().ir(), {blocks(cols, 8), blocks(rows, 8)}, {8, 8},
                        Args().array(in, {rows, cols}).array(std::vector<float>(rows * cols), {rows, cols}));
    std::vector<float> o = out[1].as<float>();
    for (int i = 1; i < rows - 1; ++i)
      for (int j = 1; j < cols - 1; ++j)
        REQUIRE(o[i * cols + j] == 0.25f * (in[(i - 1) * cols + j] + in[(i + 1) * cols + j] + in[i * cols + j - 1] +
                                            in[i * cols + j + 1]));
  }
}

// --- Barriers, loops, atomics, ids ----------------------------------------------------------------

TEST_CASE("values, variables and local arrays cross barriers in loops and uniform Ifs") {
  Kernel k = kernel("loops", [](Array<float> out, Int rounds) {
    auto s = shared::array<float>({32});
    auto mine = local::array<float>({2}, "mine");
    Int t = local_id(0);
    Var<float> acc = 0.0f;
    mine(0) = cast<float>(t);
    mine(1) = 1.0f;
    For(0, rounds, [&](Int r) {
      s(t) = mine(0) + cast<float>(r);
      barrier();
      If(rounds > 2, [&] {
        acc += s((t + 1) % 32);
        barrier();
      }).Else([&] {
        acc += s(31 - t) * mine(1);
        barrier();
      });
    });
    out(global_id(0)) = acc;
  }, {.max_block_size = 32});
  for (int rounds : {2, 4}) {
    auto out = run_both(k.ir(), {2}, {32}, Args().array(std::vector<float>(64)).scalar(rounds));
    std::vector<float> o = out[0].as<float>();
    for (int g = 0; g < 2; ++g)
      for (int t = 0; t < 32; ++t) {
        float ref = 0;
        for (int r = 0; r < rounds; ++r) ref += rounds > 2 ? ((t + 1) % 32 + r) : (31 - t + r);
        REQUIRE(o[g * 32 + t] == ref);
      }
  }
}

TEST_CASE("a uniform While with Break around barriers") {
  Kernel k = kernel("while_barrier", [](Array<int32_t> out, Int limit) {
    auto s = shared::array<int32_t>({16});
    Var<int32_t> i = 0;
    Var<int32_t> sum = 0;
    While([&] { return i < 100; }, [&] {
      s(local_id(0)) = i.get() + local_id(0);
      barrier();
      sum += s(15 - local_id(0));
      barrier();
      i += 1;
      If(i == limit, [&] { Break(); });
    });
    out(global_id(0)) = sum;
  }, {.max_block_size = 16});
  auto out = run_both(k.ir(), {1}, {16}, Args().array(std::vector<int32_t>(16)).scalar(7));
  std::vector<int32_t> o = out[0].as<int32_t>();
  for (int t = 0; t < 16; ++t) REQUIRE(o[t] == 7 * (15 - t) + 21);
}

TEST_CASE("every atomic kind on shared and global arrays") {
  Kernel k = kernel("all_atomics", [](Array<int32_t> g, Array<uint64_t> gu, Array<float> gf, Array<int32_t> ints,
                                      Array<int32_t> olds, Array<int32_t> swaps) {
    auto si = shared::array<int32_t>({5});
    Int l = local_id(0);
    If(l == 0, [&] { si(0) = 0; si(1) = 1000; si(2) = -1000; si(3) = 0; si(4) = -1; });
    barrier();
    atomic::add(si, 0, l);
    atomic::sub(si, 0, 1);
    atomic::min(si, 1, l - 7);
    atomic::max(si, 2, l * 3);
    olds(global_id(0)) = atomic::compare_exchange(si, 3, 0, l + 1);
    swaps(global_id(0)) = atomic::exchange(si, 4, l);
    atomic::add(g, 0, 1);
    atomic::sub(g, 1, global_id(0));
    atomic::min(g, 2, global_id(0));
    atomic::max(g, 3, global_id(0));
    atomic::and_(gu, 0, ~(1ull << cast<uint64_t>(global_id(0) % 64)));
    atomic::or_(gu, 1, 1ull << cast<uint64_t>(global_id(0) % 64));
    atomic::xor_(gu, 2, cast<uint64_t>(global_id(0)) * 0x9e3779b97f4a7c15ull);
    atomic::exchange(g, 4, global_id(0));
    atomic::compare_exchange(g, 5, global_id(0), global_id(0) + 1);
    atomic::add(gf, 0, 0.5f);
    atomic::min(gf, 1, cast<float>(global_id(0)));
    atomic::max(gf, 2, cast<float>(global_id(0)));
    barrier();
    If(l == 0, [&] { For(0, 5, [&](Int i) { ints(group_id(0) * 5 + i) = si(i); }); });
  });
  const int groups = 3, block = 64, n = groups * block;
  Args args;
  args.array(std::vector<int32_t>{0, 0, 1 << 30, -1, -1, 0}).array(std::vector<uint64_t>{~0ull, 0, 0});
  args.array(std::vector<float>{0.0f, 1e9f, -1e9f}).array(std::vector<int32_t>(groups * 5));
  args.array(std::vector<int32_t>(n)).array(std::vector<int32_t>(n));
  // Racing work-items may apply their atomics in another order on the CPU, so results that depend
  // on the order (exchange, compare_exchange) are checked for what must hold in any order.
  auto interp = run_interpreter(k.ir(), {groups}, {block}, args.list);
  auto cpu = run_cpu(k.ir(), {groups}, {block}, args.list);
  for (auto* r : {&interp, &cpu}) {
    INFO((r == &interp ? "interpreter" : "cpu"));
    std::vector<int32_t> gi = (*r)[0].as<int32_t>(), ints = (*r)[3].as<int32_t>(), olds = (*r)[4].as<int32_t>(),
                         swaps = (*r)[5].as<int32_t>();
    std::vector<uint64_t> gb = (*r)[1].as<uint64_t>();
    std::vector<float> fl = (*r)[2].as<float>();
    CHECK(gi[0] == n);
    CHECK(gi[1] == -(n * (n - 1) / 2));
    CHECK(gi[2] == 0);
    CHECK(gi[3] == n - 1);
    CHECK(gi[4] >= 0);
    CHECK(gi[4] < n);
    CHECK(gi[5] >= 1);  // global id 0 swaps 0 -> 1, then id 1 may swap 1 -> 2, ...
    if (r == &interp) CHECK(gi[5] == n);  // in the interpreter's order, all of them do
    CHECK(gb[0] == 0);
    CHECK(gb[1] == ~0ull);
    uint64_t x = 0;
    for (int i = 0; i < n; ++i) x ^= uint64_t(i) * 0x9e3779b97f4a7c15ull;
    CHECK(gb[2] == x);
    CHECK(fl[0] == 0.5f * n);
    CHECK(fl[1] == 0.0f);
    CHECK(fl[2] == float(n - 1));
    for (int grp = 0; grp < groups; ++grp) {
      CHECK(ints[grp * 5 + 0] == block * (block - 1) / 2 - block);
      CHECK(ints[grp * 5 + 1] == -7);
      CHECK(ints[grp * 5 + 2] == 3 * (block - 1));
      int winners = 0;
      for (int l = 0; l < block; ++l) winners += olds[grp * block + l] == 0;
      CHECK(winners == 1);  // the others saw the winner's value
      std::vector<int32_t> seen(swaps.begin() + grp * block, swaps.begin() + (grp + 1) * block);
      seen.push_back(ints[grp * 5 + 4]);
      std::sort(seen.begin(), seen.end());
      for (int i = 0; i <= block; ++i) REQUIRE(seen[i] == i - 1);  // each exchange returned the previous holder
    }
  }
}

TEST_CASE("3-D grids and blocks give every work-item its ids") {
  Kernel k = kernel("ids3d", [](Array<int32_t, 3> out) {
    auto [x, y, z] = grid<3>();
    Int code = local_id(0) + 10 * local_id(1) + 100 * local_id(2) + 1000 * group_id(0) + 10000 * group_id(1) +
               100000 * group_id(2);
    out(z, y, x) = code + 0 * local_size(2) * num_groups(1) * global_size(0);
  }, {.max_block_size = 64});
  int nx = 12, ny = 4, nz = 6;
  auto out = run_both(k.ir(), {3, 2, 2}, {4, 2, 3}, Args().array(std::vector<int32_t>(nx * ny * nz, -1), {nz, ny, nx}));
  std::vector<int32_t> o = out[0].as<int32_t>();
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x)
        REQUIRE(o[(z * ny + y) * nx + x] ==
                x % 4 + 10 * (y % 2) + 100 * (z % 3) + 1000 * (x / 4) + 10000 * (y / 2) + 100000 * (z / 3));
}

TEST_CASE("F and strided layouts address the same elements as on the CPU") {
  Kernel k = kernel("layouts", [](Array<float, 2, ir::Layout::F> f, Array<float, 3, ir::Layout::strided> s,
                                  Array<float, 2> out) {
    Int i = global_id(0), j = global_id(1);
    If(i < out.shape(0) && j < out.shape(1), [&] { out(i, j) = f(i, j) * 100.0f + s(j, i, 1); });
  }, {.max_block_size = 64});
  int n = 5, m = 7;
  std::vector<float> f(n * m), s(m * n * 3 * 2);
  std::iota(f.begin(), f.end(), 0.0f);
  std::iota(s.begin(), s.end(), 0.5f);
  // s is a view of every second element of a (m, n, 3) C array: strides in elements.
  auto out = run_both(k.ir(), {1, 1}, {8, 8},
                      Args().array(f, {n, m}).array(s, {m, n, 3}, {n * 3 * 2, 3 * 2, 2}).array(std::vector<float>(n * m), {n, m}));
  std::vector<float> o = out[2].as<float>();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) REQUIRE(o[i * m + j] == f[j * n + i] * 100.0f + s[j * n * 6 + i * 6 + 2]);
}

// Once a disagreement: a 1-D strided parameter ignored its stride in the lowering (rank 1 was
// linearised before the layout was looked at). No DeviceArray can be a non-contiguous 1-D view
// today, so only run_host and the interpreter can pass such a stride.
TEST_CASE("a 1-D strided array uses its stride", "[interpret]") {
  Kernel k = kernel("strided_1d", [](Array<float, 1, ir::Layout::strided> a, Array<float> out) {
    Int i = global_id(0);
    If(i < out.shape(0), [&] { out(i) = a(i); });
  });
  std::vector<float> a{0, 1, 2, 3, 4, 5, 6, 7};
  auto out = run_interpreter(k.ir(), {1}, {4}, Args().array(a, {4}, {2}).array(std::vector<float>(4)).list);
  CHECK(out[1].as<float>() == std::vector<float>{0, 2, 4, 6});
  run_both(k.ir(), {1}, {4}, Args().array(a, {4}, {2}).array(std::vector<float>(4)));
}

// --- The interpreter's own checks ------------------------------------------------------------------

TEST_CASE("the interpreter reports out-of-bounds accesses with kernel, array, index, file:line and work-item") {
  int line = 0;
  Kernel k = kernel("overrun", [&](Array<float> x, Array<float, 2> m) {
    Int i = global_id(0);
    line = __LINE__ + 1;
    x(i + 1) = 1.0f;
    m(i, 0) = 2.0f;
  }, {.param_names = {"x", "m"}});
  std::vector<float> x(8, 0.0f), m(16, 0.0f);
  std::vector<InterpretArgument> args{InterpretArgument::array(x), InterpretArgument::array(m, {8, 2})};
  CHECK_THROWS_WITH(interpret(k.ir(), {1}, {8}, args),
                    Contains("kernel 'overrun': out-of-bounds store of global array 'x' at") &&
                        Contains(std::string(__FILE__) + ":" + std::to_string(line)) &&
                        Contains("index (8) is outside shape (8)") && Contains("work-item (7, 0, 0) of group (0, 0, 0)"));
  for (int i = 1; i < 8; ++i) CHECK(x[i] == 1.0f);  // the in-bounds stores happened

  Kernel s = kernel("shared_overrun", [](Array<int32_t> out) {
    auto tile = shared::array<int32_t>({4, 4}, "tile");
    tile(local_id(0), 4) = 1;
    out(0) = tile(0, 0);
  });
  std::vector<int32_t> o(1);
  std::vector<InterpretArgument> sargs{InterpretArgument::array(o)};
  CHECK_THROWS_WITH(interpret(s.ir(), {1}, {2}, sargs),
                    Contains("out-of-bounds store of shared array 'tile'") && Contains("index (0, 4) is outside shape (4, 4)"));

  // A strided view whose strides leave the buffer.
  Kernel v = kernel("view", [](Array<float, 2, ir::Layout::strided> a) { a(local_id(0), 1) = 1.0f; });
  std::vector<float> buf(10);
  std::vector<InterpretArgument> vargs{InterpretArgument::array(buf, {4, 2}, {3, 1})};
  CHECK_THROWS_WITH(interpret(v.ir(), {1}, {4}, vargs),
                    Contains("out-of-bounds store of global array") && Contains("index (3, 1) is element 10 of a buffer of 10 elements"));
}

TEST_CASE("the interpreter checks arguments and geometry, and can bound the work it does") {
  std::vector<float> x(4), y(4);
  Kernel saxpy = samples::saxpy();
  const ir::Kernel& a = saxpy.ir();
  auto run = [&](std::vector<InterpretArgument> args, Dim3 grid = {1}, Dim3 block = {4}) { interpret(a, grid, block, args); };
  CHECK_THROWS_WITH(run({InterpretArgument::array(x), InterpretArgument::array(y)}), Contains("kernel 'saxpy': it takes 3 arguments, 2 were given"));
  CHECK_THROWS_WITH(run({InterpretArgument::scalar(2.5), InterpretArgument::array(x), InterpretArgument::array(y)}),
                    Contains("argument 0 ('a') must be a scalar f32"));
  std::vector<int32_t> wrong(4);
  CHECK_THROWS_WITH(run({InterpretArgument::scalar(2.5f), InterpretArgument::array(wrong), InterpretArgument::array(y)}),
                    Contains("argument 1 ('x', array<f32, 1, C>): the buffer holds i32"));
  CHECK_THROWS_WITH(run({InterpretArgument::scalar(2.5f), InterpretArgument::array(x, {5}), InterpretArgument::array(y)}),
                    Contains("its shape holds 5 elements, the buffer 4"));
  CHECK_THROWS_WITH(run({InterpretArgument::scalar(2.5f), InterpretArgument::array(x), InterpretArgument::array(y)}, {0}),
                    Contains("grid.x is 0"));
  Kernel reverse_kernel = samples::reverse();
  const ir::Kernel& reverse = reverse_kernel.ir();
  std::vector<InterpretArgument> rargs{InterpretArgument::array(x), InterpretArgument::array(y)};
  CHECK_THROWS_WITH(interpret(reverse, {1}, {512}, rargs), Contains("exceeds the kernel's declared maximum of 256"));

  Kernel forever = kernel("forever", [](Array<int32_t> out) {
    Var<int32_t> i = 0;
    While([&] { return i >= 0; }, [&] { i = i.get() * 1; });
    out(0) = i;
  });
  std::vector<int32_t> o(1);
  std::vector<InterpretArgument> fargs{InterpretArgument::array(o)};
  CHECK_THROWS_WITH(interpret(forever.ir(), {1}, {1}, fargs, {.max_operations = 10000}),
                    Contains("kernel 'forever': did not finish within 10000 operations"));
}

// --- Every kernel of the fuzz corpus: interpreter == CPU where the generic arguments fit ------------

TEST_CASE("every fuzz-corpus kernel that runs in bounds with generic arguments gives the CPU's results") {
  namespace fs = std::filesystem;
  fs::path corpus = fs::path(__FILE__).parent_path().parent_path() / "fuzz" / "corpus";
  REQUIRE(fs::is_directory(corpus));
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(corpus)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int compared = 0, out_of_bounds = 0, racy = 0, refused = 0;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<ir::Kernel> kernels;
    try {
      kernels = ir::parse_all(text, file.filename().string());
    } catch (const Error&) {
      ++refused;  // the corpus holds malformed inputs too
      continue;
    }
    for (const ir::Kernel& k : kernels) {
      // Order-dependent results: atomics whose outcome depends on the order of racing work-items.
      bool order_dependent = false;
      ir::walk(k.body, [&](const ir::Op& op) {
        if (op.kind != ir::OpKind::atomic) return;
        ir::Type t = k.memories[op.memory()].element;
        ir::AtomicOp a = op.atomic_op();
        if (ir::is_float(t) && a == ir::AtomicOp::add) order_dependent = true;
        if (a == ir::AtomicOp::exchange || a == ir::AtomicOp::compare_exchange) order_dependent = true;
        if (op.result) order_dependent = true;  // the returned old value depends on the order
      });
      if (order_dependent) {
        ++racy;
        continue;
      }
      Args args;
      for (const ir::Param& p : k.params) {
        if (p.kind == ir::Param::Kind::scalar) {
          ir::with_cpp_type(p.type, [&](auto zero) {
            using T = decltype(zero);
            if constexpr (std::is_same_v<T, bool>) args.scalar(true);
            else if constexpr (std::is_floating_point_v<T>) args.scalar(T(1.5));
            else args.scalar(T(3));
          });
          continue;
        }
        const ir::Memory& m = k.memories[p.memory];
        std::vector<int64_t> shape = m.rank == 1 ? std::vector<int64_t>{512}
                                     : m.rank == 2 ? std::vector<int64_t>{32, 24}
                                                   : std::vector<int64_t>{8, 6, 10};
        int64_t count = 1;
        for (int64_t e : shape) count *= e;
        std::vector<int64_t> strides;
        if (m.layout == ir::Layout::strided) {
          strides.assign(m.rank, 1);
          for (int d = static_cast<int>(m.rank) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
        }
        auto fill = [&](auto zero) {
          using T = decltype(zero);
          if constexpr (!std::is_same_v<T, bool>) {  // no arrays of bool
            std::vector<T> v(count);
            for (int64_t i = 0; i < count; ++i)
              v[i] = std::is_floating_point_v<T> ? T((i % 13) * 0.25 - 1.0) : T(i % 5);
            args.array(v, shape, strides);
          }
        };
        ir::with_cpp_type(m.element, fill);
      }
      // 1-D: a kernel written for 1-D launches races with itself on a 2-D one (y(i) += ...).
      Dim3 grid{2}, block{std::min<int64_t>(k.max_block_size, 64)};
      std::vector<Arg> interp;
      try {
        interp = run_interpreter(k, grid, block, args.list, {.max_operations = 20'000'000});
      } catch (const LaunchError& e) {
        ++out_of_bounds;  // the generic arguments do not fit this kernel (or it runs too long)
        continue;
      }
      std::vector<Arg> cpu = run_cpu(k, grid, block, args.list);
      INFO("kernel '" << k.name << "' from " << file.filename().string());
      for (size_t i = 0; i < interp.size(); ++i) {
        if (!interp[i].array || interp[i].bytes == cpu[i].bytes) continue;
        // Float results: any NaN equals any NaN.
        bool same = true;
        size_t size = ir::byte_size(interp[i].type);
        for (size_t e = 0; e * size < interp[i].bytes.size() && same; ++e) {
          const std::byte* a = &interp[i].bytes[e * size];
          const std::byte* b = &cpu[i].bytes[e * size];
          if (std::memcmp(a, b, size) == 0) continue;
          if (interp[i].type == ir::Type::f32) {
            float x, y;
            std::memcpy(&x, a, 4);
            std::memcpy(&y, b, 4);
            same = std::isnan(x) && std::isnan(y);
          } else if (interp[i].type == ir::Type::f64) {
            double x, y;
            std::memcpy(&x, a, 8);
            std::memcpy(&y, b, 8);
            same = std::isnan(x) && std::isnan(y);
          } else {
            same = false;
          }
        }
        if (!same) require_same(k, interp, cpu);
      }
      ++compared;
    }
  }
  INFO(compared << " compared, " << out_of_bounds << " out of bounds or too long with generic arguments, " << racy
                << " with order-dependent atomics, " << refused << " malformed files");
  CHECK(compared >= 20);
  WARN(compared << " corpus kernels compared, " << out_of_bounds << " did not fit the generic arguments, " << racy
                << " have order-dependent atomics, " << refused << " files are malformed on purpose");
}

TEST_CASE("the interpreter reports reads of unwritten shared and local memory and variables") {
  Kernel k = kernel("unwritten", [](Array<int32_t> out) {
    auto tile = shared::array<int32_t>({64}, "tile");
    Int t = local_id(0);
    If(t < 32, [&] { tile(t) = t; });
    barrier();
    out(t) = tile(63 - t);  // work-items 0..31 read what nobody wrote
  });
  std::vector<int32_t> out(64);
  std::vector<InterpretArgument> args{InterpretArgument::array(out)};
  CHECK_THROWS_WITH(interpret(k.ir(), {1}, {64}, args),
                    Contains("kernel 'unwritten': load at") && Contains("reads element (63) of shared array 'tile' before any work-item of the group wrote it") &&
                        Contains("work-item (0, 0, 0) of group (0, 0, 0)"));
  interpret(k.ir(), {1}, {64}, args, {.check_uninitialized = false});  // reads 0 then
  CHECK(out[0] == 0);
  CHECK(out[63] == 0);
  CHECK(out[40] == 23);

  Kernel local = kernel("unwritten_local", [](Array<float> out) {
    auto mine = local::array<float>({4}, "mine");
    mine(0) = 1.0f;
    out(global_id(0)) = mine(0) + mine(1);
  });
  std::vector<float> f(2);
  std::vector<InterpretArgument> largs{InterpretArgument::array(f)};
  CHECK_THROWS_WITH(interpret(local.ir(), {1}, {2}, largs),
                    Contains("reads element (1) of local array 'mine' before the work-item wrote it"));
}
