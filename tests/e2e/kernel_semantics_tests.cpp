// Kernel semantics on the device under test (moved here from the host-backend tests, so every
// device runs them: the CPU, HIP GPUs and the simulator): the sample kernels against plain C++,
// values, variables and local arrays across barriers, barriers in uniform loops and Ifs, a
// While with Break around barriers, every atomic kind on shared and global arrays, 3-D ids; and
// every op over tables of awkward values against the reference interpreter (rocjit::interpret),
// bit for bit: integer ops, float arithmetic, compares, correctly rounded math, every conversion.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "../support/op_tables.hpp"
#include "../support/staged_halo.hpp"
#include "e2e.hpp"
#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

namespace {
std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}
uint32_t blocks(int64_t n, int64_t b) { return static_cast<uint32_t>((n + b - 1) / b); }
}  // namespace

TEST_CASE("saxpy matches the C++ loop at sizes that are not multiples of the block") {
  Kernel k = samples::saxpy();
  for (int n : {1, 255, 1000, 4097}) {
    auto x = random_floats(n, 1), y = random_floats(n, 2), expected = y;
    for (int i = 0; i < n; ++i) expected[i] = 2.5f * x[i] + y[i];
    auto dx = to_device(x), dy = to_device(y);
    k[{blocks(n, 128), 128}](2.5f, dx, dy);
    std::vector<float> got = dy.copy_to_host().to_vector();
    for (int i = 0; i < n; ++i) REQUIRE(got[i] == Approx(expected[i]));
  }
}

TEST_CASE("reverse through shared memory reverses every block-sized chunk") {
  Kernel k = samples::reverse();
  for (int n : {256, 1000}) {
    std::vector<float> in(n);
    std::iota(in.begin(), in.end(), 0.0f);
    auto din = to_device(in);
    auto dout = to_device(std::vector<float>(n, -1.0f));
    k[{blocks(n, samples::BLOCK), samples::BLOCK}](din, dout);
    std::vector<float> out = dout.copy_to_host().to_vector();
    for (int base = 0; base < n; base += samples::BLOCK) {
      int len = std::min(samples::BLOCK, n - base);
      for (int t = 0; t < len; ++t) REQUIRE(out[base + t] == in[base + len - 1 - t]);
    }
  }
}

TEST_CASE("tiled matmul matches the triple loop, including ragged edges") {
  Kernel k = samples::matmul();
  for (auto [n, m, p] : {std::tuple{17, 33, 9}, std::tuple{64, 64, 64}, std::tuple{5, 1, 40}}) {
    auto a = random_floats(n * m, 3), b = random_floats(m * p, 4);
    auto da = to_device(std::span<const float>(a), {n, m}), db = to_device(std::span<const float>(b), {m, p});
    auto dc = device_array<float>({n, p});
    k[{{blocks(p, 16), blocks(n, 16)}, {16, 16}}](da, db, dc);
    std::vector<float> c = dc.copy_to_host().to_vector();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < p; ++j) {
        float ref = 0;
        for (int q = 0; q < m; ++q) ref += a[i * m + q] * b[q * p + j];
        REQUIRE(c[i * p + j] == Approx(ref).margin(1e-4));
      }
  }
}

TEST_CASE("the shared-memory tree reduction with a wave-level finish sums every block") {
  Kernel k = samples::reduce();
  for (int n : {1, 1000, 100000}) {
    auto in = random_floats(n, 5);
    uint32_t groups = blocks(n, samples::BLOCK);
    auto din = to_device(in);
    auto dpartial = device_array<float>({groups});
    k[{groups, samples::BLOCK}](din, dpartial);
    std::vector<float> partial = dpartial.copy_to_host().to_vector();
    for (int64_t g = 0; g < groups; ++g) {
      double ref = 0;
      for (int64_t i = g * samples::BLOCK; i < std::min<int64_t>(n, (g + 1) * samples::BLOCK); ++i) ref += in[i];
      REQUIRE(partial[g] == Approx(ref).margin(1e-4));
    }
  }
}

TEST_CASE("transpose through a padded tile") {
  Kernel k = samples::transpose();
  int rows = 33, cols = 47;
  auto in = random_floats(rows * cols, 6);
  auto din = to_device(std::span<const float>(in), {rows, cols});
  auto dout = device_array<float>({cols, rows});
  k[{{blocks(cols, 16), blocks(rows, 16)}, {16, 16}}](din, dout);
  std::vector<float> out = dout.copy_to_host().to_vector();
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) REQUIRE(out[j * rows + i] == in[i * cols + j]);
}

