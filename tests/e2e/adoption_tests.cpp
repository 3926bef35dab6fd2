// Using rocjit inside an existing application (issue 39): device queries, work_dim(), array
// views and fill, external memory and streams, DLPack, forall. Every test runs on the device
// under test (cpu, interp, sim:<processor>, hip:N).
#include <catch2/catch.hpp>

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
