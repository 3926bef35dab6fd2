// The CPU device's tiered compilation: a shape's first launch at O1 (or O3 from the kernel
// cache), O3 compiled in the background from its second launch on.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "rocjit/rocjit.hpp"
#include "scoped_settings.hpp"
#include "temporary_cache.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

namespace {

// A kernel that writes i * salt into out[i]. Each test runs with an empty kernel cache of its
// own (TemporaryCache).
Kernel salted(int salt) {
  return kernel(
      "salted", [salt](Array<int32_t> out) {
        Int i = global_id(0);
        If(i < out.shape(0), [&] { out(i) = i * salt; });
      },
      {.max_block_size = 64});
}

// Launches `k` over n elements (64 per group) on `cpu` and checks every element.
void launch_and_check(const Kernel& k, const Device& cpu, int n, int salt) {
  Stream s = stream(cpu);
  auto out = device_array<int32_t>({n}, Order::C, cpu);
  k[LaunchConfig((n + 63) / 64, 64, s)](out);
  s.synchronize();
  std::vector<int32_t> h = out.copy_to_host().to_vector();
  for (int i = 0; i < n; ++i) REQUIRE(h[i] == i * salt);
}

// Whether the O3 kernel for block 64 is in the kernel cache (nothing is compiled).
bool o3_cached(const Kernel& k) {
  CompileOptions o;
  o.block = Dim3(64);
  o.cached_only = true;
  return static_cast<bool>(compile(k, Target::host(), o).host);
}

}  // namespace

TEST_CASE("the CPU device runs a shape's first launch at O1 and tiers up to O3 from its second") {
  rocjit::testing::TemporaryCache cache;
  const int salt = 3;
  Kernel k = salted(salt);
  Device cpu = new_cpu_device();
  const CpuTieringStats before = cpu_tiering_stats();
  REQUIRE_FALSE(o3_cached(k));

  launch_and_check(k, cpu, 1000, salt);
  CpuTieringStats now = cpu_tiering_stats();
  CHECK(now.quick_compiles == before.quick_compiles + 1);
  CHECK(now.tier_ups == before.tier_ups);  // one launch: no O3 compile asked for
  CHECK_FALSE(o3_cached(k));

  launch_and_check(k, cpu, 1000, salt);  // the second launch asks for O3 (and runs O1 or O3)
  CHECK(cpu_tiering_stats().tier_ups == before.tier_ups + 1);
  wait_for_cpu_tier_ups();
  CHECK(o3_cached(k));
  CHECK(cpu_tiering_stats().tier_ups_failed == before.tier_ups_failed);
  for (int r = 0; r < 3; ++r) launch_and_check(k, cpu, 1000, salt);  // O3 from now on
  CHECK(cpu_tiering_stats().tier_ups == before.tier_ups + 1);       // once per shape
  CHECK(cpu_tiering_stats().quick_compiles == before.quick_compiles + 1);
}

TEST_CASE("a first launch whose O3 kernel is already cached starts at O3") {
  rocjit::testing::TemporaryCache cache;
  const int salt = 5;
  Kernel k = salted(salt);
  CompileOptions o;
  o.block = Dim3(64);
  HostKernel o3 = compile(k, Target::host(), o).host;  // what an earlier process left in the cache
  CHECK(o3.opt_level() == 3);
  REQUIRE(o3_cached(k));
  const CpuTieringStats before = cpu_tiering_stats();
  Device cpu = new_cpu_device();
  launch_and_check(k, cpu, 640, salt);
  launch_and_check(k, cpu, 640, salt);
  CpuTieringStats now = cpu_tiering_stats();
  CHECK(now.cached_starts == before.cached_starts + 1);
  CHECK(now.quick_compiles == before.quick_compiles);
  CHECK(now.tier_ups == before.tier_ups);  // already final
}

TEST_CASE("a first launch of more than 4M work-items compiles at O3 at once") {
  rocjit::testing::TemporaryCache cache;
  const int salt = 7;
  Kernel k = salted(salt);
  Device cpu = new_cpu_device();
  const CpuTieringStats before = cpu_tiering_stats();
  Stream s = stream(cpu);
  auto out = device_array<int32_t>({100}, Order::C, cpu);
  k[LaunchConfig((4 << 20) / 64 + 1, 64, s)](out);  // 4M + 64 work-items; 100 of them write
  s.synchronize();
  std::vector<int32_t> h = out.copy_to_host().to_vector();
  for (int i = 0; i < 100; ++i) REQUIRE(h[i] == i * salt);
  CpuTieringStats now = cpu_tiering_stats();
  CHECK(now.quick_compiles == before.quick_compiles);
  CHECK(now.cached_starts == before.cached_starts);
  CHECK(o3_cached(k));
}

TEST_CASE("CompileOptions::cached_only compiles nothing and finds what the cache holds") {
  rocjit::testing::TemporaryCache cache;
  const int salt = 11;
  Kernel k = salted(salt);
  CHECK_FALSE(o3_cached(k));
  CompileOptions o1;
  o1.block = Dim3(64);
  o1.opt_level = 1;
  HostKernel quick = compile(k, Target::host(), o1).host;
  CHECK(quick.opt_level() == 1);
  CHECK_FALSE(o3_cached(k));  // the O1 kernel is another cache entry
  o1.cached_only = true;
  CHECK(compile(k, Target::host(), o1).host.opt_level() == 1);
  clear_memory_cache();
  CHECK(compile(k, Target::host(), o1).host.opt_level() == 1);  // from disk
  CHECK_FALSE(o3_cached(k));
}

TEST_CASE("with Settings::cpu_tiering off (or dumping) a shape's first launch compiles at O3") {
  rocjit::testing::TemporaryCache cache;
  Device cpu = new_cpu_device();
  const std::function<void(Settings&)> untiered[] = {[](Settings& s) { s.cpu_tiering = false; },
                                                      [](Settings& s) { s.dump.ir = true; s.dump_dir = "/dev/null/none"; }};
  int salt = 13;
  for (const auto& change : untiered) {
    Kernel k = salted(++salt);
    rocjit::testing::LogCapture log;  // the dump directory cannot be made: a warning, not stderr
    rocjit::testing::ScopedSettings settings(change);
    const CpuTieringStats before = cpu_tiering_stats();
    launch_and_check(k, cpu, 1000, salt);
    launch_and_check(k, cpu, 1000, salt);
    const CpuTieringStats now = cpu_tiering_stats();
    CHECK(now.quick_compiles == before.quick_compiles);
    CHECK(now.tier_ups == before.tier_ups);
  }
}