TEST_CASE("histogram: shared atomics merged with global atomics from many groups") {
  Kernel k = samples::histogram();
  for (int n : {1000, 65537}) {
    std::vector<uint32_t> data(n), ref(samples::HISTOGRAM_BINS, 0);
    std::mt19937 rng(7);
    for (auto& v : data) v = rng();
    for (auto v : data) ++ref[v % samples::HISTOGRAM_BINS];
    auto ddata = to_device(data);
    auto dhist = to_device(std::vector<uint32_t>(samples::HISTOGRAM_BINS, 0));
    k[{13, samples::BLOCK}](ddata, dhist);
    REQUIRE(dhist.copy_to_host().to_vector() == ref);
  }
}

TEST_CASE("jacobi sweep of the 5-point stencil") {
  Kernel k = samples::jacobi();
  int rows = 17, cols = 29;
  auto in = random_floats(rows * cols, 8);
  auto din = to_device(std::span<const float>(in), {rows, cols});
  std::vector<float> zeros(rows * cols, 0.0f);
  auto dout = to_device(std::span<const float>(zeros), {rows, cols});
  k[{{blocks(cols, 8), blocks(rows, 8)}, {8, 8}}](din, dout);
  std::vector<float> out = dout.copy_to_host().to_vector();
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      float ref = (i == 0 || j == 0 || i == rows - 1 || j == cols - 1)
                      ? 0.0f
                      : 0.25f * (in[(i - 1) * cols + j] + in[(i + 1) * cols + j] + in[i * cols + j - 1] +
                                 in[i * cols + j + 1]);
      REQUIRE(out[i * cols + j] == Approx(ref));
    }
}

// The halo is staged cell by cell through tile(c / 10, c % 10), which every back end addresses
// as element c of the tile (tests/lit/split-index.rjir); the zero-padded 5-point Laplacian.
TEST_CASE("a haloed tile staged cell by cell through (c / e, c % e) indices") {
  Kernel k = rocjit::testing::staged_halo_kernel("staged_halo", 0.0f);
  const int rows = 19, cols = 30;
  std::vector<float> in(rows * cols);
  for (int i = 0; i < rows * cols; ++i) in[i] = static_cast<float>((i * 5) % 17);
  auto din = to_device(std::span<const float>(in), {rows, cols});
  auto dout = device_array<float>({rows, cols});
  k[{{blocks(cols, 8), blocks(rows, 8)}, {8, 8}}](din, dout);
  std::vector<float> out = dout.copy_to_host().to_vector();
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      INFO("cell " << i << ", " << j);
      REQUIRE(out[i * cols + j] == rocjit::testing::staged_halo_reference(in, rows, cols, i, j, 0.0f));
    }
}

TEST_CASE("values cross one, two and many barriers") {
  Kernel k = kernel("crossing", [](Array<int32_t> out) {
    auto s = shared::array<int32_t>({64});
    Int t = local_id(0);
    Int v = t * 3 + group_id(0);  // defined before every barrier, used after all of them
    s(t) = v;
    barrier();
    Int left = s((t + 1) % 64);   // crosses the next barrier
    barrier();
    s(t) = left;
    barrier();
    for (int r = 0; r < 5; ++r) barrier();  // many barriers
    out(global_id(0)) = s(t) * 1000 + v;
  }, {.max_block_size = 64});
  auto dout = device_array<int32_t>({64 * 3});
  k[{3, 64}](dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int g = 0; g < 3; ++g)
    for (int t = 0; t < 64; ++t) REQUIRE(out[g * 64 + t] == (((t + 1) % 64) * 3 + g) * 1000 + t * 3 + g);
}

TEST_CASE("barriers inside uniform For loops and uniform Ifs, with variables and local arrays across them") {
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
      If(rounds > 2, [&] {  // uniform: a scalar argument
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
    auto dout = device_array<float>({64});
    k[{2, 32}](dout, rounds);
    std::vector<float> out = dout.copy_to_host().to_vector();
    for (int g = 0; g < 2; ++g)
      for (int t = 0; t < 32; ++t) {
        float ref = 0;
        for (int r = 0; r < rounds; ++r) ref += rounds > 2 ? ((t + 1) % 32 + r) : (31 - t + r);
        REQUIRE(out[g * 32 + t] == ref);
      }
  }
}

TEST_CASE("a uniform While with Break around barriers runs the same trip count in every work-item") {
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
  auto dout = device_array<int32_t>({16});
  k[{1, 16}](dout, 7);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int t = 0; t < 16; ++t) REQUIRE(out[t] == 7 * (15 - t) + 21);
}

