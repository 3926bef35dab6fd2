// Using rocjit inside an existing application (issue 39): device queries, work_dim(), array
// views and fill, external memory and streams, DLPack, forall. Every test runs on the device
// under test (cpu, interp, sim:<processor>, hip:N).
#include <catch2/catch.hpp>

#include <limits>
#include <numeric>

#include "e2e.hpp"

using namespace rocjit;
using Catch::Matchers::Contains;
using rocjit::testing::test_device;

// ---- device queries ------------------------------------------------------------------------

TEST_CASE("Device reports wave size, processor, compute units, shared memory, group size, memory") {
  Device d = test_device();
  // The wave size the kernels see (read back from a kernel) is what the device reports.
  CHECK(d.wave_size() == static_cast<unsigned>(rocjit::testing::device_wave_size()));
  CHECK(d.processor() == d.target());
  CHECK(d.compute_units() >= 1);
  CHECK(d.total_memory() > 0);
  CHECK(d.free_memory() <= d.total_memory());
  const std::string id = d.id();
  if (id == "cpu" || id == "interp") {
    CHECK(d.processor() == "host");
    CHECK(d.wave_size() == host_wave_size);
    CHECK(d.shared_memory_per_group() == host_shared_bytes_limit);
    CHECK(d.max_group_size() == 1024);
    CHECK_FALSE(d.is_simulator());
  } else {
    CHECK(d.processor().rfind("gfx", 0) == 0);
    CHECK(d.shared_memory_per_group() == amdgpu_lds_limit(d.processor()));
    CHECK(d.max_group_size() == 1024);
    CHECK(d.wave_size() == (d.processor().rfind("gfx9", 0) == 0 ? 64u : 32u));
    CHECK(d.is_simulator() == (id.rfind("sim:", 0) == 0));
    if (d.is_simulator()) CHECK(d.processor() == id.substr(4));
  }
  // The CPU device answers the same questions wherever the tests run.
  Device cpu = get_device("cpu");
  CHECK(cpu.wave_size() == 64);
  CHECK(cpu.processor() == "host");
  CHECK(cpu.compute_units() == host_thread_count());
  CHECK_FALSE(cpu.is_simulator());
}

TEST_CASE("Device::max_group_size and shared_memory_per_group are the launch limits") {
  using namespace rocjit::dsl;
  Device d = test_device();
  Kernel k = kernel("group_count", [](Array<int32_t> out) {
    auto buf = shared::dynamic<int32_t>();
    If(global_id(0) == 0, [&] { out(0) = local_size(0) + buf.shape(0); });
  });
  auto out = device_array<int32_t>({1});
  const int64_t n = d.max_group_size();
  k[{{1}, {n}, {}, 64}](out);
  CHECK(out.copy_to_host()(0) == n + 16);
  CHECK_THROWS_AS((k[{{1}, {n + 1}}](out)), LaunchError);
  CHECK_THROWS_WITH((k[{{1}, {1}, {}, d.shared_memory_per_group() + 4}](out)),
                    Contains(std::to_string(d.shared_memory_per_group()) + " bytes"));
}

// ---- work_dim ------------------------------------------------------------------------------

TEST_CASE("work_dim() is the number of grid dimensions on every device") {
  using namespace rocjit::dsl;
  // Every work-item writes its work_dim() to its own element, so all of them are checked.
  Kernel k = kernel("work_dim", [](Array<int32_t, 3> out) {
    Int x = global_id(0), y = global_id(1), z = global_id(2);
    If(x < out.shape(2) && y < out.shape(1) && z < out.shape(0), [&] { out(z, y, x) = work_dim(); });
  });
  struct Case {
    Dim3 grid, block;
    int expected;
  };
  const Case cases[] = {
      {{3}, {4}, 1},          {{2, 1}, {8, 1}, 1},  // a y extent of 1 is a 1-D launch
      {{2, 3}, {4, 2}, 2},    {{1, 2}, {1, 1}, 2},   {{1, 1, 2}, {2, 2, 1}, 3},
      {{2, 2, 2}, {2, 1, 3}, 3},
  };
  for (const Case& c : cases) {
    const int64_t gx = c.grid.x * c.block.x, gy = c.grid.y * c.block.y, gz = c.grid.z * c.block.z;
    auto out = device_array<int32_t>({gz, gy, gx});
    k[{c.grid, c.block}](out);
    HostArray<int32_t> h = out.copy_to_host();
    INFO("grid " << c.grid.x << "x" << c.grid.y << "x" << c.grid.z << ", block " << c.block.x << "x" << c.block.y
                 << "x" << c.block.z);
    for (int32_t v : h.to_vector()) REQUIRE(v == c.expected);
  }
}

