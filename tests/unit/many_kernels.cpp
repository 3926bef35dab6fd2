// Many distinct kernels in one process keep memory bounded: the device's kernel map and the
// in-memory kernel cache stay at their limits, forgotten host kernels leave the JIT, and the
// resident set stops growing.
//
//   rocjit-many-kernels [KERNELS [CHECKPOINT [amdgpu]]]   (default 20000 and 2000)
//
// Each kernel adds its own constant to one int (a different IR text, so a different cache key
// and a fresh host compile) and is launched on a CPU device; with `amdgpu`, each is also compiled
// to a gfx942 code object, whose memory level must stay at its limit too. The resident set is read after
// CHECKPOINT kernels (by then both maps are full) and at the end; it may grow by at most 10%
// plus 16 MiB (measured: under 2 MiB from 2000 to 20000 kernels; without the bounds it grows by
// about 8 KiB per kernel, by about 2.3 KiB per kernel when lld links on the compiling thread (its
// thread_local arenas), and by about 5 KiB per kernel when only the JIT'd code is not freed). Exits non-zero with a message when a check fails. The disk cache is off
// (ROCJIT_CACHE=0): the point is the memory level, and 20000 entries would only churn the disk.
#include <deque>
#include <rocjit/rocjit.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "runtime/src/backend.hpp"

using namespace rocjit;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return pages_resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

Kernel add_constant(int32_t c) {
  using namespace rocjit::dsl;
  return kernel("add_constant", [c](Array<int32_t> a) {
    Int i = global_id(0);
    If(i < a.shape(0), [&] { a(i) = a(i) + c; });
  });
}

double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

}  // namespace

int main(int argc, char** argv) {
  update_settings([](Settings& s) { s.disk_cache = false; });  // the memory level alone is measured
  const int kernels = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int checkpoint = argc > 2 ? std::atoi(argv[2]) : 2000;
  const bool amdgpu = argc > 3 && std::string(argv[3]) == "amdgpu";
  if (kernels < 1 || checkpoint < 1 || checkpoint > kernels || (argc > 3 && !amdgpu)) {
    std::fprintf(stderr, "usage: rocjit-many-kernels [KERNELS [CHECKPOINT <= KERNELS [amdgpu]]]\n");
    return 2;
  }
  const size_t cache_limit = memory_cache_limit();
  const size_t device_limit = runtime::device_kernel_limit();
  std::printf("%d kernels, checkpoint at %d; memory cache limit %zu, device kernel limit %zu\n", kernels, checkpoint,
              cache_limit, device_limit);

  Device cpu = new_cpu_device();
  Stream s = default_stream(cpu);
  DeviceArray<int32_t> acc = to_device(std::vector<int32_t>{0}, s);
  int64_t expected = 0;

  // Held across the whole run: compiled again at the end, it must be found, not rebuilt (its
  // code is still in the JIT, and loading it twice would clash).
  Kernel first = add_constant(-1);
  HostKernel held = compile_host(first.ir());

  // The most recent kernels stay held, a few more than the device keeps, so its least-recently-
  // launched bound forgets live kernels too; the others are dropped at once, and the device
  // forgets those because nobody can ask for them again.
  std::deque<Kernel> live;
  std::printf("     0 kernels            rss %8.1f MiB\n", mib(resident_bytes()));
  const auto start = std::chrono::steady_clock::now();
  uint64_t rss_checkpoint = 0;
  for (int i = 1; i <= kernels; ++i) {
    Kernel k = add_constant(i);
    k[{1, 1, s}](acc);
    if (amdgpu) compile(k.ir_ptr(), Target::amdgpu("gfx942"));
    expected += i;
    live.push_back(k);
    if (live.size() > device_limit + 4) live.pop_front();
    if (i % 1000 == 0 || i == checkpoint || i == kernels) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const CacheStats stats = cache_stats();
      std::printf("%6d kernels  %7.1f s  rss %8.1f MiB  device map %zu  cache: host %llu, code objects %llu, "
                  "evicted %llu\n",
                  i, seconds, mib(resident_bytes()), cpu.impl().kernel_count(),
                  static_cast<unsigned long long>(stats.memory_host_kernels),
                  static_cast<unsigned long long>(stats.memory_code_objects),
                  static_cast<unsigned long long>(stats.memory_evictions));
      std::fflush(stdout);
    }
    if (i == checkpoint) rss_checkpoint = resident_bytes();
  }
  const uint64_t rss_end = resident_bytes();

  const int32_t got = acc.copy_to_host(s).data()[0];
  check(got == static_cast<int32_t>(expected),
        "every kernel ran with its own constant (sum " + std::to_string(got) + ", expected " + std::to_string(expected) +
            ")");
  const CacheStats stats = cache_stats();
  const size_t want_cache = std::min<size_t>(cache_limit, static_cast<size_t>(kernels) + 1);
  const size_t want_device = std::min<size_t>(device_limit, static_cast<size_t>(kernels));
  check(stats.memory_host_kernels == want_cache,
        "the memory cache holds " + std::to_string(stats.memory_host_kernels) + " host kernels (limit " +
            std::to_string(cache_limit) + ")");
  check(cpu.impl().kernel_count() == want_device, "the device remembers " + std::to_string(cpu.impl().kernel_count()) +
                                                      " kernels (limit " + std::to_string(device_limit) + ")");
  if (amdgpu)
    check(stats.memory_code_objects == std::min<size_t>(cache_limit, static_cast<size_t>(kernels)),
          "the memory cache holds " + std::to_string(stats.memory_code_objects) + " code objects (limit " +
              std::to_string(cache_limit) + ")");
  if (static_cast<size_t>(kernels) + 1 > cache_limit)
    check(stats.memory_evictions >= static_cast<size_t>(kernels) + 1 - cache_limit,
          "the memory cache forgot " + std::to_string(stats.memory_evictions) + " least recently used entries");

  live.clear();
  Kernel last = add_constant(kernels + 1);
  last[{1, 1, s}](acc);
  check(cpu.impl().kernel_count() == 1, "once the kernels are dropped the device remembers " +
                                            std::to_string(cpu.impl().kernel_count()) + " (the one still held)");

  const CacheStats before = cache_stats();
  HostKernel again = compile_host(first.ir());
  const CacheStats after = cache_stats();
  check(&again.impl() == &held.impl() && after.misses == before.misses,
        "a kernel still held elsewhere is found again after the cache forgot it, not compiled twice");

  const uint64_t allowed = rss_checkpoint + rss_checkpoint / 10 + (uint64_t(16) << 20);
  char line[200];
  std::snprintf(line, sizeof line, "resident set %.1f MiB after %d kernels, %.1f MiB after %d (allowed %.1f MiB)",
                mib(rss_checkpoint), checkpoint, mib(rss_end), kernels, mib(allowed));
  check(rss_end <= allowed, line);
  return failures == 0 ? 0 : 1;
}