TEST_CASE("3-D grids and blocks give every work-item its ids") {
  Kernel k = kernel("ids3d", [](Array<int32_t, 3> out) {
    auto [x, y, z] = grid<3>();
    Int code = local_id(0) + 10 * local_id(1) + 100 * local_id(2) + 1000 * group_id(0) + 10000 * group_id(1) +
               100000 * group_id(2);
    out(z, y, x) = code + 0 * local_size(2) * num_groups(1) * global_size(0);
  }, {.max_block_size = 64});
  int nx = 12, ny = 4, nz = 6;
  std::vector<int32_t> init(nx * ny * nz, -1);
  auto dout = to_device(std::span<const int32_t>(init), {nz, ny, nx});
  k[{{3, 2, 2}, {4, 2, 3}}](dout);
  std::vector<int32_t> out = dout.copy_to_host().to_vector();
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x)
        REQUIRE(out[(z * ny + y) * nx + x] ==
                x % 4 + 10 * (y % 2) + 100 * (z % 3) + 1000 * (x / 4) + 10000 * (y / 2) + 100000 * (z / 3));
}

TEST_CASE("atomics from many groups on one counter are exact") {
  Kernel k = kernel("count", [](Array<uint64_t> counter, Array<int32_t> extremes, Array<float> fsum) {
    atomic::add(counter, 0, 1ull);
    atomic::max(extremes, 0, global_id(0));
    atomic::min(extremes, 1, global_id(0));
    atomic::add(fsum, 0, 1.0f);
  });
  auto counter = to_device(std::vector<uint64_t>{0});
  auto extremes = to_device(std::vector<int32_t>{-1, 1 << 30});
  auto fsum = to_device(std::vector<float>{0});
  k[{1000, 256}](counter, extremes, fsum);
  CHECK(counter.copy_to_host().to_vector()[0] == 256000);
  CHECK(extremes.copy_to_host().to_vector() == std::vector<int32_t>{255999, 0});
  CHECK(fsum.copy_to_host().to_vector()[0] == 256000.0f);
}