TEST_CASE("work_dim() is uniform: it may govern a barrier") {
  using namespace rocjit::dsl;
  Kernel k = kernel("work_dim_barrier", [](Array<int32_t> out) {
    auto s = shared::array<int32_t>({64});
    Int t = local_id(0);
    s(t) = t;
    If(work_dim() == 1, [&] {
      barrier(CLK_LOCAL_MEM_FENCE);
      out(global_id(0)) = s(63 - t);
    });
  });
  auto out = device_array<int32_t>({128});
  k[{{2}, {64}}](out);
  HostArray<int32_t> h = out.copy_to_host();
  for (int i = 0; i < 128; ++i) REQUIRE(h(i) == 63 - i % 64);
}

// ---- array views and fill ------------------------------------------------------------------

namespace {
// A 4x6 C-order float array holding 10 * row + column.
DeviceArray<float> grid_4x6() {
  std::vector<float> v(24);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) v[r * 6 + c] = static_cast<float>(10 * r + c);
  return to_device(v, {4, 6});
}
}  // namespace

TEST_CASE("slice gives strided views with offsets and steps that copy_to_host reads") {
  DeviceArray<float> a = grid_4x6();
  DeviceArray<float> v = a.slice({{1, 4}, {0, Slice::end, 2}});  // a[1:4, ::2]
  CHECK(v.shape() == Shape{3, 3});
  CHECK(v.strides() == std::vector<int64_t>{24, 8});
  CHECK_FALSE(v.is_c_contiguous());
  CHECK(v.device_pointer() == static_cast<char*>(a.device_pointer()) + 24);
  HostArray<float> h = v.copy_to_host();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) CHECK(h(r, c) == static_cast<float>(10 * (r + 1) + 2 * c));

  // A row is contiguous, a column is not; Slice::at drops the dimension.
  DeviceArray<float> row = a.slice({Slice::at(2)});
  CHECK(row.shape() == Shape{6});
  CHECK(row.is_c_contiguous());
  CHECK(row.copy_to_host().to_vector() == std::vector<float>{20, 21, 22, 23, 24, 25});
  DeviceArray<float> col = a.slice({Slice::all(), Slice::at(3)});
  CHECK(col.shape() == Shape{4});
  CHECK(col.strides() == std::vector<int64_t>{24});
  CHECK(col.copy_to_host().to_vector() == std::vector<float>{3, 13, 23, 33});
  std::vector<float> into(4);
  col.copy_to_host(std::span<float>(into));
  CHECK(into == std::vector<float>{3, 13, 23, 33});

  // Views of views, a step beyond the extent, an empty slice, three dimensions.
  DeviceArray<float> vv = v.slice({{1}, {1, 3, 5}});
  CHECK(vv.shape() == Shape{2, 1});
  CHECK(vv.copy_to_host().to_vector() == std::vector<float>{22, 32});
  CHECK(a.slice({{2, 2}}).size() == 0);
  CHECK(a.slice({{2, 2}}).copy_to_host().size() == 0);
  std::vector<int32_t> cube(2 * 3 * 4);
  std::iota(cube.begin(), cube.end(), 0);
  DeviceArray<int32_t> c3 = to_device(cube, {2, 3, 4});
  DeviceArray<int32_t> s3 = c3.slice({Slice::all(), {1, 3}, {1, 4, 2}});
  CHECK(s3.shape() == Shape{2, 2, 2});
  CHECK(s3.copy_to_host().to_vector() == std::vector<int32_t>{5, 7, 9, 11, 17, 19, 21, 23});
}

TEST_CASE("launches take views as strided arrays and write through them") {
  using namespace rocjit::dsl;
  Kernel scale = kernel("scale_view", [](Array<float, 2, ir::Layout::strided> v, Float f) {
    Int i = global_id(1), j = global_id(0);
    If(i < v.shape(0) && j < v.shape(1), [&] { v(i, j) = v(i, j) * f; });
  });
  DeviceArray<float> a = grid_4x6();
  DeviceArray<float> v = a.slice({{1, 4}, {1, Slice::end, 2}});  // columns 1, 3, 5 of rows 1..3
  scale[{{1, 1}, {4, 4}}](v, 100.0f);
  HostArray<float> h = a.copy_to_host();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) {
      const float base = static_cast<float>(10 * r + c);
      CHECK(h(r, c) == (r >= 1 && c % 2 == 1 ? base * 100 : base));
    }
  // A contiguous view (rows 2..3) also passes as a C-order array, at its offset.
  Kernel add_one = kernel("add_one_rows", [](Array<float, 2> v) {
    Int i = global_id(1), j = global_id(0);
    If(i < v.shape(0) && j < v.shape(1), [&] { v(i, j) += 1.0f; });
  });
  add_one[{{1, 1}, {8, 8}}](a.slice({{2, 4}}));
  HostArray<float> h2 = a.copy_to_host();
  CHECK(h2(1, 0) == 10.0f);
  CHECK(h2(2, 0) == 21.0f);
  CHECK(h2(3, 4) == 35.0f);
  // A strided view refused by a C-order parameter, with what to write instead.
  CHECK_THROWS_WITH((add_one[{{1, 1}, {8, 8}}](v)),
                    Contains("must be C-contiguous") && Contains("ir::Layout::strided"));
}

TEST_CASE("copies into views leave the elements between them untouched") {
  DeviceArray<float> a = grid_4x6();
  DeviceArray<float> col = a.slice({Slice::all(), Slice::at(4)});
  col.copy_to_device(std::vector<float>{-1, -2, -3, -4});
  DeviceArray<float> block = a.slice({{0, 4, 3}, {0, 2}});  // rows 0 and 3, columns 0..1
  HostArray<float> src({2, 2});
  src(0, 0) = 100, src(0, 1) = 101, src(1, 0) = 102, src(1, 1) = 103;
  block.copy_to_device(src);
  HostArray<float> h = a.copy_to_host();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) {
      float want = static_cast<float>(10 * r + c);
      if (c == 4) want = static_cast<float>(-1 - r);
      if ((r == 0 || r == 3) && c < 2) want = 100.0f + (r == 3 ? 2 : 0) + c;
      CHECK(h(r, c) == want);
    }
  // Device-to-device copies between any layouts of one shape: a view, an F-order array, a C one.
  DeviceArray<float> f = device_array<float>({4, 2}, Order::F);
  f.copy_to_device(a.slice({Slice::all(), {4, 6}}));
  HostArray<float> hf = f.copy_to_host();
  for (int r = 0; r < 4; ++r) {
    CHECK(hf(r, 0) == static_cast<float>(-1 - r));
    CHECK(hf(r, 1) == static_cast<float>(10 * r + 5));
  }
  DeviceArray<float> back = device_array<float>({4, 2});
  back.copy_to_device(f);
  CHECK(back.copy_to_host()(3, 1) == 35.0f);
  // On a stream: the copy-out is ordered after the copy-in.
  Stream s = stream();
  const std::vector<float> values{7, 8, 9, 10};  // alive until the stream is synchronised
  col.copy_to_device(values, s);
  HostArray<float> out = col.copy_to_host(s);
  s.synchronize();
  CHECK(out.to_vector() == std::vector<float>{7, 8, 9, 10});
}

TEST_CASE("fill and zero set arrays and views on every device without a user kernel") {
  DeviceArray<float> a = grid_4x6();
  a.slice({{1, 3}, {0, Slice::end, 3}}).fill(-5.0f);
  HostArray<float> h = a.copy_to_host();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c)
      CHECK(h(r, c) == ((r == 1 || r == 2) && c % 3 == 0 ? -5.0f : static_cast<float>(10 * r + c)));
  a.zero();
  for (float x : a.copy_to_host().to_vector()) CHECK(x == 0.0f);

  DeviceArray<double> d = device_array<double>({3, 5, 7}, Order::F);
  d.fill(2.5);
  for (double x : d.copy_to_host().to_vector()) CHECK(x == 2.5);
  DeviceArray<int8_t> i8 = device_array<int8_t>({1000});
  i8.fill(-3);
  for (int8_t x : i8.copy_to_host().to_vector()) CHECK(x == -3);
  DeviceArray<half> h16 = device_array<half>({70});
  h16.fill(half(1.5f));
  for (half x : h16.copy_to_host().to_vector()) CHECK(static_cast<float>(x) == 1.5f);
  DeviceArray<uint64_t> big = device_array<uint64_t>({300000});  // more elements than one grid covers
  Stream s = stream();
  big.fill(0x0123456789abcdefull, s);
  big.slice({{1, Slice::end, 1000}}).zero(s);
  HostArray<uint64_t> hb = big.copy_to_host(s);
  s.synchronize();
  for (int64_t i = 0; i < 300000; i += 997)
    REQUIRE(hb(i) == (i % 1000 == 1 ? 0ull : 0x0123456789abcdefull));
  CHECK(hb(299001) == 0ull);
  CHECK(hb(299999) == 0x0123456789abcdefull);
  DeviceArray<float> empty = device_array<float>({0});
  empty.fill(1.0f);
  CHECK(empty.size() == 0);
}