TEST_CASE("every atomic kind on shared and global arrays returns and leaves what it must in any order") {
  Kernel k = kernel("all_atomics", [](Array<int32_t> ints, Array<uint32_t> bits, Array<float> floats,
                                      Array<int32_t> olds, Array<int32_t> swaps, Array<int32_t> g, Array<uint64_t> gu) {
    auto si = shared::array<int32_t>({5});
    auto su = shared::array<uint32_t>({3});
    auto sf = shared::array<float>({3});
    Int l = local_id(0);
    If(l == 0, [&] {
      si(0) = 0; si(1) = 1000; si(2) = -1000; si(3) = 0; si(4) = -1;
      su(0) = 0xffffffffu; su(1) = 0u; su(2) = 0u;
      sf(0) = 0.0f; sf(1) = 1e9f; sf(2) = -1e9f;
    });
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic::add(si, 0, l);
    atomic::sub(si, 0, 1);
    atomic::min(si, 1, l - 7);
    atomic::max(si, 2, l * 3);
    atomic::and_(su, 0, ~(1u << cast<uint32_t>(l % 32)));
    atomic::or_(su, 1, 1u << cast<uint32_t>(l % 32));
    atomic::xor_(su, 2, cast<uint32_t>(l));
    atomic::add(sf, 0, 0.5f);
    atomic::min(sf, 1, cast<float>(l));
    atomic::max(sf, 2, cast<float>(l));
    olds(global_id(0)) = atomic::compare_exchange(si, 3, 0, l + 1);  // exactly one work-item wins
    swaps(global_id(0)) = atomic::exchange(si, 4, l);
    // The same kinds on global memory, from every group.
    atomic::sub(g, 0, global_id(0));
    atomic::and_(gu, 0, ~(1ull << cast<uint64_t>(global_id(0) % 64)));
    atomic::or_(gu, 1, 1ull << cast<uint64_t>(global_id(0) % 64));
    atomic::xor_(gu, 2, cast<uint64_t>(global_id(0)) * 0x9e3779b97f4a7c15ull);
    atomic::exchange(g, 1, global_id(0));
    atomic::compare_exchange(g, 2, global_id(0), global_id(0) + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    If(l == 0, [&] {
      For(0, 5, [&](Int i) { ints(group_id(0) * 5 + i) = si(i); });
      For(0, 3, [&](Int i) { bits(group_id(0) * 3 + i) = su(i); floats(group_id(0) * 3 + i) = sf(i); });
    });
  });
  const int groups = 3, block = 64, n = groups * block;
  auto dints = device_array<int32_t>({groups * 5});
  auto dbits = device_array<uint32_t>({groups * 3});
  auto dfloats = device_array<float>({groups * 3});
  auto dolds = device_array<int32_t>({n});
  auto dswaps = device_array<int32_t>({n});
  auto dg = to_device(std::vector<int32_t>{0, -1, 0});
  auto dgu = to_device(std::vector<uint64_t>{~0ull, 0, 0});
  k[{groups, block}](dints, dbits, dfloats, dolds, dswaps, dg, dgu);
  std::vector<int32_t> ints = dints.copy_to_host().to_vector(), olds = dolds.copy_to_host().to_vector(),
                       swaps = dswaps.copy_to_host().to_vector(), g = dg.copy_to_host().to_vector();
  std::vector<uint32_t> bits = dbits.copy_to_host().to_vector();
  std::vector<float> floats = dfloats.copy_to_host().to_vector();
  std::vector<uint64_t> gu = dgu.copy_to_host().to_vector();
  for (int grp = 0; grp < groups; ++grp) {
    CHECK(ints[grp * 5 + 0] == block * (block - 1) / 2 - block);
    CHECK(ints[grp * 5 + 1] == -7);
    CHECK(ints[grp * 5 + 2] == 3 * (block - 1));
    CHECK(bits[grp * 3 + 0] == 0u);
    CHECK(bits[grp * 3 + 1] == 0xffffffffu);
    CHECK(bits[grp * 3 + 2] == 0u);  // 0 ^ 1 ^ ... ^ 63
    CHECK(floats[grp * 3 + 0] == 32.0f);
    CHECK(floats[grp * 3 + 1] == 0.0f);
    CHECK(floats[grp * 3 + 2] == 63.0f);
    int winners = 0;
    for (int l = 0; l < block; ++l) winners += olds[grp * block + l] == 0;
    CHECK(winners == 1);  // the others saw the winner's value
    CHECK(ints[grp * 5 + 3] >= 1);
    CHECK(ints[grp * 5 + 3] <= block);
    // Each exchange returned the previous holder: the returned values and the final one are -1
    // and every local id, each exactly once.
    std::vector<int32_t> seen(swaps.begin() + grp * block, swaps.begin() + (grp + 1) * block);
    seen.push_back(ints[grp * 5 + 4]);
    std::sort(seen.begin(), seen.end());
    for (int i = 0; i <= block; ++i) REQUIRE(seen[i] == i - 1);
  }
  CHECK(g[0] == -(n * (n - 1) / 2));
  CHECK(g[1] >= 0);
  CHECK(g[1] < n);
  CHECK(g[2] >= 1);  // global id 0 swaps 0 -> 1; id 1 may then swap 1 -> 2, and so on
  CHECK(gu[0] == 0);
  CHECK(gu[1] == ~0ull);
  uint64_t x = 0;
  for (int i = 0; i < n; ++i) x ^= uint64_t(i) * 0x9e3779b97f4a7c15ull;
  CHECK(gu[2] == x);
}

// --- Every op on the device under test against the reference interpreter -------------------------

namespace {

// Requires the device's results to equal the interpreter's (see ops::compare_rows).
template <class T, class In>
void require_bits(const std::string& what, const std::vector<T>& device, const std::vector<T>& spec, int64_t columns,
                  const std::vector<std::string>& row_names, const std::vector<In>& x, bool pairs) {
  std::string report = testing::ops::compare_rows(device, spec, columns, row_names, x, pairs, "device");
  if (!report.empty()) FAIL(what << ": " << report);
  SUCCEED(what << " agrees with the reference interpreter");
}

template <class T>
void ops_against_interpreter(const std::string& name, const std::vector<testing::ops::Row>& rows,
                             const std::vector<std::string>& row_names) {
  using namespace testing::ops;
  constexpr ir::Type t = InterpretArgument::type_of<T>();
  auto k = std::make_shared<ir::Kernel>(pairwise_kernel(name, t, t, rows));
  std::vector<T> v = table<T>();
  int64_t n = static_cast<int64_t>(v.size()), r = static_cast<int64_t>(rows.size());
  std::vector<T> spec(static_cast<size_t>(r * n * n), T(0));
  std::vector<InterpretArgument> args{InterpretArgument::array(v), InterpretArgument::array(v),
                                      InterpretArgument::array(spec, {r, n * n})};
  interpret(*k, {blocks(n * n, 64)}, {64}, args);
  Kernel dk{std::shared_ptr<const ir::Kernel>(k)};
  auto dx = to_device(v), dy = to_device(v);
  auto dout = device_array<T>({r, n * n});
  dk[{blocks(n * n, 64), 64}](dx, dy, dout);
  require_bits(name, dout.copy_to_host().to_vector(), spec, n * n, row_names, v, true);
}

template <class From>
void casts_against_interpreter() {
  using namespace testing::ops;
  constexpr ir::Type from = InterpretArgument::type_of<From>();
  auto k = std::make_shared<ir::Kernel>(cast_kernel(from));
  std::vector<From> v = table<From>();
  int64_t n = static_cast<int64_t>(v.size());
  std::vector<int32_t> i32(3 * n);
  std::vector<int64_t> i64(3 * n);
  std::vector<uint32_t> u32(3 * n);
  std::vector<uint64_t> u64(3 * n);
  std::vector<float> f32(3 * n);
  std::vector<double> f64(3 * n);
  std::vector<InterpretArgument> args{InterpretArgument::array(v),          InterpretArgument::array(i32, {3, n}),
                                      InterpretArgument::array(i64, {3, n}), InterpretArgument::array(u32, {3, n}),
                                      InterpretArgument::array(u64, {3, n}), InterpretArgument::array(f32, {3, n}),
                                      InterpretArgument::array(f64, {3, n})};
  interpret(*k, {blocks(n, 64)}, {64}, args);
  Kernel dk{std::shared_ptr<const ir::Kernel>(k)};
  auto dx = to_device(v);
  auto d32 = device_array<int32_t>({3, n});
  auto d64 = device_array<int64_t>({3, n});
  auto du32 = device_array<uint32_t>({3, n});
  auto du64 = device_array<uint64_t>({3, n});
  auto df32 = device_array<float>({3, n});
  auto df64 = device_array<double>({3, n});
  dk[{blocks(n, 64), 64}](dx, d32, d64, du32, du64, df32, df64);
  std::string base = "cast from " + tn(from);
  auto names = [](const char* to) {
    return std::vector<std::string>{fmt::format("cast to {}", to), fmt::format("cast (x != 0) : i1 to {}", to),
                                    "select (x != 0), 1, 0"};
  };
  require_bits(base, d32.copy_to_host().to_vector(), i32, n, names("i32"), v, false);
  require_bits(base, d64.copy_to_host().to_vector(), i64, n, names("i64"), v, false);
  require_bits(base, du32.copy_to_host().to_vector(), u32, n, names("u32"), v, false);
  require_bits(base, du64.copy_to_host().to_vector(), u64, n, names("u64"), v, false);
  require_bits(base, df32.copy_to_host().to_vector(), f32, n, names("f32"), v, false);
  require_bits(base, df64.copy_to_host().to_vector(), f64, n, names("f64"), v, false);
}

}  // namespace

TEST_CASE("every integer op over a table of awkward values matches the reference interpreter bit for bit") {
  using namespace testing::ops;
  SECTION("i32") { ops_against_interpreter<int32_t>("int_ops_i32", integer_rows(ir::Type::i32), testing::ops::integer_row_names()); }
  SECTION("u32") { ops_against_interpreter<uint32_t>("int_ops_u32", integer_rows(ir::Type::u32), testing::ops::integer_row_names()); }
  SECTION("i64") { ops_against_interpreter<int64_t>("int_ops_i64", integer_rows(ir::Type::i64), testing::ops::integer_row_names()); }
  SECTION("u64") { ops_against_interpreter<uint64_t>("int_ops_u64", integer_rows(ir::Type::u64), testing::ops::integer_row_names()); }
}

TEST_CASE("float arithmetic, compares and correctly rounded math match the reference interpreter bit for bit") {
  using namespace testing::ops;
  SECTION("f32") { ops_against_interpreter<float>("float_ops_f32", float_rows(ir::Type::f32), testing::ops::float_row_names()); }
  SECTION("f64") { ops_against_interpreter<double>("float_ops_f64", float_rows(ir::Type::f64), testing::ops::float_row_names()); }
}

TEST_CASE("every conversion matches the reference interpreter bit for bit") {
  SECTION("from i32") { casts_against_interpreter<int32_t>(); }
  SECTION("from u32") { casts_against_interpreter<uint32_t>(); }
  SECTION("from i64") { casts_against_interpreter<int64_t>(); }
  SECTION("from u64") { casts_against_interpreter<uint64_t>(); }
  SECTION("from f32") { casts_against_interpreter<float>(); }
  SECTION("from f64") { casts_against_interpreter<double>(); }
}

TEST_CASE("For loops count the same as the reference interpreter, signed and unsigned, in both directions") {
  // Iterations of For(begin, end, step) with run-time bounds and steps (capped at 1000).
  Kernel k = kernel("for_count_i32", [](Array<int32_t> b, Array<int32_t> e, Array<int32_t> s, Array<int32_t> count) {
    Int t = global_id(0);
    Var<int32_t> n = 0;
    For(b(t), e(t), s(t), [&](Int) {
      n += 1;
      If(n > 1000, [&] { Break(); });
    });
    count(t) = n;
  });
  Kernel ku = kernel("for_count_u32", [](Array<uint32_t> b, Array<uint32_t> e, Array<uint32_t> s, Array<int32_t> count) {
    Int t = global_id(0);
    Var<int32_t> n = 0;
    For(b(t), e(t), s(t), [&](UInt) {
      n += 1;
      If(n > 1000, [&] { Break(); });
    });
    count(t) = n;
  });
  auto check = [](const Kernel& kernel, auto b, auto e, auto s) {
    int64_t n = static_cast<int64_t>(b.size());
    std::vector<int32_t> spec(n);
    std::vector<InterpretArgument> args{InterpretArgument::array(b), InterpretArgument::array(e), InterpretArgument::array(s),
                                        InterpretArgument::array(spec)};
    interpret(kernel.ir(), {1}, {n}, args);
    auto db = to_device(b), de = to_device(e), ds = to_device(s);
    auto dc = device_array<int32_t>({n});
    kernel[{1, static_cast<uint32_t>(n)}](db, de, ds, dc);
    CHECK(dc.copy_to_host().to_vector() == spec);
  };
  const int32_t max = std::numeric_limits<int32_t>::max(), min = std::numeric_limits<int32_t>::min();
  check(k, std::vector<int32_t>{max - 5, min + 5, 0, max - 1, 10, 0, 5, -3, min, max},
        std::vector<int32_t>{max, min, 10, max, 0, 0, 5, 3, max, min}, std::vector<int32_t>{4, -4, 3, 1, -3, 1, -1, 2, max, min});
  const uint32_t umax = std::numeric_limits<uint32_t>::max();
  check(ku, std::vector<uint32_t>{umax - 5, 0, 10, 10, 7, 0, umax}, std::vector<uint32_t>{umax, 10, 0, 0, 0, umax, 0},
        std::vector<uint32_t>{4, 3, umax, umax - 2, 0x80000000u, 0x7fffffffu, 0x80000001u});
}

namespace {
template <class F>
void with_type(ir::Type t, F&& f) {
  const bool array_type = ir::with_cpp_type(t, [&](auto zero) {
    if constexpr (std::is_same_v<decltype(zero), bool>) FAIL("no arrays of bool");
    else f(zero);
  });
  if (!array_type) FAIL("no arrays of " << ir::type_name(t));
}
}  // namespace

// Every kernel of the fuzz corpus that runs in bounds on the interpreter with generic arguments
// (the same as the unit test's) runs bit-identically on the device under test (any NaN equals
// any NaN). Left out: order-dependent atomics, wavebarriers (wave-size dependent), approximate
// math functions, F-layout arrays, and kernels beyond the device's limits.
TEST_CASE("every fuzz-corpus kernel that fits generic arguments matches the reference interpreter") {
  namespace fs = std::filesystem;
  fs::path corpus = fs::path(__FILE__).parent_path().parent_path() / "fuzz" / "corpus";
  REQUIRE(fs::is_directory(corpus));
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(corpus)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int compared = 0;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<ir::Kernel> kernels;
    try {
      kernels = ir::parse_all(text, file.filename().string());
    } catch (const Error&) {
      continue;
    }
    for (ir::Kernel& parsed : kernels) {
      auto k = std::make_shared<ir::Kernel>(std::move(parsed));
      k->index_definitions();
      bool order_dependent = false;
      ir::walk(k->body, [&](const ir::Op& op) {
        // A wavebarrier is a group barrier in the interpreter, a wave's on devices: data shared
        // across waves through one (the corpus's wavesum assumes wave64) races on wave32.
        if (op.kind == ir::OpKind::wavebarrier) order_dependent = true;
        // Approximate math (exp, log, sin, ..., pow) is within bounds, not bit-exact, on AMDGPU.
        if (op.kind == ir::OpKind::math) {
          ir::MathFn f = op.math_fn();
          if (f != ir::MathFn::sqrt && f != ir::MathFn::rsqrt && f != ir::MathFn::fma && f != ir::MathFn::fabs &&
              f != ir::MathFn::floor && f != ir::MathFn::ceil && f != ir::MathFn::fmin && f != ir::MathFn::fmax)
            order_dependent = true;
        }
        if (op.kind != ir::OpKind::atomic) return;
        ir::AtomicOp a = op.atomic_op();
        if ((ir::is_float(k->memories[op.memory()].element) && a == ir::AtomicOp::add) || a == ir::AtomicOp::exchange ||
            a == ir::AtomicOp::compare_exchange || op.result)
          order_dependent = true;
      });
      // Two work-groups run (below): a global store whose indices do not depend on the group
      // (on group_id or global_id, through any chain of ops) writes the same elements from both,
      // and when the array is also read, or the value depends on the group, the result depends on
      // which group ran first. The interpreter runs them in order, the CPU device at once on two
      // threads (big_lds: arg0(t) = first(t) + second(0, t) after loading arg0(t) into both).
      {
        std::set<ir::ValueId> by_group;
        std::set<ir::MemoryId> read;
        ir::walk(k->body, [&](const ir::Op& op) {
          bool varies = op.kind == ir::OpKind::workitem &&
                        (op.workitem() == ir::WorkItem::group_id || op.workitem() == ir::WorkItem::global_id);
          for (ir::ValueId v : op.operands) varies = varies || by_group.count(v);
          if (varies && op.result) by_group.insert(op.result);
          if (op.kind == ir::OpKind::load || op.kind == ir::OpKind::atomic) read.insert(op.memory());
        });
        ir::walk(k->body, [&](const ir::Op& op) {
          if (op.kind != ir::OpKind::store || k->memories[op.memory()].space != ir::MemorySpace::global) return;
          const size_t indices = std::min<size_t>(k->memories[op.memory()].rank, op.operands.size());
          bool index_varies = false, value_varies = false;
          for (size_t i = 0; i < op.operands.size(); ++i)
            (i < indices ? index_varies : value_varies) |= by_group.count(op.operands[i]) > 0;
          if (!index_varies && (read.count(op.memory()) || value_varies)) order_dependent = true;
        });
      }
      bool f_layout = false;
      for (const ir::Memory& m : k->memories) f_layout |= m.space == ir::MemorySpace::global && m.layout == ir::Layout::F;
      if (order_dependent || f_layout) continue;
      // Generic arguments: host buffers for the interpreter, copies on the device.
      std::vector<std::vector<std::byte>> host, device_out;
      std::vector<InterpretArgument> iargs;
      std::vector<DeviceArrayBase> arrays;
      std::vector<runtime::LaunchArgument> dargs;
      arrays.reserve(k->params.size());
      host.reserve(k->params.size());
      for (const ir::Param& p : k->params) {
        if (p.kind == ir::Param::Kind::scalar) {
          InterpretArgument a;
          runtime::LaunchArgument d;
          a.type = d.scalar_type = p.type;
          double f = 1.5;
          float f32 = 1.5f;
          uint64_t three = 3, one = 1;
          const void* src = p.type == ir::Type::f64 ? static_cast<const void*>(&f)
                            : p.type == ir::Type::f32 ? static_cast<const void*>(&f32)
                            : p.type == ir::Type::i1  ? static_cast<const void*>(&one)
                                                      : static_cast<const void*>(&three);
          std::memcpy(&a.bits, src, ir::byte_size(p.type));
          std::memcpy(d.bits, src, ir::byte_size(p.type));
          iargs.push_back(a);
          dargs.push_back(d);
          continue;
        }
        const ir::Memory& m = k->memories[p.memory];
        std::vector<int64_t> shape = m.rank == 1 ? std::vector<int64_t>{512}
                                     : m.rank == 2 ? std::vector<int64_t>{32, 24}
                                                   : std::vector<int64_t>{8, 6, 10};
        int64_t count = 1;
        for (int64_t e : shape) count *= e;
        size_t size = ir::byte_size(m.element);
        std::vector<std::byte> bytes(static_cast<size_t>(count) * size);
        for (int64_t i = 0; i < count; ++i) {
          double fv = (i % 13) * 0.25 - 1.0;
          float ff = static_cast<float>(fv);
          uint64_t iv = static_cast<uint64_t>(i % 5);
          const void* src = m.element == ir::Type::f64 ? static_cast<const void*>(&fv)
                            : m.element == ir::Type::f32 ? static_cast<const void*>(&ff)
                                                         : static_cast<const void*>(&iv);
          std::memcpy(&bytes[static_cast<size_t>(i) * size], src, size);
        }
        InterpretArgument a;
        a.kind = InterpretArgument::Kind::array;
        a.type = m.element;
        a.size = count;
        a.shape = shape;
        if (m.layout == ir::Layout::strided) {
          a.strides.assign(m.rank, 1);
          for (int d = static_cast<int>(m.rank) - 2; d >= 0; --d) a.strides[d] = a.strides[d + 1] * shape[d + 1];
        }
        with_type(m.element, [&](auto zero) {
          using T = decltype(zero);
          arrays.push_back(to_device(std::span<const T>(reinterpret_cast<const T*>(bytes.data()), static_cast<size_t>(count)), shape));
        });
        host.push_back(std::move(bytes));
        a.data = host.back().data();
        iargs.push_back(std::move(a));
        runtime::LaunchArgument d;
        d.array = &arrays.back();
        dargs.push_back(d);
      }
      // 1-D: a kernel written for 1-D launches races with itself on a 2-D one (y(i) += ...).
      Dim3 grid{2}, block{std::min<int64_t>(k->max_block_size, 64)};
      try {
        interpret(*k, grid, block, iargs, {.max_operations = 20'000'000});
      } catch (const LaunchError&) {
        continue;  // the generic arguments do not fit this kernel
      }
      Kernel dk{std::shared_ptr<const ir::Kernel>(k)};
      try {
        runtime::launch(dk, LaunchConfig(grid, block), dargs);
      } catch (const CompileError&) {
        continue;  // beyond this device's limits (LDS, registers)
      }
      INFO("kernel '" << k->name << "' from " << file.filename().string());
      size_t h = 0;
      for (const ir::Param& p : k->params) {
        if (p.kind == ir::Param::Kind::scalar) continue;
        const ir::Memory& m = k->memories[p.memory];
        std::vector<std::byte> got(host[h].size());
        with_type(m.element, [&](auto zero) {
          using T = decltype(zero);
          DeviceArray<T>(arrays[h]).copy_to_host(std::span<T>(reinterpret_cast<T*>(got.data()), got.size() / sizeof(T)));
        });
        size_t size = ir::byte_size(m.element);
        for (size_t e = 0; e * size < got.size(); ++e) {
          const std::byte* x = &got[e * size];
          const std::byte* y = &host[h][e * size];
          if (std::memcmp(x, y, size) == 0) continue;
          bool nan = false;
          std::string values;
          if (m.element == ir::Type::f32) {
            float a, b;
            std::memcpy(&a, x, 4);
            std::memcpy(&b, y, 4);
            nan = std::isnan(a) && std::isnan(b);
            values = fmt::format("device {}, interpreter {}", testing::ops::show(a), testing::ops::show(b));
          } else if (m.element == ir::Type::f64) {
            double a, b;
            std::memcpy(&a, x, 8);
            std::memcpy(&b, y, 8);
            nan = std::isnan(a) && std::isnan(b);
            values = fmt::format("device {}, interpreter {}", testing::ops::show(a), testing::ops::show(b));
          }
          if (!nan) FAIL("array '" << p.name << "' element " << e << " differs from the reference interpreter: " << values);
        }
        ++h;
      }
      ++compared;
    }
  }
  CHECK(compared >= 20);
  SUCCEED(compared << " corpus kernels compared");
}