TEST_CASE("out-of-range slices are MemoryErrors naming the dimension and the caller's line") {
  DeviceArray<float> a = grid_4x6();
  CHECK_THROWS_AS(a.slice({{0, 5}}), MemoryError);
  CHECK_THROWS_WITH(a.slice({{0, 5}}),
                    Contains("adoption_tests.cpp:") && Contains("dimension 0") && Contains("stop 5 is outside 0 .. 4"));
  CHECK_THROWS_WITH(a.slice({{}, {7}}), Contains("dimension 1") && Contains("start 7 is outside 0 .. 6"));
  CHECK_THROWS_WITH(a.slice({{3, 1}}), Contains("stop 1 is outside 3 .. 4"));
  CHECK_THROWS_WITH(a.slice({{-1, 2}}), Contains("start -1 is outside 0 .. 4"));
  CHECK_THROWS_WITH(a.slice({{0, 4, 0}}), Contains("step 0 is not positive"));
  CHECK_THROWS_WITH(a.slice({{0, 4, -1}}), Contains("step -1 is not positive"));
  CHECK_THROWS_WITH(a.slice({{}, {}, {}}), Contains("3 slices for an array of 2 dimension(s)"));
  CHECK_THROWS_WITH(a.slice({Slice::at(4)}), Contains("index 4 is outside 0 .. 3"));
  CHECK_THROWS_WITH(a.slice({Slice::at(std::numeric_limits<int64_t>::max())}), Contains("is outside 0 .. 3"));
  CHECK_THROWS_WITH(a.slice({Slice::at(1), Slice::at(1)}), Contains("drops every dimension"));
  CHECK_THROWS_WITH(DeviceArray<float>().slice({{}}), Contains("empty"));
  // Views that would need a copy to reshape are refused as before.
  CHECK_THROWS_AS(a.slice({{}, {0, 6, 2}}).ravel(), MemoryError);
  // A copy whose shape differs from the view's copies nothing.
  DeviceArray<float> v = a.slice({{}, {0, 6, 2}});
  CHECK_THROWS_WITH(v.copy_to_device(std::vector<float>(11)), Contains("nothing was copied"));
  CHECK(a.copy_to_host()(3, 5) == 35.0f);
}

// ---- forall ------------------------------------------------------------------------------

TEST_CASE("forall(n) picks the grid and block of a 1-D launch for the device") {
  using namespace rocjit::dsl;
  Kernel k = kernel("forall_square", [](Array<int32_t> out, Int n) {
    Int i = global_id(0);
    If(i < n, [&] { out(i) = i * i; });
  });
  const int64_t wave = test_device().wave_size();
  for (int64_t n : {1, 63, 64, 65, 1000, 70000}) {
    auto out = device_array<int32_t>({n});
    out.fill(-1);
    k.forall(n)(out, static_cast<int32_t>(n));
    HostArray<int32_t> h = out.copy_to_host();
    INFO("n = " << n);
    for (int64_t i = 0; i < n; i += 1 + n / 100) REQUIRE(h(i) == static_cast<int32_t>(i * i));
    REQUIRE(h(n - 1) == static_cast<int32_t>((n - 1) * (n - 1)));
    LaunchConfig c = runtime::forall_config(k, n, {});
    CHECK(c.block.x == std::min<int64_t>(256, test_device().max_group_size()) / wave * wave);
    CHECK(c.grid.x == (n + c.block.x - 1) / c.block.x);
    CHECK(c.grid.y == 1);
    CHECK(c.block.y == 1);
  }
  // The kernel's declared maximum bounds the block; a multiple of the wave size when possible.
  Kernel small = kernel("forall_small", [](Array<int32_t> out) {
    Int i = global_id(0);
    If(i < out.shape(0), [&] { out(i) = local_size(0); });
  }, {.max_block_size = 100});
  auto out = device_array<int32_t>({500});
  small.forall(500)(out);
  const int64_t expect = 100 >= wave ? 100 / wave * wave : 100;
  for (int32_t v : out.copy_to_host().to_vector()) REQUIRE(v == expect);
  // On a stream, and nothing at all for n = 0.
  Stream s = stream();
  auto out2 = device_array<int32_t>({10});
  out2.zero(s);
  k.forall(10, s)(out2, 10);
  HostArray<int32_t> h2 = out2.copy_to_host(s);
  s.synchronize();
  CHECK(h2(9) == 81);
  auto untouched = device_array<int32_t>({1});
  untouched.fill(7);
  k.forall(0)(untouched, 0);
  CHECK(untouched.copy_to_host()(0) == 7);
  CHECK_THROWS_AS(k.forall(-1), LaunchError);
  CHECK_THROWS_WITH(k.forall(-1), Contains("forall_square") && Contains("forall(-1)"));
  CHECK_THROWS_WITH(k.forall(int64_t(1) << 40), Contains("more than 2^31 - 1 work-items"));
}
